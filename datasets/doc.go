// Package datasets provides the built-in data of dimred: four small
// real-world tables compiled into the binary and deterministic synthetic
// generators, so that `dimred demo` and tests need no files at run time.
//
// # Embedded tables
//
// [Iris], [Wine], [BreastCancer] and [Digits] return the classic UCI tables
// as exported from the data bundled with scikit-learn, copied from Debian's
// python3-sklearn 1.2.1 package (originally from the UCI Machine Learning
// Repository, Dua and Graff 2019; see embedded/README.md for the individual
// sources, licences and citations). Class names are the label texts of the
// files ("0", "1", ...).
//
// # Generators
//
//   - [SwissRoll]: the labelled Swiss roll of Bouzas, Arvanitopoulos and
//     Tefas (IEEE TNNLS 2015), Figs. 1-2: 3-D points on a rolled-up plane,
//     classes in consecutive segments along the roll.
//   - [TwoClass]: the three 2-D two-class sets of Yang, Zha, Zhou and Hu
//     (ECML PKDD 2009), Fig. 1, which are the toy sets of Sugiyama's local
//     Fisher discriminant analysis (JMLR 2007): an ideal case, a case where
//     LPP fails, and a multimodal case where FDA fails.
//   - [GaussianMixture]: C isotropic Gaussian classes with a chosen dimension,
//     per-class counts and separation of the class means.
//
// Every generator takes an explicit seed and draws from a math/rand/v2 PCG
// source seeded with it. The floating-point work is done without package
// math's transcendental functions (which differ in the last bit between
// architectures and assembly/pure-Go implementations) and with explicit
// rounding that forbids fused multiply-add, so the same seed gives
// bit-identical data on every platform.
//
// # Names
//
// [Builtin] looks a data set up by name (as in `-i builtin:iris`), and
// [Names] lists the accepted names; generators are then run with their
// default parameters and seed.
package datasets

package method

import (
	"context"
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/embed"
	"github.com/dimred/dimred/kernel"
	"github.com/dimred/dimred/linalg"
	"github.com/dimred/dimred/param"
)

// Engine holds the engine choices every method accepts. The zero value
// lets the engine choose: the route from the graphs, the eigen-solver and
// the linear solver by size and by the number of directions wanted
// (embed.Problem, linalg.ChooseEigen, linalg.ChooseLinear).
type Engine struct {
	// Solver overrides the route: embed.Dense or embed.Regression.
	Solver embed.Solver
	// Eigen overrides the eigen-solver (linalg.EigenSolverByName).
	Eigen linalg.EigenSolver
	// Linear overrides the linear solver of the regression route.
	Linear linalg.LinearSolver
	// Norm scales the output directions (embed.Norm): "" is the method's
	// convention (the problem's constraint; unit length for LQMI).
	Norm embed.Norm
	// Context, when not nil, cancels the fit: the Gram matrix, the graphs'
	// products and the solvers stop with its error soon after it is done
	// (see FitContext).
	Context context.Context
}

// ctx returns the fit's context (Background when none is set).
func (e Engine) ctx() context.Context {
	if e.Context == nil {
		return context.Background()
	}
	return e.Context
}

// apply sets the engine choices on p; a method's own route is kept unless
// the user overrides it.
func (e Engine) apply(p *embed.Problem) {
	if e.Solver != "" {
		p.Solver = e.Solver
	}
	p.Eigen, p.Linear = e.Eigen, e.Linear
	if e.Norm != "" {
		p.Norm = e.Norm
	}
}

// Kernel space kinds of KernelSpace.Kind.
const (
	SpaceExact       = "exact"
	SpaceNystrom     = "nystrom"
	SpacePrecomputed = "precomputed"
)

// KernelSpace chooses how a kernel method represents its kernel: "exact"
// (default: the n×n centred Gram matrix), "nystrom" (Nyström features from
// Landmarks rows: O(n·m) memory, for large n; embed.Nystrom) or
// "precomputed" (the input rows are a Gram matrix; the kernel parameters
// are then unused; embed.Precomputed). Every kernel method accepts every
// kind.
type KernelSpace struct {
	Kind      string
	Landmarks int    // Nyström: m (0: embed.DefaultLandmarks)
	Sampling  string // Nyström: embed.Uniform (default) or embed.KMeansPP
	Seed      uint64 // Nyström: landmark draw

	// cols are the columns of a precomputed Gram matrix that are the
	// fit's training points, when its labelled method left rows out.
	cols []int
}

// labelled is the package's labelled for a kernel method on this space:
// with a precomputed kernel, the columns of the Gram matrix that belong
// to the rows left out (unlabelled points) are left out too, and the
// model reads the kernel values of new points with the kept training
// points only (embed.Precomputed.Cols). s is the fit's own copy of the
// method's space.
func (s *KernelSpace) labelled(name string, x *mat.Dense, y []int, minPerClass int) (*mat.Dense, []int, error) {
	xl, yl, idx, err := labelledIdx(name, x, y, minPerClass)
	if err == nil && s.Kind == SpacePrecomputed && idx != nil {
		s.cols = idx
	}
	return xl, yl, err
}

// Space returns the embed.Space for kernel k.
func (s KernelSpace) Space(k kernel.Kernel) (embed.Space, error) {
	switch s.Kind {
	case "", SpaceExact:
		return embed.Kernel{K: k}, nil
	case SpaceNystrom:
		ny := embed.Nystrom{K: k, Landmarks: s.Landmarks, Sampling: s.Sampling, Seed: s.Seed}
		return ny, ny.Validate()
	case SpacePrecomputed:
		return embed.Precomputed{Cols: s.cols}, nil
	}
	return nil, fmt.Errorf("space %q; allowed: %s, %s, %s", s.Kind, SpaceExact, SpaceNystrom, SpacePrecomputed)
}

// preparePCA applies a kernel method's optional PCA pre-step (keep, as
// preStep) to x and prepares the kernel space on its output: the pre-step
// model (nil: none), the rows the kernel sees and the prepared space.
func (s KernelSpace) preparePCA(ctx context.Context, name string, k kernel.Kernel, x *mat.Dense, keep float64) (embed.Model, *mat.Dense, *embed.Prepared, error) {
	pre, z, err := preStep(name, x, keep, false)
	if err != nil {
		return nil, nil, nil, err
	}
	prep, err := s.prepare(ctx, name, k, z)
	if err != nil {
		return nil, nil, nil, err
	}
	return pre, z, prep, nil
}

// prepare builds the kernel space of k on the rows z once: every problem
// of the fit (and the scale of relative regularisers, the geometry of
// graphs built in feature space) comes from it, so the Gram matrix is
// computed once per fit.
func (s KernelSpace) prepare(ctx context.Context, name string, k kernel.Kernel, z *mat.Dense) (*embed.Prepared, error) {
	if s.Kind != SpacePrecomputed {
		var err error
		if k, err = k.ResolveContext(ctx, z); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	sp, err := s.Space(k)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	prep, err := sp.Prepare(ctx, z)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return prep, nil
}

// solve solves prob on a prepared representation and wraps the result.
func solve(name string, e Engine, prob *embed.Problem, prep *embed.Prepared) (*Fitted, error) {
	e.apply(prob)
	r, err := prob.SolveContext(e.ctx(), prep)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &Fitted{Model: r.Model, Name: name, Values: r.Values, Train: r.Train}, nil
}

// Params declares the engine parameters every method accepts.
func (e *Engine) Params(s *param.Schema) {
	param.Enum(s, &e.Solver, "solver", "route: auto (by the graphs), dense (p×p generalized eigenproblem) or regression (spectral regression)",
		param.C("auto", embed.Auto), param.C("dense", embed.Dense), param.C("regression", embed.Regression))
	e.params(s, true)
}

// denseParams declares the engine parameters of a method whose problem
// has no regression route: solver is auto or dense, and why (what the
// regression route lacks) is in its doc and in the error solver=regression
// gets; there is no linear solver to choose.
func (e *Engine) denseParams(s *param.Schema, why string) {
	rule := "auto or dense (no regression route: " + why + ")"
	s.Var(param.Spec{Name: "solver", Type: "enum", Default: "auto", Allowed: []string{"auto", "dense"}, Rule: rule,
		Doc: "route: auto or dense (p×p generalized eigenproblem); no regression route: " + why},
		func(text string) error {
			switch text {
			case "auto":
				e.Solver = embed.Auto
			case "dense":
				e.Solver = embed.Dense
			default:
				return param.ErrRule
			}
			return nil
		}, nil,
		func() error {
			if e.Solver != embed.Auto && e.Solver != embed.Dense {
				return &param.Error{Rule: rule, Value: string(e.Solver)}
			}
			return nil
		})
	e.params(s, false)
}

// params declares the engine parameters after the solver (linsolve only
// where there is a regression route).
func (e *Engine) params(s *param.Schema, regression bool) {
	solverParam(s, &e.Eigen, "eigen", "eigen-solver (auto: by size and the dimensions wanted)", linalg.EigenSolverByName, linalg.EigenSolverNames())
	if regression {
		solverParam(s, &e.Linear, "linsolve", "linear solver of the regression route (auto: by size)", linalg.LinearSolverByName, linalg.LinearSolverNames())
	}
	param.Enum(s, &e.Norm, "norm", "scale of the output directions: auto (the method's convention: the constraint, unit for LQMI), constraint (VᵀBV = I, the problem's own) or unit (unit length in feature space, the convention of Cai, He and Han's MATLAB codes); it weights the output coordinates against each other, so it changes k-NN, NCC and SVM results, never the subspace",
		param.C("auto", embed.Norm("")), param.C("constraint", embed.NormConstraint), param.C("unit", embed.NormUnit))
}

// solverParam declares a solver chosen by name ("auto": nil, the engine
// chooses). A struct may hold any solver, so the stored value is not
// checked against the names.
func solverParam[T interface{ Name() string }](s *param.Schema, p *T, name, doc string, byName func(string) (T, error), names []string) {
	s.Var(param.Spec{Name: name, Type: "enum", Default: "auto", Allowed: append([]string{"auto"}, names...), Doc: doc},
		func(text string) error {
			var v T
			if text != "auto" {
				var err error
				if v, err = byName(text); err != nil {
					return param.ErrRule
				}
			}
			*p = v
			return nil
		}, nil, nil)
}

// Params declares the kernel-space parameters every kernel method accepts.
func (sp *KernelSpace) Params(s *param.Schema) {
	sp.params(s, "kernel space: exact (n×n Gram matrix), nystrom (landmark features, for large n) or precomputed (the input rows are a Gram matrix)",
		SpaceExact, SpaceNystrom, SpacePrecomputed)
}

// params declares the space parameters with the kinds a method accepts.
func (sp *KernelSpace) params(s *param.Schema, doc string, kinds ...string) {
	param.Enum(s, &sp.Kind, "space", doc, param.Names(kinds...)...)
	param.Num(s, &sp.Landmarks, "landmarks", embed.DefaultLandmarks, "Nyström landmarks m (capped at n): more is closer to the exact space, at O(n·m²) time (GDA on 10 000 MNIST rows, 10-fold NCC: 4.3 % error with 1000 against 2.5 % exact)", param.Min(1))
	param.Enum(s, &sp.Sampling, "sampling", "Nyström landmark sampling", param.Names(embed.Uniform, embed.KMeansPP)...)
	param.Num(s, &sp.Seed, "seed", 0, "Nyström landmark seed")
}

// noPCAWithPrecomputed declares that a PCA pre-step needs input rows,
// which space=precomputed (a Gram matrix) does not give.
func noPCAWithPrecomputed(s *param.Schema, sp *KernelSpace, pca *float64) {
	s.Constraint(func() error {
		if sp.Kind == SpacePrecomputed && *pca != 0 {
			return fmt.Errorf("pca=%v needs input rows to project, and space=precomputed gives a Gram matrix; set pca=0", *pca)
		}
		return nil
	})
}

// kernelParams declares the kernel of a kernel method (default def):
// "kernel", a type or a full spec such as rbf:sigma=2, and the shorthands
// sigma, gamma, degree and offset, which change the kernel given. sigma
// and gamma exclude each other, also when one of them is in the spec.
func kernelParams(s *param.Schema, k *kernel.Kernel, def kernel.Kernel) {
	var spec map[string]bool // the keys of a spec given as kernel=…
	s.Var(param.Spec{Name: "kernel", Type: "kernel", Default: def.Type, Allowed: kernel.Names(),
		Rule: "a kernel type (" + strings.Join(kernel.Names(), ", ") + ") or TYPE:key=value,…",
		Doc:  "kernel, e.g. rbf, poly:degree=3,offset=1 (the shorthands below change it)"},
		func(text string) error {
			kk, err := kernel.Parse(text)
			if err != nil {
				return err
			}
			*k, spec = kk, map[string]bool{}
			_, args, _ := strings.Cut(text, ":")
			for _, kv := range strings.Split(args, ",") {
				key, _, _ := strings.Cut(kv, "=")
				spec[strings.ToLower(strings.TrimSpace(key))] = true
			}
			return nil
		},
		func() {
			if k.Type == "" {
				*k = def
			}
		},
		func() error {
			if err := k.Validate(); err != nil {
				return &param.Error{Value: k.String(), Err: err}
			}
			return nil
		})
	exclusive := func(other string) error {
		if spec[other] {
			return fmt.Errorf("the kernel spec sets %s; sigma and gamma exclude each other, give one", other)
		}
		return nil
	}
	given := map[string]bool{} // the shorthands given
	param.NumFunc(s, "sigma", "auto", "RBF width σ in exp(−‖x−y‖²/(2σ²))", func(v float64) error {
		k.Sigma, k.Gamma, given["sigma"] = v, 0, true
		return exclusive("gamma")
	}, param.Above(0), param.Check("such that γ = 1/(2σ²) is finite and > 0", func(v float64) bool {
		g := 1 / (2 * v * v)
		return g > 0 && !math.IsInf(g, 0)
	}), param.Auto("½ × the median distance between training rows; docs/parameters.md"))
	param.NumFunc(s, "gamma", "auto", "RBF: exp(−γ‖x−y‖²), instead of sigma (γ = 1/(2σ²)); poly and sigmoid: the scale of xᵀy (auto: 1)", func(v float64) error {
		k.Gamma, given["gamma"] = v, true
		return exclusive("sigma")
	}, param.Above(0))
	param.NumFunc(s, "degree", fmt.Sprint(kernel.DefaultDegree), "polynomial degree", func(v int) error {
		k.Degree, given["degree"] = v, true
		return nil
	}, param.Min(1))
	param.NumFunc(s, "offset", fmt.Sprint(def.Offset), "polynomial and sigmoid offset", func(v float64) error {
		k.Offset, given["offset"] = v, true
		return nil
	})
	// A shorthand the kernel does not use (sigma with kernel=poly) would be
	// ignored: an error, whichever order the two were given in.
	s.Constraint(func() error {
		for _, key := range []string{"sigma", "gamma", "degree", "offset"} {
			if given[key] && !kernel.Applies(k.Type, key) {
				return fmt.Errorf("%w; give -p kernel=TYPE to change the kernel (this one: %s)", kernel.NotApplicable(k.Type, key), k)
			}
		}
		return nil
	})
	s.Exclusive("sigma", "gamma")
}

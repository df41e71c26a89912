package cli

import (
	"flag"
	"fmt"
	"io"
	"regexp"
	"strings"
)

// commandHelp is the longer help of a command ('dimred COMMAND -h', on
// stdout): what it does and examples that work from the repository root.
var commandHelp = map[string]string{
	"methods": `Lists the dimensionality-reduction methods: family, supervision, space,
the most output dimensions and the paper. -v adds every parameter with its
default and rule (what -p key=value accepts).

examples:
  dimred methods
  dimred methods -v`,
	"fit": `Fits the preprocessing (--scale, default minmax to [−1, 1]: the same as
eval) and then a method on the rows of a file, and writes the fitted model
(preprocessing, projection, method, parameters, feature and class names) to
a model file that 'dimred transform' and method.LoadPipeline read. Kernel
methods choose their RBF width from the data unless -p sigma= is given
(docs/parameters.md).

examples:
  dimred fit -m gda -i builtin:wine -o gda.json
  dimred fit -m kpca -i data.csv -k 10 -p sigma=2 -o kpca.json
  dimred fit -m lda -i big.csv --stream -o lda.json
  dimred fit -m ksr -i big.csv --stream -p space=nystrom -p landmarks=1000 -p gamma=0.01 -o ksr.json`,
	"transform": `Maps rows through a model written by 'dimred fit' (its preprocessing
first). The output format follows the extension of -o: .csv or .tsv (label
column first, then z1, z2, …), .npy (the embedding only), .npz (the
embedding as the array X and the labels, when the input has them, as y:
np.load reads it, and so does dimred), .mat (MATLAB: the embedding as fea,
one row per sample, the labels as gnd, string class names as the char
matrix classes), any of them followed by .gz; - (the default) is CSV on
standard output. The file is
written to a temporary name and renamed, so a failed run never leaves a
partial file or damages an existing one. With --stream the rows are read,
mapped and written a chunk at a time (CSV, TSV or, to a file, .npy out),
for inputs larger than memory; the output is the same bytes. -k K maps the rows through the
first K dimensions only (a truncated model: no time spent on the others).
--plot FILE (.png, .svg or .pdf) also draws the first two coordinates,
coloured by class.

The columns of a CSV or TSV input must be the model's features, by name
and in the fit's order (else an error; --ignore-names takes them by
position). Without --label-col or --no-labels, a header of just the
model's features is read without labels, and one with a single other
column takes that column, under any name it holds once and anywhere, as
the labels.

examples:
  dimred transform --model gda.json -i builtin:wine -o z.csv
  dimred transform --model gda.json -i builtin:wine -o z.csv --plot z.png
  dimred transform --model gda.json -i new.csv.gz -o z.npy
  dimred transform --model gda.json -i digits.npz -o z.npz
  dimred transform --model gda.json -i Yale_32x32.mat -o z.mat
  cat new.csv | dimred transform --model gda.json -i - -k 2
  dimred transform --model ksr.json -i big.csv --stream -o z.csv.gz`,
	"info": `Loads a model file written by 'dimred fit' (checking its checksum and
matrices, as transform does) and prints what it holds: the method and its
parameters, the input features and their preprocessing, the class names,
the map from an input row to its embedding (linear projection, kernel
expansion over the training rows, Nyström features on landmarks, or a
chain of them, with the kernels), how many numbers it keeps, and the
method's values (eigenvalues) of the directions. --format json gives the
same as one object.

With -i DATA instead, it says what dimred reads from a data file (with the
same reading flags as the other commands): the arrays of a .npz archive
or the variables of a .mat file (what --npz-x/--npz-y and
--mat-fea/--mat-gnd can name; listed also when the reading fails), rows,
features, classes and their sizes, unlabelled and dropped rows, the range
of the values and the columns constant in every row.

examples:
  dimred info --model gda.json
  dimred info --model kpca.json --format json
  dimred info -i digits.npz
  dimred info -i ../shared/data/uci/breast.w.arff --missing drop`,
	"score": `Prints the quadratic mutual information I_Q(Z;Y) (Bouzas et al. 2015,
eq. 11-14) between the rows of a file (or their embedding by a model) and
their labels.

examples:
  dimred score -i builtin:iris
  dimred score -i builtin:wine --model gda.json`,
	"eval": `Estimates the classification error of each method's embedding against the
output dimension, under stratified k-fold cross-validation (default 10
folds) or random splits with a fixed number of training rows per class;
prints the smallest error and the dimension where it is reached. The
preprocessing is fitted on each training split. Progress goes to stderr
(a bar on a terminal, timestamped lines otherwise; --quiet silences it);
-j bounds the fits run at once, and eval lowers it when the estimated
memory of that many fits exceeds the available memory. Ctrl-C stops it
without output. --dims scores listed dimensions only (e.g. 5,10,20): a
method whose k-dimensional fit is not the first k columns of a larger one
(MIE, BERE and their kernel forms, MKL-SR) is then fitted once per listed
dimension instead of once per dimension up to --max-dims. With -p
space=precomputed the input rows are an n×n Gram matrix: each split gives
the methods K[train, train] and K[test, train], and --scale is none (as
for fit and cluster); rows left out (--subsample, hidden or missing
labels a supervised method skips) take their columns with them.

The minimum over dimensions picks the dimension on the test folds, as the
papers do. --nested instead chooses it on --inner-folds stratified folds of
each training part (and, with --grid, method parameters too: the product
of the values of every --grid flag, routed to the methods as -p is), refits
on the training part with the choice and scores the test fold; it prints
that error with its spread over folds, the dimensions and grid values
chosen, and the minimum over dimensions of the same run beside it. With
--choose-classifier the -c classifiers are candidates too (one result per
method; e.g. the k of k-NN by cross-validation). It costs (inner folds +
1) × grid points times the fits (docs/nested.md).

--plot FILE (.png, .svg or .pdf) also draws the error against the
dimension, one line per method and classifier, with ±1 standard deviation
over --repeats as error bars.

examples:
  dimred eval -i builtin:wine -m pca,lda,gda -c ncc,knn3
  dimred eval -i builtin:wine -m pca,lda,kpca -c knn1 --repeats 5 --plot curves.png
  dimred eval -i builtin:wine -m lda,gda -c ncc,knn3 --nested --grid sigma=0.5,1,2 --grid gda.alpha=0.01,0.1
  dimred eval -i builtin:wine -m lda -c knn1,knn3,knn5 --nested --choose-classifier
  dimred eval -i ../shared/data/faces/orl_32x32.csv.gz -m lda,gda --train-per-class 5 --repeats 10
  dimred eval -i ../shared/data/mnist/mnist10k.csv.gz -m gda,kqmi -j 1 2> eval.log
  dimred eval -i ../shared/data/mnist/mnist10k.csv.gz -m mie -c knn3 --dims 5,10 --cv 3`,
	"demo": `Runs the methods on built-in data, prints a comparison of their errors
(10-fold CV, as in Bouzas et al. 2015, Tables II-III) and writes 2-D scatter
plots of the embeddings.

examples:
  dimred demo
  dimred demo -o plots`,
	"reproduce": `Re-runs the papers' experiments (every table and figure of the five papers
that our data allows) and sets our numbers beside the published ones, read
at run time from SHARED/papers/tables. With --out DIR it writes a report
folder: report.md (tables with differences and explanations, scorecard,
findings, choices, data checksums, wall times), csv/ (one file per table),
the PNG figures and results/ (each experiment's numbers: a later run of
other experiments adds to the same report). Without --out the report's
tables go to stdout. --list shows every experiment, its data and run time.

examples:
  dimred reproduce --list
  dimred reproduce --quick --out /tmp/report
  dimred reproduce seed000 --datasets Iris,Wine -m GDA,KQMI
  dimred reproduce seed000-IV-V --datasets Glass --classifier svm-linear:C=100,svm-rbf:C=100,gamma=1
  dimred reproduce --experiment seed004-tables1-2 --datasets ORL --out docs/reproduction
  dimred reproduce all --out docs/reproduction`,
	"datasets": `Lists the built-in data sets, usable wherever a data file is expected as
-i builtin:NAME.

example:
  dimred datasets`,
	"bench": `Times the performance workloads (docs/performance.md) and, with --peer,
the same computations in NumPy, SciPy and scikit-learn.

examples:
  dimred bench --list
  dimred bench --workload W4/gda --scale 0.2`,
}

func init() { commandHelp["cluster"] = clusterHelp }

// seedPaper names the papers of the seed files by author and year.
var seedPaper = map[string]string{
	"000": "Bouzas et al. 2015", "001": "Liu & Gillies 2016", "002": "Liu, Xia & Zhou 2013",
	"003": "Yang et al. 2009", "004": "Zhao 2014",
}

var (
	seedWithAuthor = regexp.MustCompile(`seed (00\d) \(([^)]*\d{4})\)`)
	seedRange      = regexp.MustCompile(`seeds 000-004`)
	seedList       = regexp.MustCompile(`seeds? (00\d(?:, 00\d)*)`)
)

// paperNames rewrites the seed-file names of the papers ("seed 000",
// "seeds 000, 004") in user-facing text as authors and years; the seed
// names stay in the reproduction docs and the reproduce command.
func paperNames(s string) string {
	s = seedWithAuthor.ReplaceAllString(s, "$2")
	s = seedRange.ReplaceAllString(s, "the five papers")
	return seedList.ReplaceAllStringFunc(s, func(m string) string {
		ids := strings.Split(seedList.FindStringSubmatch(m)[1], ", ")
		for i, id := range ids {
			ids[i] = seedPaper[id]
		}
		return strings.Join(ids, ", ")
	})
}

// printHelp writes a command's help: usage, description, examples and
// its flags (internal ones hidden).
func printHelp(w io.Writer, fs *flag.FlagSet) {
	name := fs.Name()
	usageLine, summary := name, ""
	for _, c := range commands() {
		if c.name == name || strings.HasPrefix(name, c.name+" ") {
			usageLine, summary = c.usage, c.summary
		}
	}
	fmt.Fprintf(w, "usage: dimred %s\n\n", usageLine)
	if summary != "" {
		fmt.Fprintf(w, "%s.\n\n", paperNames(upperFirst(summary)))
	}
	if h := commandHelp[strings.Fields(name)[0]]; h != "" {
		fmt.Fprintf(w, "%s\n\n", paperNames(h))
	}
	fmt.Fprintln(w, "flags:")
	fs.VisitAll(func(f *flag.Flag) {
		if strings.HasPrefix(f.Usage, "internal:") {
			return
		}
		dash := "-"
		if len(f.Name) > 1 {
			dash = "--"
		}
		def := ""
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" && f.DefValue != "[]" {
			def = fmt.Sprintf(" (default %s)", f.DefValue)
		}
		fmt.Fprintf(w, "  %s%s\n    \t%s%s\n", dash, f.Name, paperNames(f.Usage), def)
	})
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

package cli

import (
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/method"
	"github.com/dimred/dimred/plot"
	"github.com/dimred/dimred/preprocess"
	libprogress "github.com/dimred/dimred/progress"
	"github.com/dimred/dimred/stats"
)

func (e *env) printf(format string, a ...any) { fmt.Fprintf(e.stdout, format, a...) }

// buildMethods makes the named methods from the -p flags (routeParams):
// every parameter is checked before any data is read. It returns each
// method's parameters too.
func buildMethods(names []string, flags []string) ([]method.Method, []map[string]string, error) {
	infos := make([]method.Info, len(names))
	for i, name := range names {
		info, err := method.Lookup(name)
		if err != nil {
			return nil, nil, usageError{err}
		}
		for _, prev := range infos[:i] {
			if prev.Name == info.Name {
				return nil, nil, usagef("-m: %s is listed twice; for two settings of one method, run them apart (or compare values with --nested --grid)", info.Name)
			}
		}
		infos[i] = info
	}
	routed, err := routeParams(flags, infos)
	if err != nil {
		return nil, nil, err
	}
	ms := make([]method.Method, len(infos))
	kvs := make([]map[string]string, len(infos))
	for i, info := range infos {
		kvs[i] = routed[info.Name]
		if ms[i], err = newMethod(info.Name, kvs[i]); err != nil {
			return nil, nil, err
		}
	}
	return ms, kvs, nil
}

func runFit(e *env, args []string) error {
	fs := newFlags(e, "fit")
	force := forceFlag(fs)
	df := addDataFlags(e, fs)
	name := fs.String("m", "", "method (see 'dimred methods')")
	dims := fs.Int("k", 0, "output dimensions (0: the most the method gives)")
	scale := fs.String("scale", defaultScale, "preprocessing fitted on the data and saved with the model: none, minmax, zscore, unit, pca:0.99, or a comma list (the same default as eval; with --stream: none)")
	out := fs.String("o", "", "model file to write (JSON)")
	stream := fs.Bool("stream", false, "fit from statistics accumulated over chunks of the file, never holding it whole (CSV/TSV/LIBSVM, or a C-order .npy with --labels; --scale none; methods "+strings.Join(method.StatsMethods(), ", ")+", and with -p space=nystrom (three passes) "+strings.Join(method.NystromStatsMethods(), ", ")+")")
	chunk := fs.Int("chunk", 10000, "rows per chunk with --stream")
	var params multiFlag
	fs.Var(&params, "p", "method parameter key=value (repeatable; see 'dimred methods -v')")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *name == "" || *out == "" {
		return usagef("-m METHOD and -o MODEL are required")
	}
	if *dims < 0 {
		return usagef("-k must be ≥ 0 (0 = all), got %d", *dims)
	}
	if err := checkOutput(*out, df.input, df.labels); err != nil {
		return err
	}
	ms, kvs, err := buildMethods([]string{*name}, params)
	if err != nil {
		return err
	}
	m, kv := ms[0], kvs[0]
	if *scale, _, err = precomputedScale(fs, *scale, kvs); err != nil {
		return err
	}
	prog := e.newProgress("fit")
	var emLine func(string) // iterative methods: one line per iteration (timestamped off a terminal), unless --quiet
	if prog != nil {
		emLine = func(line string) { prog.note("%s", line) }
	}
	if p, ok := m.(method.Progresser); ok && emLine != nil {
		m = p.WithProgress(emLine)
	}
	if *stream {
		if !flagGiven(fs, "scale") {
			*scale = "none"
		}
		if supervised(*name) && df.unlabelled() {
			return df.errNoLabels(*name + " is a supervised method")
		}
		return streamFit(e, prog, df, m, *name, kv, *scale, *chunk, *dims, *out)
	}
	if _, err := preprocess.Parse(*scale); err != nil {
		return usageError{err}
	}
	ds, err := df.load()
	if err != nil {
		return err
	}
	if supervised(*name) && ds.Y == nil {
		return df.errNoLabels(*name + " is a supervised method")
	}
	r, c := ds.Dims()
	if err := e.announceFit("fit", prog, *name, kv, r, c, *dims, *scale, *force); err != nil {
		return err
	}
	start := time.Now()
	ctx := e.ctx
	if emLine != nil {
		ctx = libprogress.With(ctx, emLine) // the long steps inside the fit (kernel matrix, eigen-decompositions, solves)
	}
	p, err := method.PipelineSpec{Method: *name, Params: kv, Scale: *scale, Dims: *dims, Progress: emLine}.Fit(ctx, ds)
	if err != nil {
		return err
	}
	if el := time.Since(start); el >= 2*time.Second {
		prog.note("fitted in %s", roundDuration(el))
	}
	p.LIBSVMZeroBased = df.zeroBasedFit(ds.FeatureNames, data.Options{})
	if p.Dims() >= 1000 && *dims == 0 {
		prog.note("writing the model with all %d dimensions the method gives (-k 0; -k N keeps N)", p.Dims())
	}
	if err := e.writeFile(*out, p.Save); err != nil {
		return err
	}
	kern := ""
	for _, k := range p.Kernels() {
		kern += ", kernel " + k.String()
	}
	scaled := ""
	if p.Preprocess != nil {
		scaled = ", --scale " + *scale
	}
	e.status(*out, "fitted %s on %s (%s, %s%s%s) → %s; model written to %s\n", *name, df.input, rowsText(*name, kv, r, unlabelledRows(ds.Y)), nOf(c, "feature"), scaled, kern, nOf(p.Dims(), "dimension"), *out)
	return nil
}

// unlabelledRows counts the rows of y without a label.
func unlabelledRows(y []int) int { return len(y) - len(data.LabelledRows(y)) }

// rowsText says how many rows a fit of name (with parameters kv) saw and
// what became of the unl unlabelled ones: left out by a supervised
// method; taken into the semi-supervised graph by a method that chooses
// its graph by the labels (SR, KSR, MKL-SR with graph=auto), which is
// much slower than the supervised one (one blank label made SR's fit of
// 10 000 rows 280 times slower), so the line says so.
func rowsText(name string, kv map[string]string, n, unl int) string {
	rows := nOf(n, "row")
	info, err := method.Lookup(name)
	switch {
	case unl == 0 || err != nil:
	case info.Supervised():
		rows = fmt.Sprintf("%s, of which %d unlabelled and left out", rows, unl)
	case unl < n && strings.Contains(info.Supervision, "semi-supervised") && (kv["graph"] == "" || kv["graph"] == "auto"):
		rows = fmt.Sprintf("%s, of which %d unlabelled: fitted semi-supervised, on a kNN graph much slower than the class graph of labelled rows alone", rows, unl)
	}
	return rows
}

// announceFit says, on r ≥ 2000 rows, what is about to be fitted and its
// estimated memory (fitMemory), and warns on stderr when that is more
// than 80 % of the memory available (memoryWarning); cmd names the
// command in the warning. A fit estimated above all the memory available
// is refused unless force (--force): it would be killed, or swap for
// hours, after minutes of work. A large fit makes the collector run
// sooner (collectSooner).
func (e *env) announceFit(cmd string, prog *progress, name string, kv map[string]string, r, c, dims int, scale string, force bool) error {
	info, err := method.Lookup(name)
	if err != nil {
		return nil
	}
	est := fitMemory(info, kv, r, c, dims)
	collectSooner(est)
	if r >= 2000 {
		prog.note("fitting %s on %d rows × %d features (--scale %s), about %s (estimate)", name, r, c, scale, gib(est))
	}
	if cmd == "fit" && name == "kpca" && dims == 0 && r >= 5000 && kv["space"] != method.SpaceNystrom {
		// KPCA's default keeps every direction (as scikit-learn's
		// KernelPCA): a full n×n eigendecomposition and an n×n model.
		prog.note("kpca keeps all %d directions by default: a full eigendecomposition (minutes at 10 000 rows) and a model of %s; -k 50 computes 50 by Lanczos in seconds", r-1, gib(int64(r)*int64(r)*8))
	}
	avail := availableMemory()
	if err := memoryRefusal(info, kv, r, est, avail, force); err != nil {
		return err
	}
	if w := memoryWarning(info, kv, r, est, avail); w != "" {
		fmt.Fprintf(e.stderr, "dimred %s: warning: %s\n", cmd, w)
	}
	return nil
}

// memoryRefusal refuses a fit of info on n rows estimated at est bytes
// above all the avail bytes available (0: unknown, never refused),
// unless force, naming the Nyström space for a kernel method in another
// space and --force.
func memoryRefusal(info method.Info, kv map[string]string, n int, est, avail int64, force bool) error {
	if avail <= 0 || est <= avail || force {
		return nil
	}
	return fmt.Errorf("%s on %d rows may need about %s, more than the %s available%s; refused, as it would be killed or swap after minutes of work: give --force to try anyway", info.Name, n, gib(est), gib(avail), nystromHint(info, kv))
}

// nystromHint is the way out of an n×n fit for a kernel method outside
// the Nyström space ("" for the others).
func nystromHint(info method.Info, kv map[string]string) string {
	if kv["space"] != method.SpaceNystrom && slices.ContainsFunc(info.Params, func(p method.Param) bool { return p.Name == "space" }) {
		return " (-p space=nystrom -p landmarks=M needs O(n·M))"
	}
	return ""
}

// memoryWarning returns a warning when a fit of info on n rows, estimated
// at est bytes (fitMemory), may take more than 80 % of the avail bytes
// available (0: unknown, no warning), with the Nyström space as the way
// out for a kernel method in another space; "" otherwise.
func memoryWarning(info method.Info, kv map[string]string, n int, est, avail int64) string {
	if avail <= 0 || est <= avail*8/10 {
		return ""
	}
	return fmt.Sprintf("%s on %d rows may need about %s, more than 80 %% of the %s available%s", info.Name, n, gib(est), gib(avail), nystromHint(info, kv))
}

// streamFit fits a method from statistics accumulated over chunks of the
// input file (data.Scan, stats.Moments): memory O(chunk·d + d²) whatever
// the file's length. A kernel method with space=nystrom takes three passes
// (streamNystrom); the others one.
func streamFit(e *env, prog *progress, df *dataFlags, m method.Method, name string, kv map[string]string, scale string, chunk, dims int, out string) error {
	var nm *method.NystromStats
	sf, linear := m.(method.StatsFitter)
	switch {
	case method.HasNystromStats(m):
		var err error
		if nm, err = method.NewNystromStats(m); err != nil {
			return usagef("--stream: %v", err)
		}
	case !linear:
		return usagef("--stream: method %s needs all rows in memory (it uses pairs of rows or a full Gram matrix); methods that fit from statistics: %s (every row labelled for the supervised ones), and with -p space=nystrom %s", name, strings.Join(method.StatsMethods(), ", "), strings.Join(method.NystromStatsMethods(), ", "))
	}
	if c, ok := m.(method.StatsChecker); ok {
		if err := c.CheckStats(); err != nil {
			return usagef("--stream: %v", err)
		}
	}
	if scale != "none" {
		return usagef("--stream fits on the rows as they are: use --scale none (got %q); scale the file beforehand", scale)
	}
	if chunk < 1 {
		return usagef("--chunk must be ≥ 1, got %d", chunk)
	}
	if strings.HasPrefix(df.input, "builtin:") || df.input == "" {
		return usagef("--stream needs a CSV, TSV, LIBSVM or .npy file (-i FILE)")
	}
	opt, err := df.options()
	if err != nil {
		return err
	}
	opt.MaxClasses = stats.MaxClasses // the statistics keep per-class tables
	if nm != nil {
		return streamNystrom(e, prog, df.input, opt, df.zeroBasedFit(nil, opt), nm, name, kv, chunk, dims, out)
	}
	var ms stats.Moments
	chunks := 0
	if err := data.Scan(df.input, opt, chunk, func(x *mat.Dense, y []int) error {
		chunks++
		if err := ms.Add(x, y); err != nil {
			return err
		}
		prog.count(ms.N(), "rows read", false)
		return nil
	}); err != nil {
		return err
	}
	prog.count(ms.N(), "rows read", true)
	model, err := sf.FitStats(&ms, dims)
	if err != nil {
		return err
	}
	p := &method.Pipeline{Method: name, Params: kv, Model: model.(*method.Fitted), Features: ms.Dim()}
	p.FeatureNames = streamNames(df.input, opt, ms.Dim())
	p.LIBSVMZeroBased = df.zeroBasedFit(nil, opt)
	if err := e.writeFile(out, p.Save); err != nil {
		return err
	}
	e.status(out, "fitted %s from statistics of %s (%s, %s; %s; not scaled: --stream fits the rows as they are) → %s; model written to %s\n", name, df.input, rowsText(name, kv, ms.N(), ms.N()-ms.LabeledN()), nOf(ms.Dim(), "feature"), nOf(chunks, "chunk"), nOf(model.Dims(), "dimension"), out)
	return nil
}

// streamNames returns what a streamed fit saves of the input's feature
// names, as a fit in memory does: those of a CSV or TSV header (so that
// transform checks the columns' order and finds the label column by them).
// Other formats have none to keep, and class names are not kept: a scan
// reads labels as class indices, whose names it does not see.
func streamNames(path string, opt data.Options, d int) []string {
	if names, err := data.ScanHeader(path, opt); err == nil && len(names) == d {
		return names
	}
	return nil
}

// streamNystrom fits a kernel method with space=nystrom in three passes
// over the file (method.NystromStats): count the rows, collect the
// landmark rows the in-memory fit would pick, then accumulate the
// statistics of every row's Nyström features. Memory: the landmarks, the
// feature map and the statistics of p features (O(m·d + p²), p ≤ m per
// kernel) plus one chunk's kernel values and features (chunk × m, chunk ×
// p), whatever the file's length.
func streamNystrom(e *env, prog *progress, path string, opt data.Options, zeroBased bool, nm *method.NystromStats, name string, kv map[string]string, chunk, dims int, out string) error {
	n, d := 0, 0
	if err := data.Scan(path, opt, chunk, func(x *mat.Dense, _ []int) error {
		r, c := x.Dims()
		n, d = n+r, c
		prog.count(n, "rows counted (pass 1 of 3)", false)
		return nil
	}); err != nil {
		return err
	}
	rows, err := nm.LandmarkRows(n)
	if err != nil {
		return err
	}
	prog.note("pass 1 of 3: %d rows × %d features; %d landmark rows", n, d, len(rows))
	lm := mat.NewDense(len(rows), d, nil)
	k, seen := 0, 0
	if err := data.Scan(path, opt, chunk, func(x *mat.Dense, _ []int) error {
		r, _ := x.Dims()
		for ; k < len(rows) && rows[k] < seen+r; k++ {
			lm.SetRow(k, x.RawRowView(rows[k]-seen))
		}
		seen += r
		prog.update(seen, n, "rows searched for landmarks (pass 2 of 3)")
		return nil
	}); err != nil {
		return err
	}
	if seen != n {
		return fmt.Errorf("%s: %d rows on the second pass, %d on the first: did the file change while it was read?", path, seen, n)
	}
	fm, err := nm.FeatureMap(e.ctx, lm)
	if err != nil {
		return err
	}
	prog.note("pass 2 of 3: feature map of the %d landmarks built", len(rows))
	var ms stats.Moments
	seen = 0
	if err := data.Scan(path, opt, chunk, func(x *mat.Dense, y []int) error {
		f, err := fm.Apply(e.ctx, x)
		if err != nil {
			return err
		}
		if err := ms.Add(f, y); err != nil {
			return err
		}
		r, _ := x.Dims()
		seen += r
		prog.update(seen, n, "rows through the feature map (pass 3 of 3)")
		return nil
	}); err != nil {
		return err
	}
	if seen != n {
		return fmt.Errorf("%s: %d rows on the third pass, %d on the first: did the file change while it was read?", path, seen, n)
	}
	fitted, err := nm.Fit(&ms, fm, dims)
	if err != nil {
		return err
	}
	p := &method.Pipeline{Method: name, Params: kv, Model: fitted, Features: d, LIBSVMZeroBased: zeroBased}
	p.FeatureNames = streamNames(path, opt, d)
	if err := e.writeFile(out, p.Save); err != nil {
		return err
	}
	e.status(out, "fitted %s from statistics of the Nyström features of %s (%s, %s; three passes, %s, %s; not scaled: --stream fits the rows as they are) → %s; model written to %s\n", name, path, rowsText(name, kv, ms.N(), ms.N()-ms.LabeledN()), nOf(d, "feature"), nOf(len(rows), "landmark"), nOf(ms.Dim(), "feature column"), nOf(fitted.Dims(), "dimension"), out)
	return nil
}

func runTransform(e *env, args []string) error {
	fs := newFlags(e, "transform")
	df := addDataFlags(e, fs)
	modelPath := fs.String("model", "", "model file written by 'dimred fit'")
	out := fs.String("o", "-", "output file, its format by extension: .csv, .tsv (label column first), .npy (the embedding only), .npz (arrays X and y), .mat (variables fea and gnd) or .libsvm (labelled rows only), any of them .gz; - is standard output (CSV)")
	dims := fs.Int("k", 0, "keep only the first k dimensions (0: all)")
	stream := fs.Bool("stream", false, "read and write chunk by chunk, never holding the input whole (CSV/TSV/LIBSVM/.npy in, CSV/TSV/.npy out; text labels must be class indices)")
	// 1000 rows as transform maps them without --stream: a kernel model
	// holds the chunk's kernel values (10 000 rows of a 10 000-row model:
	// 800 MB, where 1 000 take 80 MB).
	chunk := fs.Int("chunk", transformChunk, "rows per chunk with --stream")
	ignoreNames := fs.Bool("ignore-names", false, "embed the columns by position even when the input's header names differ from the model's (by default that is an error: reordered or other columns)")
	plotPath := fs.String("plot", "", "also draw the first two output coordinates, coloured by class (one coordinate: a strip per class), to this file: .png, .svg or .pdf")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *stream && *plotPath != "" {
		return usagef("--plot needs every row at once; it cannot be drawn with --stream")
	}
	if err := checkPlot(*plotPath, df.input, df.labels, *modelPath); err != nil {
		return err
	}
	if *modelPath == "" {
		return usagef("--model MODEL is required")
	}
	format, err := outputFormat(*out)
	if err != nil {
		return err
	}
	if err := checkOutput(*out, df.input, df.labels, *modelPath); err != nil {
		return err
	}
	if *stream {
		return streamTransform(e, df, *modelPath, *out, format, *dims, *chunk, !*ignoreNames)
	}
	p, err := loadModel(*modelPath)
	if err != nil {
		return err
	}
	df.libsvmWidth(p)
	if !*ignoreNames {
		if err := df.labelsByModel(p.FeatureNames); err != nil {
			return err
		}
	}
	ds, err := df.loadFrom(e.stdin)
	if err != nil {
		return err
	}
	names := ds.FeatureNames
	if *ignoreNames {
		names = nil
	}
	z, err := e.applyModel("transform", p, *modelPath, ds, names, df.input, *dims)
	if err != nil {
		return err
	}
	_, k := z.Dims()
	outNames := make([]string, k)
	for j := range outNames {
		outNames[j] = "z" + strconv.Itoa(j+1)
	}
	outDS := &data.Dataset{Name: ds.Name, X: z, Y: ds.Y, FeatureNames: outNames, ClassNames: ds.ClassNames}
	if err := e.ctx.Err(); err != nil {
		return err
	}
	if err := e.writeData(*out, format, outDS); err != nil {
		return err
	}
	if *plotPath == "" {
		return nil
	}
	opt := plot.ScatterOptions{Title: fmt.Sprintf("%s through %s", ds.Name, filepath.Base(*modelPath)), XLabel: "z1", YLabel: "z2"}
	if err := plot.Scatter(*plotPath, z, ds.Y, ds.ClassNames, opt); err != nil {
		return err
	}
	fmt.Fprintf(e.progressLog(), "transform: plot written to %s\n", *plotPath)
	return nil
}

// keepDims returns p truncated to its first dims dimensions (-k; 0: p
// whole), so that the transform computes only those.
func keepDims(p *method.Pipeline, dims int) (*method.Pipeline, error) {
	if dims < 0 {
		return nil, usagef("-k must be ≥ 0 (0: every dimension of the model), got %d", dims)
	}
	if dims > p.Dims() {
		return nil, usagef("-k %d: the model has %d dimensions", dims, p.Dims())
	}
	if dims == 0 || dims == p.Dims() {
		return p, nil
	}
	return p.Truncate(dims)
}

// streamTransform maps the rows of the input through the model chunk by
// chunk (data.Scan, or data.ScanReader on standard input) and writes each
// chunk's coordinates as it goes (data.RowWriter): memory O(chunk·(d + k))
// plus what the model's transform of one chunk takes, whatever the
// input's length. The output is what transform without --stream writes
// for the same rows when the labels are class indices 0..C−1.
//
// With checkNames, the header of a CSV or TSV file (not standard input,
// which cannot be read twice) must give the model's feature names in the
// model's order (method.Pipeline.CheckFeatureNames).
func streamTransform(e *env, df *dataFlags, modelPath, out, format string, dims, chunk int, checkNames bool) error {
	switch {
	case format == "npz" || format == "mat":
		return usagef("--stream writes CSV, TSV or .npy: a .%s file's array header needs the row count before the rows", format)
	case format == "libsvm":
		return usagef("--stream writes CSV, TSV or .npy; write the whole output as LIBSVM without --stream, or convert the streamed CSV")
	case format == "npy" && (out == "-" || strings.HasSuffix(strings.ToLower(out), ".gz")):
		return usagef("--stream writes .npy only to a file, not to standard output or .gz: the header's row count is written last, in place")
	}
	if chunk < 1 {
		return usagef("--chunk must be ≥ 1, got %d", chunk)
	}
	if strings.HasPrefix(df.input, "builtin:") || df.input == "" {
		return usagef("--stream needs a CSV, TSV, LIBSVM or .npy file (-i FILE, or -i - for standard input)")
	}
	p, err := loadModel(modelPath)
	if err != nil {
		return err
	}
	df.libsvmWidth(p)
	if checkNames {
		if err := df.labelsByModel(p.FeatureNames); err != nil {
			return err
		}
	}
	opt, err := df.options()
	if err != nil {
		return err
	}
	if checkNames && df.input != "-" {
		names, err := data.ScanHeader(df.input, opt)
		if err != nil {
			return err
		}
		if err := p.CheckFeatureNames(names); err != nil {
			return fmt.Errorf("input %s, model %s: %w; reorder the columns, or give --ignore-names to take them by position", df.input, modelPath, err)
		}
	}
	var classes []string
	if !opt.NoLabels && opt.Classes == nil {
		opt.Classes = p.ScanClasses()
		classes = opt.Classes
	}
	if p, err = keepDims(p, dims); err != nil {
		return err
	}
	k := p.Dims()
	names := make([]string, k)
	for j := range names {
		names[j] = "z" + strconv.Itoa(j+1)
	}
	prog, rows := e.newProgress("transform"), 0
	return e.writeFile(out, func(w io.Writer) error {
		var rw interface {
			Write(x *mat.Dense, y []int) error
			Flush() error
		}
		var err error
		if format == "npy" {
			rw, err = data.NewNPYWriter(w, out, k) // the embedding only, as without --stream
		} else {
			rw, err = data.NewRowWriter(w, format, df.input, k, names, classes, streamHasLabels(df.input, opt))
		}
		if err != nil {
			return err
		}
		apply := func(x *mat.Dense, y []int) error {
			if _, c := x.Dims(); c != p.Features {
				return fmt.Errorf("input %s has %d features, the model %s was fitted on %d", df.input, c, modelPath, p.Features)
			}
			z, err := p.Transform(x)
			if err != nil {
				return fmt.Errorf("input %s: %w", df.input, err)
			}
			r, _ := z.Dims()
			rows += r
			prog.count(rows, "rows mapped", false)
			return rw.Write(z, y)
		}
		if df.input == "-" {
			if opt.Format == "" {
				opt.Format = "csv"
			}
			err = data.ScanReader(e.stdin, "stdin", opt, chunk, apply, nil)
		} else {
			err = data.Scan(df.input, opt, chunk, apply)
		}
		if err != nil && classes != nil && strings.Contains(err.Error(), "is not one of the given classes") {
			return fmt.Errorf("%w: the classes are the model's, by which transform --stream reads text labels; transform without --stream passes any label through", err)
		}
		if err != nil {
			return err
		}
		prog.count(rows, "rows mapped", true)
		return rw.Flush()
	})
}

// loadModel reads a model file (any version) as a pipeline.
func loadModel(path string) (*method.Pipeline, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if strings.HasSuffix(strings.ToLower(path), ".gz") {
		gz, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("model file %s: %w", path, err)
		}
		return method.LoadPipeline(namedReader{gz, path})
	}
	return method.LoadPipeline(f)
}

// namedReader gives a reader the name LoadPipeline puts in its errors.
type namedReader struct {
	io.Reader
	name string
}

func (r namedReader) Name() string { return r.name }

// applyModel maps the rows of ds through the model p (read from
// modelPath): its saved preprocessing and projection.
// names (nil: not checked) are the input's column names, which must be
// the model's (method.Pipeline.CheckFeatureNames).
func (e *env) applyModel(cmd string, p *method.Pipeline, modelPath string, ds *data.Dataset, names []string, input string, dims int) (*mat.Dense, error) {
	p, err := keepDims(p, dims)
	if err != nil {
		return nil, err
	}
	if _, c := ds.Dims(); c != p.Features {
		return nil, fmt.Errorf("input %s has %d features, the model %s was fitted on %d", input, c, modelPath, p.Features)
	}
	if err := p.CheckFeatureNames(names); err != nil {
		return nil, fmt.Errorf("input %s, model %s: %w; reorder the columns, or give --ignore-names to take them by position", input, modelPath, err)
	}
	z, err := e.transformRows(cmd, p, ds.X)
	if err != nil {
		if e.ctx.Err() != nil {
			return nil, e.ctx.Err()
		}
		return nil, fmt.Errorf("input %s: %w", input, err)
	}
	return z, nil
}

// streamHasLabels reports whether a scan of the input with opt gives
// labels: not with NoLabels, and a .npy array only from its LabelsFile
// (it holds the features alone: transform --stream of one to CSV wrote a
// label column it had no labels for, and failed).
func streamHasLabels(input string, opt data.Options) bool {
	if opt.NoLabels {
		return false
	}
	f, err := data.FormatOf(input, opt.Format)
	return err != nil || f != data.FormatNPY || opt.LabelsFile != ""
}

// transformChunk is the number of rows transform --stream reads at a
// time by default, as transformRows maps them (method.TransformChunk).
const transformChunk = method.TransformChunk

// transformRows maps the rows of x through p, transformChunk rows at a
// time when there are more: with progress on stderr from 2 000 rows on,
// an interruption honoured between chunks, and a kernel model's kernel
// values held for one chunk at a time (a 10 000-row model on 10 000 rows:
// 80 MB instead of 800). Each row's embedding does not depend on the
// others, so the output is the same as in one piece.
func (e *env) transformRows(cmd string, p *method.Pipeline, x *mat.Dense) (*mat.Dense, error) {
	var prog *progress
	if n, _ := x.Dims(); n >= 2000 {
		prog = e.newProgress(cmd)
	}
	return p.TransformChunked(e.ctx, x, method.TransformChunk, func(mapped, n int) { prog.update(mapped, n, "rows mapped") })
}

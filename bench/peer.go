package bench

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/graph"
	"github.com/dimred/dimred/kernel"
	"github.com/dimred/dimred/method"
)

// PeerSpec is the bench/peer.py run a workload is compared with (see
// bench/README.md for the peer's workloads and params).
type PeerSpec struct {
	// Workload is peer.py's workload id and Only its --only filter (the
	// variants whose name contains it; empty: all).
	Workload, Only string
	// Params returns peer.py's --params (nil: {"n": rows}).
	Params func(in *Input) (map[string]any, error)
	// Prepare, if set, replaces Params: it writes extra inputs (the W6
	// graphs) next to dir's x.npy and y.npy and returns the directory to
	// give peer.py and the params.
	Prepare func(in *Input, dir string) (string, map[string]any, error)
	// Agree compares our values with a peer variant's check (nil: none);
	// the text is reported, not judged.
	Agree func(ours *Result, peer map[string]any) string
}

// PeerResult is one peer variant beside our result.
type PeerResult struct {
	Peer    string   `json:"peer"`
	Seconds *float64 `json:"seconds"`
	// PeakBytes is the peer's peak: VmHWM of the child process that ran
	// only this variant (BaselineBytes of it are the interpreter and
	// NumPy alone).
	PeakBytes     *int64         `json:"peak_bytes"`
	BaselineBytes *int64         `json:"baseline_bytes,omitempty"`
	Ratio         *float64       `json:"ratio"` // our seconds / the peer's
	Times         []float64      `json:"times,omitempty"`
	Check         map[string]any `json:"check,omitempty"`
	Params        map[string]any `json:"params,omitempty"`
	Agree         string         `json:"agree,omitempty"`
	Error         string         `json:"error,omitempty"`
}

type peerRunner struct {
	python, script string
	log            io.Writer
}

// PeerPackages is what --peer needs, for error messages.
const PeerPackages = "Debian's python3-numpy, python3-scipy and python3-sklearn (apt-get install python3-numpy python3-scipy python3-sklearn)"

// newPeerRunner checks that the interpreter, the script and the Python
// libraries are there, so that a run with --peer fails at once, with a
// clear message, rather than after the first workload.
func newPeerRunner(python, script string, log io.Writer) (*peerRunner, error) {
	if _, err := exec.LookPath(python); err != nil {
		return nil, fmt.Errorf("--peer runs bench/peer.py with %s, which is not there (%v): give --python the path of a Python 3 with NumPy, SciPy and scikit-learn, e.g. %s", python, err, PeerPackages)
	}
	if _, err := os.Stat(script); err != nil {
		return nil, fmt.Errorf("--peer: peer script %s not found (run from the repository root or give --peer-script): %v", script, err)
	}
	out, err := exec.Command(python, "-c", "import numpy, scipy, sklearn").CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("--peer: %s cannot import NumPy, SciPy and scikit-learn (%s); install %s", python, lastLine(string(out), err), PeerPackages)
	}
	return &peerRunner{python: python, script: script, log: log}, nil
}

func lastLine(s string, err error) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return err.Error()
	}
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s
}

// run runs peer.py for w on the rows of in (the first rows of dir's
// x.npy) with our repeat count.
func (p *peerRunner) run(w *Workload, in *Input, dir string, ours *Result) ([]PeerResult, error) {
	spec := w.Peer
	params := map[string]any{"n": in.N()}
	var err error
	switch {
	case spec.Prepare != nil:
		dir, params, err = spec.Prepare(in, dir)
	case spec.Params != nil:
		params, err = spec.Params(in)
	}
	if err != nil {
		return nil, fmt.Errorf("peer inputs: %w", err)
	}
	pj, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	args := []string{p.script, "--dir", dir, "--workload", spec.Workload, "--repeat", strconv.Itoa(ours.Repeat), "--params", string(pj)}
	if spec.Only != "" {
		args = append(args, "--only", spec.Only)
	}
	fmt.Fprintf(p.log, "bench: %s: peer: %s %s\n", w.Name(), p.python, strings.Join(args, " "))
	cmd := exec.Command(p.python, args...)
	var out, stderr bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = io.MultiWriter(&stderr, p.log)
	err = cmd.Run()
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 1) {
		// 2: a usage or input error, nothing on stdout.
		return nil, fmt.Errorf("%s: %s", p.script, lastLine(stderr.String(), err))
	}
	var list []map[string]any
	if err := json.Unmarshal(out.Bytes(), &list); err != nil {
		return nil, fmt.Errorf("%s: output is not a JSON list: %v", p.script, err)
	}
	var base *int64
	var res []PeerResult
	for _, o := range list {
		if o["workload"] == "meta" {
			if m, ok := o["meta"].(map[string]any); ok {
				if b, ok := num(m["baseline_peak_bytes"]); ok {
					bi := int64(b)
					base = &bi
				}
			}
			continue
		}
		r := PeerResult{Peer: fmt.Sprint(o["peer"]), BaselineBytes: base, Times: floats(o["times"])}
		if s, ok := num(o["seconds"]); ok {
			r.Seconds = &s
			ratio := ours.Seconds / s
			r.Ratio = &ratio
		}
		if b, ok := num(o["peak_bytes"]); ok {
			bi := int64(b)
			r.PeakBytes = &bi
		}
		r.Check, _ = o["check"].(map[string]any)
		r.Params, _ = o["params"].(map[string]any)
		if e, ok := o["error"].(string); ok {
			r.Error = e
		}
		if spec.Agree != nil && r.Check != nil && ours.Error == "" {
			r.Agree = spec.Agree(ours, r.Check)
		}
		res = append(res, r)
	}
	if len(res) == 0 {
		return nil, fmt.Errorf("%s printed no variant for %s", p.script, spec.Workload)
	}
	return res, nil
}

// ---- params of the peers ----

func gammaParams(in *Input) (map[string]any, error) {
	return map[string]any{"n": in.N(), "gamma": in.Gamma}, nil
}

func dimsParams(dims int) func(in *Input) (map[string]any, error) {
	return func(in *Input) (map[string]any, error) {
		return map[string]any{"n": in.N(), "dims": dims}, nil
	}
}

func kpcaParams(in *Input) (map[string]any, error) {
	return map[string]any{"n": in.N(), "dims": 50, "gamma": in.Gamma}, nil
}

// ridgeParams gives the peer of GDA and KQMI our ridge: α (0.1 for both,
// method.DefaultGDAAlpha and DefaultKQMIAlpha) times the mean diagonal of
// K̃, as an absolute eps.
func ridgeParams(in *Input) (map[string]any, error) {
	s, err := centredMeanDiag(kernel.Kernel{Type: "rbf", Gamma: in.Gamma}, in.X)
	if err != nil {
		return nil, err
	}
	if method.DefaultGDAAlpha != method.DefaultKQMIAlpha {
		return nil, errors.New("GDA and KQMI have different default ridges; give each its own eps")
	}
	return map[string]any{"n": in.N(), "gamma": in.Gamma, "eps": method.DefaultGDAAlpha * s}, nil
}

// centredMeanDiag is the mean diagonal of the centred Gram matrix,
// tr(K̃)/n = tr(K)/n − Σᵢⱼ Kᵢⱼ/n² (embed.Prepared.Scale).
func centredMeanDiag(k kernel.Kernel, x *mat.Dense) (float64, error) {
	g, err := k.Gram(x, nil)
	if err != nil {
		return 0, err
	}
	return meanDiagCentred(g), nil
}

func meanDiagCentred(g *mat.Dense) float64 {
	n, _ := g.Dims()
	sum, tr := sumTrace(g)
	return tr/float64(n) - sum/float64(n*n)
}

// sumTrace returns the sum of the entries and the trace of a square matrix.
func sumTrace(g *mat.Dense) (sum, trace float64) {
	n, _ := g.Dims()
	for i := 0; i < n; i++ {
		for _, v := range g.RawRowView(i) {
			sum += v
		}
		trace += g.At(i, i)
	}
	return sum, trace
}

// peerDir makes dir/sub with links to dir's x.npy and y.npy, for a
// variant that needs edge files of its own.
func peerDir(dir, sub string) (string, error) {
	d := filepath.Join(dir, sub)
	if err := os.MkdirAll(d, 0o755); err != nil {
		return "", err
	}
	for _, f := range []string{"x.npy", "y.npy"} {
		link := filepath.Join(d, f)
		_ = os.Remove(link)
		if err := os.Symlink(filepath.Join(dir, f), link); err != nil {
			return "", err
		}
	}
	return d, nil
}

// writeEdges writes the upper triangle of a symmetric graph as peer.py's
// edges file: m×3 rows (i, j, weight), i < j.
func writeEdges(path string, w *graph.CSR) error {
	var rows []float64
	for i := 0; i < w.Size(); i++ {
		cols, vals := w.Row(i)
		for t, j := range cols {
			if j > i {
				rows = append(rows, float64(i), float64(j), vals[t])
			}
		}
	}
	if len(rows) == 0 {
		return fmt.Errorf("%s: the graph has no edge", path)
	}
	return data.WriteNPY(path, mat.NewDense(len(rows)/3, 3, rows))
}

// slppPeerInputs writes SLPP's graph — our kNN graph (k = 10, heat
// weights, same-class edges: graph.SameClassEdges, as method SLPP builds
// it) — and gives the peer a ridge of 1e-6 times the mean diagonal of
// X̄ᵀDX̄ (ours solves on the range of X̄ᵀDX̄ instead; the peer's dense
// eigh needs B positive definite, and MNIST has pixels that are never lit).
func slppPeerInputs(in *Input, dir string) (string, map[string]any, error) {
	d, err := peerDir(dir, "W6-slpp")
	if err != nil {
		return "", nil, err
	}
	g, err := graph.Neighbourhood{K: method.DefaultNeighbours, Supervision: graph.SameClassEdges, Labels: in.Y,
		Weights: graph.Weights{Kind: graph.Heat}}.Build(graph.Euclidean{X: in.X})
	if err != nil {
		return "", nil, err
	}
	if err := writeEdges(filepath.Join(d, "edges_w.npy"), g.W); err != nil {
		return "", nil, err
	}
	n, p := in.X.Dims()
	mu := make([]float64, p)
	for i := 0; i < n; i++ {
		for j, v := range in.X.RawRowView(i) {
			mu[j] += v / float64(n)
		}
	}
	t := 0.0 // tr(X̄ᵀDX̄) = Σᵢ Dᵢᵢ‖x̄ᵢ‖²
	for i, deg := range g.W.Degrees() {
		for j, v := range in.X.RawRowView(i) {
			t += deg * (v - mu[j]) * (v - mu[j])
		}
	}
	return d, map[string]any{"n": n, "dims": 9, "ridge": 1e-6 * t / float64(p), "jitter": 1.0}, nil
}

// kndaPeerInputs writes KNDA's graphs — the within-class kNN graph and
// the between-class ε-graph in the feature space of (xᵀy)², from
// method.NDA.Graphs with the defaults — and gives the peer our ridge
// jitter·s² (s the mean diagonal of K̃), absolute; ours adds it on the
// range of K̃ only (embed.Problem.Jitter).
func kndaPeerInputs(in *Input, dir string) (string, map[string]any, error) {
	d, err := peerDir(dir, "W6-knda")
	if err != nil {
		return "", nil, err
	}
	fs, err := graph.NewFeatureSpace(method.DefaultKNDAKernel(), in.X)
	if err != nil {
		return "", nil, err
	}
	within, between, _, err := method.NDA{}.Graphs(fs, in.Y)
	if err != nil {
		return "", nil, err
	}
	if err := writeEdges(filepath.Join(d, "edges_w.npy"), within.W); err != nil {
		return "", nil, err
	}
	if err := writeEdges(filepath.Join(d, "edges_b.npy"), between.W); err != nil {
		return "", nil, err
	}
	s := meanDiagCentred(fs.K)
	return d, map[string]any{"n": in.N(), "dims": 9, "ridge": 1.0, "jitter": method.DefaultNDAJitter * s * s}, nil
}

// ---- agreement with the peers' checks ----

// agreeValues compares our first eigenvalues (converted by conv, nil: as
// they are) with the peer's check[key].
func agreeValues(key string, conv func(v []float64, r *Result) []float64) func(*Result, map[string]any) string {
	return func(r *Result, peer map[string]any) string {
		ours := floats(r.Values["eigenvalues"])
		if conv != nil {
			ours = conv(ours, r)
		}
		theirs := floats(peer[key])
		k := min(len(ours), len(theirs))
		if k == 0 {
			return ""
		}
		return fmt.Sprintf("%s: largest relative difference %.2g over the first %d", key, relDiff(ours[:k], theirs[:k]), k)
	}
}

// pcaVariance: our PCA values are eigenvalues of X̄ᵀX̄; scikit-learn's
// explained variances divide by n − 1.
func pcaVariance(v []float64, r *Result) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = x / float64(r.N-1)
	}
	return out
}

// ratios: LDA's generalized eigenvalues normalised to sum 1, as
// scikit-learn's explained_variance_ratio_ (all C−1 of them).
func ratios(v []float64, _ *Result) []float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = x / s
	}
	return out
}

func agreeGram(r *Result, peer map[string]any) string {
	var parts []string
	for _, k := range []string{"sum", "trace", "k01"} {
		a, ok1 := num(r.Values[k])
		b, ok2 := num(peer[k])
		if ok1 && ok2 {
			parts = append(parts, fmt.Sprintf("%s rel. diff %.2g", k, math.Abs(a-b)/math.Max(math.Abs(b), 1e-300)))
		}
	}
	return strings.Join(parts, ", ")
}

func agreeKNN(r *Result, peer map[string]any) string {
	var parts []string
	for _, k := range []string{"directed_edges", "undirected_edges"} {
		a, ok1 := num(r.Values[k])
		b, ok2 := num(peer[k])
		if ok1 && ok2 {
			parts = append(parts, fmt.Sprintf("%s %.0f vs %.0f", k, a, b))
		}
	}
	a, ok1 := num(r.Values["distance_sum_directed"])
	b, ok2 := num(peer["distance_sum_directed"])
	if ok1 && ok2 {
		parts = append(parts, fmt.Sprintf("distance sum rel. diff %.2g", math.Abs(a-b)/b))
	}
	return strings.Join(parts, ", ")
}

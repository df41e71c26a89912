package classify

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/internal/par"
	"github.com/dimred/dimred/kernel"
	"github.com/dimred/dimred/param"
)

// SVM kernels (SVM.Kernel).
const (
	SVMLinear = "linear" // k(x, y) = xᵀy
	SVMRBF    = "rbf"    // k(x, y) = exp(−‖x−y‖²/(2σ²)) = exp(−γ‖x−y‖²)
)

// Defaults of SVM's zero fields.
const (
	DefaultSVMC     = 1.0   // LIBSVM's and scikit-learn's default cost
	DefaultSVMTol   = 1e-3  // LIBSVM's -e
	DefaultSVMCache = 100.0 // MB of kernel columns per two-class problem (LIBSVM's -m)
)

// SVM is the C-support vector classifier of LIBSVM (C-SVC): a two-class
// soft-margin SVM
//
//	min_{w,b,ξ} ½‖w‖² + C·Σᵢ ξᵢ  s.t.  yᵢ(wᵀφ(xᵢ) + b) ≥ 1 − ξᵢ, ξᵢ ≥ 0,
//
// solved in its dual by SMO with second-order working-set selection,
// shrinking and a bounded cache of kernel columns (smo.go), and extended
// to C classes one-vs-one: a two-class SVM for every pair of classes s < t
// (labels in increasing order, as scikit-learn's SVC) on the rows of those
// two classes, s as +1. A row gets one vote per pair — s when the decision
// value Σ yᵢαᵢ·k(xᵢ, x) − ρ is > 0, else t — and the class with most votes
// wins; a tie goes to the lowest label (LIBSVM's rule: the first class of
// its label order). No randomness: the same rows give the same model, and
// the pairs, solved in parallel, are independent, so the result does not
// depend on GOMAXPROCS.
//
// Kernels: linear, and RBF in the project's convention
//
//	k(x, y) = exp(−‖x−y‖²/(2σ²)) = exp(−γ·‖x−y‖²),  γ = 1/(2σ²)
//
// so σ = 1 is LIBSVM's -g 0.5 (scikit-learn's gamma=0.5); Gamma sets γ
// directly (LIBSVM's -g). Seed 000's "RBF SVM with C = 100, σ = 1" is
// SVM{Kernel: SVMRBF, C: 100, Sigma: 1}.
//
// The zero value is an RBF SVM with C = 1, the RBF width from the
// training rows (sigma=auto: ½ × the median distance between them, the
// rule of the kernel methods, kernel.Resolve), tol 1e-3, 100 MB of cache
// per pair and shrinking on. On the command line: "svm-rbf",
// "svm-linear", with parameters after a colon (Parse), for example
// "svm-rbf:C=100,sigma=1".
type SVM struct {
	// Kernel is SVMLinear or SVMRBF; "" means SVMRBF.
	Kernel string
	// C > 0 is the cost of a margin violation (0: DefaultSVMC).
	C float64
	// Sigma > 0 is the RBF width; 0 with Gamma unset means sigma=auto,
	// chosen in Fit from the training rows as the kernel methods choose
	// theirs (kernel.AutoWidthFactor × kernel.MedianDistance); ignored
	// when Gamma is set, unused by the linear kernel.
	Sigma float64
	// Gamma > 0, if set, is the RBF γ (exp(−γ‖x−y‖²)) instead of
	// 1/(2σ²).
	Gamma float64
	// Tol > 0 is the stopping tolerance on the maximal KKT violation
	// m(α) − M(α) (0: DefaultSVMTol).
	Tol float64
	// CacheMB > 0 bounds the kernel cache of each two-class problem, in
	// MiB (0: DefaultSVMCache). Pairs solved at the same time each have
	// their own.
	CacheMB float64
	// NoShrinking turns shrinking off (LIBSVM's -h 0).
	NoShrinking bool
}

// Params declares the parameters of the text form (Parse):
// C, sigma and gamma (RBF only), tol, cache and shrinking.
func (c *SVM) Params(s *param.Schema) {
	param.Num(s, &c.C, "C", DefaultSVMC, "cost of a margin violation (LIBSVM's -c)", param.Above(0))
	if c.Kernel != SVMLinear {
		param.Num(s, &c.Sigma, "sigma", 0, "RBF width: exp(−‖x−y‖²/(2σ²)), i.e. LIBSVM's gamma = 1/(2σ²)", param.Above(0),
			param.Auto("½ × the median distance between training rows, as the kernel methods; docs/parameters.md"))
		param.Num(s, &c.Gamma, "gamma", 0, "RBF exp(−gamma·‖x−y‖²), LIBSVM's -g; replaces sigma", param.Above(0), param.Auto("1/(2σ²)"))
		s.Exclusive("sigma", "gamma")
	}
	param.Num(s, &c.Tol, "tol", DefaultSVMTol, "stopping tolerance on the largest KKT violation (LIBSVM's -e)", param.Above(0))
	param.Num(s, &c.CacheMB, "cache", DefaultSVMCache, "MiB of kernel columns per two-class problem (LIBSVM's -m)", param.Above(0))
	param.Enum(s, &c.NoShrinking, "shrinking", "shrinking heuristic (LIBSVM's -h)", param.C("true", false), param.C("false", true))
}

// resolved returns c with its defaults filled in, or an error naming the
// parameter that is out of range.
func (c SVM) resolved() (SVM, error) {
	switch c.Kernel {
	case "":
		c.Kernel = SVMRBF
	case SVMLinear, SVMRBF:
	default:
		return c, fmt.Errorf("classifier svm: kernel %q, want %q or %q", c.Kernel, SVMLinear, SVMRBF)
	}
	if c.Kernel == SVMLinear && (c.Sigma != 0 || c.Gamma != 0) {
		return c, fmt.Errorf("classifier %s: sigma and gamma belong to the RBF kernel", c.base())
	}
	if err := param.Of(c.base(), &c).Resolve(); err != nil {
		return c, err
	}
	return c, nil
}

func (c SVM) base() string {
	if c.Kernel == SVMLinear {
		return "svm-linear"
	}
	return "svm-rbf"
}

// gamma is the RBF γ of a resolved SVM.
func (c SVM) gamma() float64 {
	if c.Gamma > 0 {
		return c.Gamma
	}
	return 1 / (2 * c.Sigma * c.Sigma)
}

// Name returns "svm-rbf" or "svm-linear", followed by the parameters that
// differ from their defaults in Parse's syntax, e.g. "svm-rbf:C=100" or
// "svm-linear:C=100,tol=0.0001"; Parse(Name()) gives c back.
func (c SVM) Name() string {
	r, err := c.resolved()
	if err != nil {
		return c.base()
	}
	var kv []string
	add := func(k string, v, def float64) {
		if v != def {
			kv = append(kv, k+"="+strconv.FormatFloat(v, 'g', -1, 64))
		}
	}
	add("C", r.C, DefaultSVMC)
	if r.Kernel == SVMRBF {
		if r.Gamma > 0 {
			add("gamma", r.Gamma, 0)
		} else {
			add("sigma", r.Sigma, 0)
		}
	}
	add("tol", r.Tol, DefaultSVMTol)
	add("cache", r.CacheMB, DefaultSVMCache)
	if r.NoShrinking {
		kv = append(kv, "shrinking=false")
	}
	if len(kv) == 0 {
		return r.base()
	}
	return r.base() + ":" + strings.Join(kv, ",")
}

// parseSVM reads "svm-rbf" or "svm-linear" with optional parameters
// "key=value,…" (keys case-insensitive).
func parseSVM(kern, params string) (Classifier, error) {
	c := SVM{Kernel: kern}
	name := c.base()
	s := param.Of(name, &c)
	vals := map[string]string{}
	if strings.TrimSpace(params) != "" {
		for _, kv := range strings.Split(params, ",") {
			k, v, ok := strings.Cut(kv, "=")
			k, v = strings.TrimSpace(k), strings.TrimSpace(v)
			if !ok || k == "" || v == "" {
				return nil, fmt.Errorf("classifier %s: parameter %q, want key=value (e.g. %s:C=100)", name, kv, name)
			}
			for _, n := range s.Names() {
				if strings.EqualFold(n, k) {
					k = n
				}
			}
			if _, dup := vals[k]; dup {
				return nil, fmt.Errorf("classifier %s: parameter %s given twice", name, k)
			}
			vals[k] = v
		}
	}
	if err := s.Bind(vals); err != nil {
		if strings.HasPrefix(err.Error(), name+":") {
			return nil, fmt.Errorf("classifier %w", err)
		}
		return nil, fmt.Errorf("classifier %s: %w", name, err)
	}
	return c, nil
}

// Fit trains one two-class SVM per pair of the classes present in y.
func (c SVM) Fit(X *mat.Dense, y []int) (Predictor, error) {
	return c.FitContext(context.Background(), X, y)
}

// FitContext is Fit that stops when ctx is cancelled: no pair starts
// after it, and a running pair's SMO stops within min(l, 1000) iterations
// (l its rows); the error is then ctx's. A fit of a few thousand rows with
// a large C can take minutes (millions of iterations, as in LIBSVM).
func (c SVM) FitContext(ctx context.Context, X *mat.Dense, y []int) (Predictor, error) {
	r, err := c.resolved()
	if err != nil {
		return nil, err
	}
	name := r.Name()
	if err := checkTrain(name, X, y); err != nil {
		return nil, err
	}
	n, d := X.Dims()
	byClass := map[int][]int{}
	for i, v := range y {
		byClass[v] = append(byClass[v], i)
	}
	classes := make([]int, 0, len(byClass))
	for v := range byClass {
		classes = append(classes, v)
	}
	sort.Ints(classes)
	if len(classes) < 2 {
		if n == 0 {
			return nil, fmt.Errorf("classifier %s: no training rows", name)
		}
		return nil, fmt.Errorf("classifier %s: every training row has label %d; an SVM needs at least 2 classes", name, classes[0])
	}
	rbf := r.Kernel == SVMRBF
	gamma := 0.0
	if rbf {
		if r.Gamma == 0 && r.Sigma == 0 {
			k, err := kernel.RBFAuto().Resolve(X)
			if err != nil {
				return nil, fmt.Errorf("classifier %s: sigma=auto: %w", name, err)
			}
			r.Sigma = k.Sigma
		}
		gamma = r.gamma()
	}
	cacheBytes := int64(r.CacheMB * (1 << 20))
	nc := len(classes)
	type pairJob struct{ s, t int }
	var jobs []pairJob
	for s := 0; s < nc; s++ {
		for t := s + 1; t < nc; t++ {
			jobs = append(jobs, pairJob{s, t})
		}
	}
	sols := make([]smoResult, len(jobs))
	par.Tasks(len(jobs), func(p int) {
		if ctx.Err() != nil {
			sols[p].stopped = true
			return
		}
		a, b := byClass[classes[jobs[p].s]], byClass[classes[jobs[p].t]]
		rows := append(append(make([]int, 0, len(a)+len(b)), a...), b...)
		sub := make([]float64, len(rows)*d)
		ys := make([]float64, len(rows))
		for k, i := range rows {
			copy(sub[k*d:(k+1)*d], X.RawRowView(i))
			ys[k] = 1
			if k >= len(a) {
				ys[k] = -1
			}
		}
		sols[p] = solveSMO(ctx, newSVMKernel(sub, d, rbf, gamma), ys, r.C, r.Tol, cacheBytes, !r.NoShrinking)
	})
	for _, sol := range sols {
		if sol.stopped {
			return nil, fmt.Errorf("classifier %s: %w", name, context.Cause(ctx))
		}
	}

	// Support vectors: the rows with a nonzero coefficient in some pair,
	// grouped by class (increasing label), training order within a class.
	isSV := make([]bool, n)
	for p, j := range jobs {
		a, b := byClass[classes[j.s]], byClass[classes[j.t]]
		for k, v := range sols[p].coef {
			if v != 0 {
				if k < len(a) {
					isSV[a[k]] = true
				} else {
					isSV[b[k-len(a)]] = true
				}
			}
		}
	}
	if !slices.Contains(isSV, true) {
		return nil, fmt.Errorf("classifier %s: the solution has no support vector (tol=%g stops SMO before its first step; want tol < 2)", name, r.Tol)
	}
	svIndex := make([]int, n)
	var svRows []int
	for _, cl := range classes {
		for _, i := range byClass[cl] {
			if isSV[i] {
				svIndex[i] = len(svRows)
				svRows = append(svRows, i)
			}
		}
	}
	m := &SVMModel{Classes: classes, Kernel: kernel.Linear(), C: r.C, SV: mat.NewDense(len(svRows), d, nil),
		Support: svRows, Pairs: make([]SVMPair, len(jobs))}
	if rbf {
		m.Kernel = kernel.Kernel{Type: "rbf", Gamma: gamma}
	}
	for k, i := range svRows {
		copy(m.SV.RawRowView(k), X.RawRowView(i))
	}
	for p, j := range jobs {
		a, b := byClass[classes[j.s]], byClass[classes[j.t]]
		pr := SVMPair{First: classes[j.s], Second: classes[j.t], Rho: sols[p].rho, Objective: sols[p].obj, Iterations: sols[p].iter}
		for k, v := range sols[p].coef {
			if v == 0 {
				continue
			}
			row := 0
			if k < len(a) {
				row = a[k]
			} else {
				row = b[k-len(a)]
			}
			pr.SV = append(pr.SV, svIndex[row])
			pr.Coef = append(pr.Coef, v)
		}
		m.Pairs[p] = pr
	}
	return m, nil
}

// SVMModel is a fitted SVM. It is safe for concurrent use.
type SVMModel struct {
	// Classes are the labels present in training, increasing.
	Classes []int
	// Kernel is the kernel of the decision functions (RBF with its γ),
	// C the cost the pairs were solved with.
	Kernel kernel.Kernel
	C      float64
	// SV holds the support vectors (rows with a nonzero coefficient in
	// some pair), grouped by class in Classes order; Support[k] is the
	// training row of SV row k. SV is nil when there are none.
	SV      *mat.Dense
	Support []int
	// Pairs are the two-class machines, (Classes[0], Classes[1]),
	// (Classes[0], Classes[2]), …, (Classes[C−2], Classes[C−1]).
	Pairs []SVMPair
}

// SVMPair is the two-class machine of classes First (+1) and Second (−1):
// f(x) = Σₖ Coef[k]·k(SV[k], x) − Rho, Coef[k] = yₖαₖ, over the rows SV[k]
// of SVMModel.SV; f(x) > 0 votes for First.
type SVMPair struct {
	First, Second int
	SV            []int
	Coef          []float64
	Rho           float64
	// Objective is the dual objective ½αᵀQα − eᵀα at the solution and
	// Iterations the SMO iterations.
	Objective  float64
	Iterations int
}

// Decision returns the decision values of the rows of X, one column per
// pair in the order of Pairs (positive: the pair's First class). This is
// scikit-learn's SVC.decision_function with decision_function_shape="ovo"
// for three or more classes; for two, scikit-learn's sign is the opposite.
func (m *SVMModel) Decision(X *mat.Dense) (*mat.Dense, error) {
	n, err := m.check(X)
	if err != nil {
		return nil, err
	}
	out := mat.NewDense(n, len(m.Pairs), nil)
	m.blocks(X, func(start int, k *mat.Dense) {
		r, _ := k.Dims()
		for i := 0; i < r; i++ {
			m.decide(k.RawRowView(i), out.RawRowView(start+i))
		}
	})
	return out, nil
}

// Predict returns the one-vs-one vote of each row of X.
func (m *SVMModel) Predict(X *mat.Dense) ([]int, error) {
	n, err := m.check(X)
	if err != nil {
		return nil, err
	}
	out := make([]int, n)
	nc := len(m.Classes)
	dec := make([]float64, len(m.Pairs))
	votes := make([]int, nc)
	m.blocks(X, func(start int, k *mat.Dense) {
		r, _ := k.Dims()
		for i := 0; i < r; i++ {
			m.decide(k.RawRowView(i), dec)
			clear(votes)
			p := 0
			for s := 0; s < nc; s++ {
				for t := s + 1; t < nc; t++ {
					if dec[p] > 0 {
						votes[s]++
					} else {
						votes[t]++
					}
					p++
				}
			}
			best := 0
			for c := 1; c < nc; c++ {
				if votes[c] > votes[best] {
					best = c
				}
			}
			out[start+i] = m.Classes[best]
		}
	})
	return out, nil
}

// KKTViolation returns the largest violation m(α) − M(α) of the
// optimality conditions of the pairs' duals on their training rows X, y
// (the rows Fit was given), with
//
//	m(α) = max_{t ∈ I_up} −yₜGₜ,  M(α) = max_{t ∈ I_low} yₜGₜ,  G = Qα − e,
//
// recomputed in float64 from a dense Gram matrix (the solver's float32
// cache not involved). The solver stops when it is below tol, so the
// value exceeds tol only by that cache's rounding. It also checks the
// box 0 ≤ αₜ ≤ C and yᵀα = 0 (to 1e-9·C) and returns an error if they fail.
func (m *SVMModel) KKTViolation(X *mat.Dense, y []int) (float64, error) {
	if _, err := m.check(X); err != nil {
		return 0, err
	}
	n, _ := X.Dims()
	if len(y) != n {
		return 0, fmt.Errorf("classifier %s: %d labels for %d rows", m.name(), len(y), n)
	}
	g, err := m.Kernel.Gram(X, nil)
	if err != nil {
		return 0, err
	}
	// Training row of each support vector, and yα of each row in a pair.
	rowOf := map[int]int{}
	for k, i := range m.Support {
		if i < 0 || i >= n {
			return 0, fmt.Errorf("classifier %s: support vector %d is row %d of %d", m.name(), k, i, n)
		}
		rowOf[k] = i
	}
	ya := make([]float64, n)
	worst := 0.0
	for _, p := range m.Pairs {
		clear(ya)
		sum := 0.0
		for k, sv := range p.SV {
			ya[rowOf[sv]] = p.Coef[k]
			sum += p.Coef[k]
		}
		if math.Abs(sum) > 1e-9*m.C {
			return 0, fmt.Errorf("classifier %s: pair (%d, %d): yᵀα = %g, want 0", m.name(), p.First, p.Second, sum)
		}
		up, low := math.Inf(-1), math.Inf(-1)
		for i := 0; i < n; i++ {
			var yi float64
			switch y[i] {
			case p.First:
				yi = 1
			case p.Second:
				yi = -1
			default:
				continue
			}
			a := yi * ya[i]
			if a < 0 || a > m.C {
				return 0, fmt.Errorf("classifier %s: pair (%d, %d): α = %g outside [0, C = %g] at row %d", m.name(), p.First, p.Second, a, m.C, i)
			}
			yg := -yi // yᵢGᵢ = Σⱼ yⱼαⱼ·Kᵢⱼ − yᵢ
			row := g.RawRowView(i)
			for _, sv := range p.SV {
				j := rowOf[sv]
				yg += ya[j] * row[j]
			}
			if (yi > 0 && a < m.C) || (yi < 0 && a > 0) {
				up = math.Max(up, -yg)
			}
			if (yi > 0 && a > 0) || (yi < 0 && a < m.C) {
				low = math.Max(low, yg)
			}
		}
		worst = math.Max(worst, up+low)
	}
	return worst, nil
}

func (m *SVMModel) name() string {
	if m.Kernel.Type == "rbf" {
		return "svm-rbf"
	}
	return "svm-linear"
}

// check validates the model and X; it returns the rows of X.
func (m *SVMModel) check(X *mat.Dense) (int, error) {
	name := m.name()
	if len(m.Classes) < 2 || len(m.Pairs) != len(m.Classes)*(len(m.Classes)-1)/2 {
		return 0, fmt.Errorf("classifier %s: model has %d classes and %d pairs", name, len(m.Classes), len(m.Pairs))
	}
	if m.SV == nil {
		return 0, fmt.Errorf("classifier %s: model has no support vectors", name)
	}
	nsv, d := m.SV.Dims()
	for _, p := range m.Pairs {
		if len(p.SV) != len(p.Coef) {
			return 0, fmt.Errorf("classifier %s: pair (%d, %d) has %d coefficients for %d support vectors", name, p.First, p.Second, len(p.Coef), len(p.SV))
		}
		for _, k := range p.SV {
			if k < 0 || k >= nsv {
				return 0, fmt.Errorf("classifier %s: pair (%d, %d) names support vector %d of %d", name, p.First, p.Second, k, nsv)
			}
		}
	}
	if X == nil {
		return 0, fmt.Errorf("classifier %s: input is nil", name)
	}
	n, cols := X.Dims()
	if cols != d {
		return 0, fmt.Errorf("classifier %s: input has %d columns, trained on %d", name, cols, d)
	}
	return n, checkTest(name, X, cols)
}

// blocks calls fn with consecutive blocks of rows of X and their kernel
// values against every support vector.
func (m *SVMModel) blocks(X *mat.Dense, fn func(start int, k *mat.Dense)) {
	n, d := X.Dims()
	nsv, _ := m.SV.Dims()
	bs := max(1, min(n, blockElems/nsv))
	for start := 0; start < n; start += bs {
		end := min(start+bs, n)
		k, err := m.Kernel.Gram(X.Slice(start, end, 0, d).(*mat.Dense), m.SV)
		if err != nil {
			panic("classify: svm kernel: " + err.Error()) // validated at Fit
		}
		fn(start, k)
	}
}

// decide writes the decision value of every pair for a row whose kernel
// values against the support vectors are kv.
func (m *SVMModel) decide(kv, dec []float64) {
	for p := range m.Pairs {
		pr := &m.Pairs[p]
		s := 0.0
		for k, sv := range pr.SV {
			s += pr.Coef[k] * kv[sv]
		}
		dec[p] = s - pr.Rho
	}
}

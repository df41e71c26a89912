package cli

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"

	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/embed"
	"github.com/dimred/dimred/evaluate"
	"github.com/dimred/dimred/method"
)

// fitMemory estimates the peak bytes of one fit of the method info with
// parameters kv on n rows of d features, from the sizes of what the
// engine holds at once: kernel methods in the exact space the n×n Gram
// matrix, its centred copy and the solver's factor (kernelCopies of n²
// floats); Nyström features n×m and m×m blocks; linear and graph
// methods the rows, their centred copy, d×d scatter matrices and a kNN
// graph. The evaluation's own copies of the split (train and test, raw
// and preprocessed) are added. docs/performance.md compares it with the
// measured peak. dims is the number of output dimensions asked for (0:
// the method's default), which matters to KPCA alone (kpcaFullCopies).
func fitMemory(info method.Info, kv map[string]string, n, d, dims int) int64 {
	const f = 8 // bytes per float64
	nn, dd := int64(n), int64(d)
	split := 4 * nn * dd * f
	kernelMethod := false
	for _, p := range info.Params {
		kernelMethod = kernelMethod || p.Name == "kernel" || p.Name == "kernels"
	}
	switch {
	case kernelMethod && kv["space"] == method.SpaceNystrom:
		m := int64(embed.DefaultLandmarks)
		if v, err := strconv.Atoi(kv["landmarks"]); err == nil && v > 0 {
			m = int64(v)
		}
		m = min(m, nn)
		graphs := denseMatrices[info.Name] * nn * nn * f
		if info.Name == "mklsr" {
			// Every base kernel's features and their kernel values with
			// the landmarks, and the combined copy: 5.4·M·n·m floats
			// measured (1.39 GB at n = 10 000, m = 1 000, M = 3).
			return split + (6*baseKernels(kv)*nn*m+3*m*m)*f
		}
		return split + (3*nn*m+3*m*m)*f + graphs
	case info.Name == "mklsr":
		// M centred base Gram matrices besides the engine's copies: 7.4·n²
		// measured for M = 3 (5.9 GB at n = 10 000).
		return split + (baseKernels(kv)+5)*nn*nn*f
	case kernelMethod:
		copies, ok := kernelCopies[info.Name]
		if !ok {
			copies = defaultKernelCopies
		}
		if info.Name == "kpca" && (dims <= 0 || dims > n/4) {
			copies = kpcaFullCopies
		}
		if kv["solver"] == "regression" {
			// Spectral regression instead of the dense n×n pencil: K̃,
			// its factor and the responses (KMFA -k 20 on 10 000 MNIST
			// rows peaked at 2.2 GB, 2.75·n², 2026-11-25).
			copies = min(copies, regressionCopies)
		}
		return split + copies*nn*nn*f
	}
	return split + (3*nn*dd+4*dd*dd+nn*int64(2*method.DefaultNeighbours+2)+denseMatrices[info.Name]*nn*nn)*f
}

// denseMatrices is the number of n×n matrices a method holds at its peak
// besides the rows: AQMIDA's pairwise coefficients (2: 1.73 GB for a
// whole fit on 10 000 MNIST rows), and the dense graphs of the
// variational family (the weights, their Laplacian, and in the EM the
// products of a level-shift search), in the input space and
// on Nyström features, set from the peaks of whole fits on MNIST rows
// (docs/performance.md, Memory; the rest of fitMemory's estimate added):
// at 3 000 rows MIE₀ 269 MB, BERE₀ 269, MIE 366 (10 dimensions), BERE
// 485 (20 dimensions, with level-shift searches), and with 500 Nyström
// landmarks kMIE₀ 275, kMIE 369 and kBERE 513 (10 dimensions, with
// level-shift searches); MIE 2.8 GB
// at 10 000 rows (10 dimensions). At the full dimension the EM stops at
// once and the EM members need what the initial ones do. Their exact
// kernel forms are kernelCopies.
var denseMatrices = map[string]int64{"mie0": 3, "bere0": 3, "mie": 4, "bere": 6, "kmie0": 3, "kbere0": 3, "kmie": 4, "kbere": 6, "aqmida": 2}

// kernelCopies is the number of n×n matrices a kernel fit holds at its
// peak (Gram matrix, centred copy, factor or eigen-solver workspace),
// rounded up from the peaks measured in docs/performance.md (Memory):
// KPCA 1.1·n², the dense dual route of the LPP/MFA family 22.6·n²
// (SKLPP on 3 000 MNIST rows; 12.4·n² in an earlier run at 2 000: its
// live heap is ≈ 12·n², and the collector lets the heap double), KNDA
// 8.3·n²; the regression route (GDA, KQMI, KSR, CKFD) 2.1·n², and
// 3.2·n² for a whole eval process of GDA on 9000 MNIST training rows;
// the exact kernel forms of the variational family at the full
// dimension on 3 000 MNIST rows (K̃, its eigendecomposition and feature
// coordinates, the dense graphs and the M-step's n-dimensional dense
// problem; resident peaks vary by ±15 % from run to run with the
// collector's timing): kMIE₀ 31.0·n², kMIE 23.0, kBERE₀ 27.7, kBERE 24.1.
// (MKL-SR, with one centred Gram matrix per base kernel, is fitMemory's
// own case.)
var kernelCopies = map[string]int64{"kpca": 2, "klpp": 22, "sklpp": 22, "kmfa": 22, "knda": 9, "kmie0": 33, "kmie": 30, "kbere0": 30, "kbere": 33}

// regressionCopies is kernelCopies of a kernel method with
// solver=regression.
const regressionCopies = 3

// kpcaFullCopies is kernelCopies of KPCA at more than n/4 dimensions,
// where it takes the full dense eigendecomposition; its default (-k 0)
// keeps all n − 1 directions of non-zero variance. A whole dimred fit on
// 10 000 MNIST rows at 9 999 dimensions peaked at 6.90-7.01 GB (8.8·n²:
// K̃, the decomposition's workspace and vectors, the model's
// coefficients; 8.53 GB while fit still computed the training embedding
// and encoded the model file in one buffer, 2026-11-24).
const kpcaFullCopies = 10

// baseKernels is the number of MKL-SR's base kernels in its parameters
// (-p kernels=a;b;c), or of its default list.
func baseKernels(kv map[string]string) int64 {
	n := int64(0)
	for _, k := range strings.Split(kv["kernels"], ";") {
		if strings.TrimSpace(k) != "" {
			n++
		}
	}
	if n == 0 {
		n = int64(len(method.DefaultMKLKernels()))
	}
	return n
}

// defaultKernelCopies is kernelCopies of the other kernel methods.
const defaultKernelCopies = 4

// availableMemory returns the bytes the system says are available
// (systemMemory); a variable for the tests of the refusals above it.
var availableMemory = systemMemory

// systemMemory returns the bytes the system says are available
// (MemAvailable of /proc/meminfo, capped by a cgroup v2 memory.max), or
// 0 when it cannot tell.
func systemMemory() int64 {
	var avail int64
	if f, err := os.Open("/proc/meminfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "MemAvailable:"); ok {
				kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
				avail = kb << 10
			}
		}
		f.Close()
	}
	if b, err := os.ReadFile("/sys/fs/cgroup/memory.max"); err == nil {
		if lim, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && lim > 0 && (avail == 0 || lim < avail) {
			avail = lim
		}
	}
	return avail
}

// evalWorkers chooses how many fits eval runs at once: jobs (0: one per
// CPU), at most the number of fits, and no more than the estimated
// memory of the largest fit allows in 80 % of the available memory
// (never fewer than one). A largest fit estimated above all the available
// memory is refused unless force (memoryRefusal), then run one at a time
// with a warning.
func evalWorkers(prog *progress, stderr io.Writer, jobs int, ds *data.Dataset, p *evaluate.Protocol, kvs []map[string]string, perSplit int, force bool) (int, error) {
	n, d := ds.Dims()
	train := n
	if p.PerClass > 0 {
		train = min(n, p.PerClass*ds.NumClasses())
	} else {
		k := p.Folds
		if k == 0 {
			k = evaluate.DefaultFolds
		}
		train = n - n/k
	}
	var worst int64
	var worstInfo method.Info
	var worstKV map[string]string
	for i, nm := range p.Methods {
		info, err := method.Lookup(nm.Name)
		if err != nil {
			return 0, err
		}
		if m := fitMemory(info, kvs[i], train, d, slices.Max(append([]int{p.MaxDims}, p.Dims...))); m > worst {
			worst, worstInfo, worstKV = m, info, kvs[i]
		}
	}
	fits := max(p.Repeats, 1) * perSplit
	if p.PerClass == 0 {
		k := p.Folds
		if k == 0 {
			k = evaluate.DefaultFolds
		}
		fits *= k
	}
	workers := jobs
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, fits)
	avail := availableMemory()
	if avail > 0 {
		fit := max(1, int(avail*8/10/worst))
		if fit < workers {
			workers = fit
		}
		if err := memoryRefusal(worstInfo, worstKV, train, worst, avail, force); err != nil {
			return 0, fmt.Errorf("one fit: %w (one fit at a time)", err)
		}
		switch {
		case worst > avail:
			fmt.Fprintf(stderr, "dimred eval: warning: one fit on %d training rows may need about %s, more than the %s available; running one at a time\n", train, gib(worst), gib(avail))
		}
	}
	collectSooner(worst) // per fit: many small fits at once stay at 100 %
	msg := fmt.Sprintf("%d fits on %d training rows × %d features, %d at a time; about %s per fit (estimate)", fits, train, d, workers, gib(worst))
	if avail > 0 {
		msg += ", " + gib(avail) + " available"
	}
	var refit []string
	for _, nm := range p.Methods {
		if method.RefitsPerDimension(nm.Method) {
			refit = append(refit, nm.Name)
		}
	}
	if len(refit) > 0 {
		sweep := "every dimension; --dims (e.g. --dims 1-10,20,50) fits only those listed"
		switch {
		case len(p.Dims) > 0:
			sweep = fmt.Sprintf("up to %d (--dims %s)", len(p.Dims), evaluate.DimsText(p.Dims))
		case p.MaxDims > 10:
			sweep = fmt.Sprintf("up to %d; --dims (e.g. --dims 1-10,20,50) fits only those listed", p.MaxDims)
		case p.MaxDims > 0:
			sweep = fmt.Sprintf("up to %d", p.MaxDims)
		}
		verb, its := "is", "its"
		if len(refit) > 1 {
			verb, its = "are", "their"
		}
		msg += fmt.Sprintf("; %s %s fitted once per dimension swept: each of %s fits counted here is %s", strings.Join(refit, ", "), verb, its, sweep)
	}
	prog.note("%s", msg)
	return workers, nil
}

func gib(b int64) string {
	if b < 1<<20 {
		return "1 MB" // "about 0 MB" read as a failed estimate
	}
	if b < 1<<30 {
		return fmt.Sprintf("%.0f MB", float64(b)/(1<<20))
	}
	return fmt.Sprintf("%.1f GB", float64(b)/(1<<30))
}

// LimitMemory sets the Go runtime's soft memory limit to 90 % of the
// memory available when the command starts, unless GOMEMLIMIT is set (the
// user's choice stands) or the available memory is unknown, and returns
// the limit set (0: none). Without a limit the collector lets the heap
// grow to twice the live data (GOGC=100) before it runs, so a fit whose
// live matrices fit in memory could still be killed; near the limit it
// collects sooner instead. Measured: kMIE₀ on 3 000 MNIST rows peaks at
// 1.92 GB resident without a limit, 1.18 GB under GOMEMLIMIT=900MiB
// (61 s against 66 s).
func LimitMemory() int64 {
	limit := memoryLimit(os.Getenv("GOMEMLIMIT"), availableMemory())
	if limit > 0 {
		debug.SetMemoryLimit(limit)
	}
	return limit
}

// largeFit is the estimated memory of a fit (fitMemory) from which
// collectSooner lowers the collector's growth target to largeFitGCPercent.
const (
	largeFit          = 512 << 20
	largeFitGCPercent = 25
)

// collectSooner sets the collector's growth target (GOGC) to 25 % when a
// fit's estimated memory est is at least largeFit, unless GOGC is set
// (the user's choice stands), and reports whether it did. With the
// default 100 % the heap grows to twice the live data between
// collections, and a large fit's resident peak is twice what it holds.
// Its heap is mostly float64 matrices, which hold no pointers and which
// the collector does not scan, so collecting four times as often costs
// little there: KNDA on 5 000 MNIST rows 3.14 → 1.93 GB resident, 42.1 →
// 40.7 s. On small fits and while files are parsed (many short-lived
// strings) the same setting cost 20-50 % of the time (eval of wine 0.30
// → 0.45 s, reading and fitting LDA on the 10 000 MNIST rows 1.25 → 1.65
// s), hence the threshold, and the call after the data are read.
// docs/performance.md has the measurements.
func collectSooner(est int64) bool {
	if est < largeFit || os.Getenv("GOGC") != "" {
		return false
	}
	debug.SetGCPercent(largeFitGCPercent)
	return true
}

// memoryLimit is the limit LimitMemory sets for the GOMEMLIMIT value env
// and avail bytes available (0: unknown).
func memoryLimit(env string, avail int64) int64 {
	if env != "" || avail <= 0 {
		return 0
	}
	return avail / 10 * 9
}

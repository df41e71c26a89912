package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/dimred/dimred/internal/testdata"
	"github.com/dimred/dimred/method"
)

// eval reports progress on a non-terminal stderr as timestamped lines (the
// first fit, the last, and the plan), and --quiet silences them.
func TestEvalProgressLines(t *testing.T) {
	st, out, errs := run(t, "eval", "-i", "builtin:iris", "-m", "lda,gda", "--cv", "3")
	if st != 0 {
		t.Fatalf("status %d: %s", st, errs)
	}
	stamp := `\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ eval: `
	for _, want := range []string{stamp + `6 fits on 100 training rows × 4 features, \d+ at a time; about .* per fit`, stamp + `1/6 fits, .* elapsed, ETA `, stamp + `6/6 fits, .* elapsed\n`} {
		if !regexp.MustCompile(want).MatchString(errs) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	if !strings.Contains(out, "gda") {
		t.Errorf("no report on stdout:\n%s", out)
	}
	st, _, errs = run(t, "eval", "-i", "builtin:iris", "-m", "lda", "--cv", "3", "--quiet")
	if st != 0 || errs != "" {
		t.Errorf("--quiet: status %d, stderr %q", st, errs)
	}
}

// The terminal form is a bar redrawn in place, with an ETA.
func TestProgressBar(t *testing.T) {
	var b bytes.Buffer
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p := &progress{w: &b, tty: true, label: "eval", start: clock, now: func() time.Time { clock = clock.Add(10 * time.Second); return clock }}
	p.update(1, 4, "fits")
	p.update(4, 4, "fits")
	want := "\reval [######..................] 1/4 fits, 10s elapsed, ETA 30s\x1b[K" +
		"\reval [########################] 4/4 fits, 20s elapsed\x1b[K\n"
	if b.String() != want {
		t.Errorf("bar %q, want %q", b.String(), want)
	}
	// Lines to a log are spaced by progressEvery.
	b.Reset()
	p.tty, p.start, p.last = false, clock, time.Time{}
	for i := 1; i <= 4; i++ {
		p.update(i, 4, "fits") // 10 s apart: every one is written
	}
	if n := strings.Count(b.String(), "\n"); n != 4 {
		t.Errorf("%d lines, want 4:\n%s", n, b.String())
	}
}

// An interrupted eval (Ctrl-C cancels the context) exits 130 and prints
// no report.
func TestEvalInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	st := doContext(ctx, []string{"eval", "-i", "builtin:iris", "-m", "gda", "--cv", "3"}, strings.NewReader(""), &out, &errb)
	if st != 130 || out.Len() != 0 || !strings.Contains(errb.String(), "interrupted; no output written") {
		t.Errorf("status %d, stdout %q, stderr %q", st, out.String(), errb.String())
	}
}

// -j bounds the fits run at once; the memory estimate of a kernel fit
// grows as n².
func TestEvalJobs(t *testing.T) {
	st, _, errs := run(t, "eval", "-i", "builtin:iris", "-m", "lda", "--cv", "3", "-j", "1")
	if st != 0 || !strings.Contains(errs, "1 at a time") {
		t.Errorf("-j 1: status %d, stderr %s", st, errs)
	}
	if st, _, errs := run(t, "eval", "-i", "builtin:iris", "-m", "lda", "-j", "-1"); st != 2 {
		t.Errorf("-j -1: status %d, %s", st, errs)
	}
	gda, _ := method.Lookup("gda")
	a, b := fitMemory(gda, nil, 1000, 10, 0), fitMemory(gda, nil, 2000, 10, 0)
	if a < defaultKernelCopies*8*1000*1000 || b < 4*a-4*8*2000*10*4 {
		t.Errorf("kernel estimate %d at n = 1000, %d at n = 2000", a, b)
	}
	if ny := fitMemory(gda, map[string]string{"space": "nystrom", "landmarks": "100"}, 10000, 10, 0); ny >= fitMemory(gda, nil, 10000, 10, 0)/10 {
		t.Errorf("Nyström estimate %d not far below the exact one", ny)
	}
	// MKL-SR at 10 000 MNIST rows (784 features), 3 base kernels: peaks
	// measured 5.9 GB exact and 1.39 GB with 1 000 landmarks (fit alone,
	// docs/spectral-regression.md); the estimates must not fall below
	// them, nor exceed them by half, and grow with the number of kernels.
	mk, _ := method.Lookup("mklsr")
	for _, c := range []struct {
		kv       map[string]string
		measured float64
	}{{nil, 5.9e9}, {map[string]string{"space": "nystrom"}, 1.39e9}} {
		if e := float64(fitMemory(mk, c.kv, 10000, 784, 0)); e < c.measured || e > 1.5*c.measured {
			t.Errorf("MKL-SR %v: estimate %.3g bytes against %.3g measured", c.kv, e, c.measured)
		}
	}
	// AQMIDA, SKLPP and the variational family: peaks of whole fits on MNIST rows (784
	// features; docs/performance.md), in KiB as /usr/bin/time reports
	// them, n rows, exact or with 500 Nyström landmarks. The EM members of
	// the linear and Nyström forms at 10 or 20 dimensions, where the EM
	// runs (at the full dimension it stops at once) — BERE's with level
	// shifts, their worst case; the exact kernel forms at the full
	// dimension, their largest M-step.
	const kib = 1024
	ny500 := map[string]string{"space": "nystrom", "landmarks": "500"}
	for _, c := range []struct {
		name     string
		kv       map[string]string
		n        int
		measured float64
	}{
		{"mie", nil, 10000, 2757728 * kib}, {"mie", nil, 3000, 357556 * kib}, {"mie0", nil, 3000, 263108 * kib},
		{"bere", nil, 3000, 473500 * kib}, {"bere0", nil, 3000, 262580 * kib},
		{"kmie0", nil, 3000, 2182372 * kib}, {"kmie", nil, 3000, 1618392 * kib}, {"kbere0", nil, 3000, 1944228 * kib}, {"kbere", nil, 3000, 1695916 * kib},
		{"aqmida", nil, 10000, 1685424 * kib}, {"sklpp", nil, 3000, 1592268 * kib},
		{"kpca", nil, 10000, 7007360 * kib}, // the default -k 0: 9 999 dimensions, the full eigendecomposition, a 1.15 GB model file
		{"kmie0", ny500, 3000, 268628 * kib}, {"kmie", ny500, 3000, 360128 * kib}, {"kbere", ny500, 3000, 500572 * kib},
	} {
		info, err := method.Lookup(c.name)
		if err != nil {
			t.Fatal(err)
		}
		if e := float64(fitMemory(info, c.kv, c.n, 784, 0)); e < c.measured || e > 1.5*c.measured {
			t.Errorf("%s %v at %d rows: estimate %.3g bytes against %.3g measured", c.name, c.kv, c.n, e, c.measured)
		}
	}
	kpca, err := method.Lookup("kpca")
	if err != nil {
		t.Fatal(err)
	}
	if few, all := fitMemory(kpca, nil, 10000, 784, 10), fitMemory(kpca, nil, 10000, 784, 0); few*4 > all {
		t.Errorf("KPCA estimate at 10 dimensions %d, not far below the %d of all", few, all)
	}
	if two, three := fitMemory(mk, map[string]string{"kernels": "linear;rbf"}, 10000, 784, 0), fitMemory(mk, nil, 10000, 784, 0); two >= three {
		t.Errorf("MKL-SR estimate with 2 kernels %d, with 3 %d", two, three)
	}
}

// Help is on stdout with a description and examples; --version prints
// the version; user-facing text names papers by author and year.
func TestHelpAndVersion(t *testing.T) {
	for _, c := range commands() {
		st, out, errs := run(t, c.name, "-h")
		if c.name == "reproduce" {
			continue // its subcommands have their own flags
		}
		if st != 0 || errs != "" || !strings.Contains(out, "usage: dimred "+c.name) || !strings.Contains(out, "flags:") || !strings.Contains(strings.ToLower(out), "example") {
			t.Errorf("%s -h: status %d, stderr %q, stdout:\n%s", c.name, st, errs, out)
		}
		if regexp.MustCompile(`seed 00\d`).MatchString(out) {
			t.Errorf("%s -h names a seed file:\n%s", c.name, out)
		}
	}
	st, out, _ := run(t, "--version")
	if st != 0 || !strings.HasPrefix(out, "dimred ") {
		t.Errorf("--version: %d %q", st, out)
	}
	_, out, _ = run(t, "methods")
	if strings.Contains(out, "seed 00") || !strings.Contains(out, "Bouzas et al. 2015") {
		t.Errorf("methods names seed files:\n%s", out)
	}
	if got := paperNames("seed 000 eq. 3; baseline in seeds 000, 004; seed 001 (Liu & Gillies 2016); seeds 000-004; seed 003 (Table 1)"); got != "Bouzas et al. 2015 eq. 3; baseline in Bouzas et al. 2015, Zhao 2014; Liu & Gillies 2016; the five papers; Yang et al. 2009 (Table 1)" {
		t.Errorf("paperNames: %q", got)
	}
	// Flags may follow a stray argument, which is reported.
	if st, _, errs := run(t, "datasets", "extra", "--quiet"); st != 2 || !strings.Contains(errs, `unexpected argument "extra"`) {
		t.Errorf("stray argument: %d %q", st, errs)
	}
}

// The default RBF width works on data whose rows are far from one unit
// apart: GDA on the ORL faces (1024 pixels scaled to [−1, 1], median
// distance ≈ 17) with sigma=auto is far under chance (2.2 % measured in
// docs/parameters.md), where the papers' σ = 1 was near chance (68 %).
func TestEvalDefaultSigmaOnFaces(t *testing.T) {
	orl := testdata.Path(t, "data/faces/orl_32x32.csv.gz")
	minErr := func(extra ...string) float64 {
		args := append([]string{"eval", "-i", orl, "-m", "gda", "-c", "ncc", "--cv", "5", "--format", "json", "--quiet"}, extra...)
		st, out, errs := run(t, args...)
		if st != 0 {
			t.Fatalf("status %d: %s", st, errs)
		}
		var rep struct {
			Results []struct {
				MinError float64 `json:"min_error"`
			}
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Results) != 1 {
			t.Fatalf("report %q: %v", out, err)
		}
		return rep.Results[0].MinError
	}
	if e := minErr(); e > 0.06 {
		t.Errorf("sigma=auto: min error %.3f, want ≤ 0.06", e)
	}
	if e := minErr("-p", "sigma=1"); e < 0.5 {
		t.Errorf("sigma=1: min error %.3f; the comparison assumes σ = 1 fails on ORL", e)
	}
}

// fit warns when the estimated memory of a fit passes 80 % of what is
// available, pointing kernel methods outside the Nyström space to it.
func TestFitMemoryWarning(t *testing.T) {
	kmie0, _ := method.Lookup("kmie0")
	lda, _ := method.Lookup("lda")
	est := fitMemory(kmie0, nil, 10000, 784, 0)
	if w := memoryWarning(kmie0, nil, 10000, est, est); !strings.Contains(w, "kmie0 on 10000 rows may need about") || !strings.Contains(w, "space=nystrom") {
		t.Errorf("kmie0 exact: warning %q", w)
	}
	if w := memoryWarning(kmie0, map[string]string{"space": "nystrom"}, 10000, est, est); w == "" || strings.Contains(w, "space=nystrom") {
		t.Errorf("kmie0 Nyström: warning %q; want one without the Nyström hint", w)
	}
	if w := memoryWarning(lda, nil, 10000, est, est); w == "" || strings.Contains(w, "space=nystrom") {
		t.Errorf("lda: warning %q; want one without the Nyström hint", w)
	}
	for _, avail := range []int64{0, 2 * est} {
		if w := memoryWarning(kmie0, nil, 10000, est, avail); w != "" {
			t.Errorf("available %d: warning %q; want none", avail, w)
		}
	}
}

// The soft memory limit is 90 % of the available memory, unless
// GOMEMLIMIT is set or the available memory is unknown.
func TestMemoryLimit(t *testing.T) {
	for _, c := range []struct {
		env   string
		avail int64
		want  int64
	}{{"", 10 << 30, 10 << 30 / 10 * 9}, {"4GiB", 10 << 30, 0}, {"off", 10 << 30, 0}, {"", 0, 0}} {
		if got := memoryLimit(c.env, c.avail); got != c.want {
			t.Errorf("memoryLimit(%q, %d) = %d, want %d", c.env, c.avail, got, c.want)
		}
	}
}

// A fit estimated at largeFit or more makes the collector run at 25 %
// growth, unless GOGC is set; a smaller one leaves it alone.
func TestCollectSooner(t *testing.T) {
	old := debug.SetGCPercent(100)
	defer debug.SetGCPercent(old)
	t.Setenv("GOGC", "")
	os.Unsetenv("GOGC")
	if collectSooner(largeFit-1) || debug.SetGCPercent(100) != 100 {
		t.Errorf("a fit below largeFit changed the collector's target")
	}
	if !collectSooner(largeFit) || debug.SetGCPercent(100) != largeFitGCPercent {
		t.Errorf("a fit of largeFit did not set the target to %d", largeFitGCPercent)
	}
	t.Setenv("GOGC", "100")
	if collectSooner(10*largeFit) || debug.SetGCPercent(100) != 100 {
		t.Errorf("GOGC set by the user was overridden")
	}
}

// A count of an unknown total: redrawn in place on a terminal, ending with
// a newline; in a log one line at most every progressEvery, and the last.
func TestProgressCount(t *testing.T) {
	var b bytes.Buffer
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	step := 4 * time.Second
	p := &progress{w: &b, tty: true, label: "fit", start: clock, now: func() time.Time { clock = clock.Add(step); return clock }}
	p.count(1000, "rows read", false)
	p.count(2000, "rows read", true)
	if want := "\rfit: 1000 rows read, 4s elapsed\x1b[K\rfit: 2000 rows read, 8s elapsed\x1b[K\n"; b.String() != want {
		t.Errorf("terminal %q, want %q", b.String(), want)
	}
	b.Reset()
	p.tty, p.start, p.last = false, clock, time.Time{}
	for i := 1; i <= 6; i++ {
		p.count(1000*i, "rows read", false) // the clock moves 4 s per reading (line reads it too)
	}
	p.count(6000, "rows read", true)
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 4 || !strings.HasSuffix(lines[0], "fit: 1000 rows read, 4s elapsed") || !strings.Contains(lines[3], "fit: 6000 rows read, ") {
		t.Errorf("log lines %q", lines)
	}
}

// A method that refits per dimension is announced in eval's plan line, and
// the stages inside a unit are drawn in place on a terminal and spaced
// like the unit lines in a log.
func TestProgressStep(t *testing.T) {
	st, _, errs := run(t, "eval", "-i", "builtin:iris", "-m", "mie,lda", "-c", "ncc", "--cv", "3", "--max-dims", "3")
	if st != 0 {
		t.Fatalf("status %d: %s", st, errs)
	}
	if want := "6 fits on 100 training rows × 4 features"; !strings.Contains(errs, want) || !strings.Contains(errs, "; mie is fitted once per dimension swept: each of its fits counted here is up to 3\n") {
		t.Errorf("plan line lacks the refits:\n%s", errs)
	}
	var b bytes.Buffer
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p := &progress{w: &b, tty: true, label: "eval", start: clock, now: func() time.Time { clock = clock.Add(4 * time.Second); return clock }}
	p.step("mie, fold 1 of 3: 1/3 fits of the dimension sweep")
	p.update(1, 6, "fits")
	if want := "\reval: mie, fold 1 of 3: 1/3 fits of the dimension sweep\x1b[K\reval [####....................] 1/6 fits, 4s elapsed, ETA 20s\x1b[K"; b.String() != want {
		t.Errorf("terminal %q, want %q", b.String(), want)
	}
	b.Reset()
	p.tty, p.last = false, time.Time{}
	for k := 1; k <= 6; k++ {
		p.step(fmt.Sprintf("mie, fold 1 of 3: %d/6 fits of the dimension sweep", k)) // the clock moves 4 s per reading (line reads it too)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 3 || !strings.HasSuffix(lines[0], "eval: mie, fold 1 of 3: 1/6 fits of the dimension sweep") || !strings.HasSuffix(lines[2], "5/6 fits of the dimension sweep") {
		t.Errorf("log lines %q, want the 1st, 3rd and 5th (spaced by progressEvery)", lines)
	}
}

// fit and cluster pass a reporter to the library in their context: the
// long steps of a kernel fit on 2 000 rows (progress.MinOrder) each get a
// line as they start, and --quiet silences them.
func TestFitLibrarySteps(t *testing.T) {
	var b strings.Builder
	b.WriteString("a,b,label\n")
	for i := 0; i < 2000; i++ {
		fmt.Fprintf(&b, "%d,%d,%d\n", i%37, (i*7)%41, i%2)
	}
	in := write(t, "rows.csv", b.String())
	out := t.TempDir() + "/m.json"
	for _, c := range []struct {
		m, k string
		want []string
	}{
		{"kpca", "2", []string{"fit: kernel matrix, 2000×2000\n", "fit: lanczos eigen-solver: 2 pairs of order 2000\n"}},
		{"gda", "1", []string{"fit: kernel matrix, 2000×2000\n", "fit: regression: cholesky solve of order 2000\n"}},
	} {
		st, _, errs := run(t, "fit", "-m", c.m, "-i", in, "-k", c.k, "-o", out)
		if st != 0 {
			t.Fatalf("%s: status %d: %s", c.m, st, errs)
		}
		for _, w := range c.want {
			if !strings.Contains(errs, w) {
				t.Errorf("%s: stderr lacks %q:\n%s", c.m, w, errs)
			}
		}
		if st, _, errs := run(t, "fit", "-m", c.m, "-i", in, "-k", c.k, "-o", out, "--quiet"); st != 0 || errs != "" {
			t.Errorf("%s --quiet: status %d, stderr %q", c.m, st, errs)
		}
	}
	// cluster reports the method's steps and its own the same way.
	st, _, errs := run(t, "cluster", "-i", in, "-m", "gda", "--runs", "2")
	if st != 0 {
		t.Fatalf("cluster: status %d: %s", st, errs)
	}
	for _, w := range []string{"cluster: fitting gda on 2000 rows × 2 features (--scale minmax), about ", "cluster: kernel matrix, 2000×2000\n", "cluster: regression: cholesky solve of order 2000\n", "cluster: normalized cut of 2000 rows into 2 clusters (knn affinity), 2 runs of k-means\n"} {
		if !strings.Contains(errs, w) {
			t.Errorf("cluster: stderr lacks %q:\n%s", w, errs)
		}
	}
	if _, _, errs := run(t, "cluster", "-i", in, "-m", "gda", "--runs", "2", "--quiet"); strings.Contains(errs, "cluster: fitting") || strings.Contains(errs, "cluster: kernel") || strings.Contains(errs, "cluster: normalized cut") {
		t.Errorf("cluster --quiet: stderr %q", errs)
	}
}

// dimred cluster interrupted: status 130, nothing on stdout, the
// interruption named (before, it ran to the end and printed its report).
func TestClusterInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, m := range []string{"none", "lda"} {
		var out, errb bytes.Buffer
		st := doContext(ctx, []string{"cluster", "-i", "builtin:iris", "-m", m}, strings.NewReader(""), &out, &errb)
		if st != 130 || out.Len() != 0 || !strings.Contains(errb.String(), "interrupted; no output written") {
			t.Errorf("-m %s: status %d, stdout %q, stderr %q", m, st, out.String(), errb.String())
		}
	}
}

// dimred demo interrupted: status 130 and the message says that what was
// written before stays (before, the demo ran to the end with status 0).
func TestDemoInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	dir := t.TempDir()
	st := doContext(ctx, []string{"demo", "-o", dir}, strings.NewReader(""), &out, &errb)
	if st != 130 || !strings.Contains(errb.String(), "interrupted; the tables above and the plots in "+dir+"/ are those finished before it") {
		t.Errorf("status %d, stderr %q", st, errb.String())
	}
	if pngs, _ := filepath.Glob(filepath.Join(dir, "*.png")); len(pngs) != 0 {
		t.Errorf("%d plots written after the interruption", len(pngs))
	}
}

// fit says when it writes a model of every dimension the method gives
// (KPCA keeps n − 1 by default: a file of n² values at 10 000 rows), and
// not when -k asked for them.
func TestFitNotesAllDimensions(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "x.csv")
	var b strings.Builder
	// 20 Gaussian features: the RBF Gram matrix of 1 002 rows has full rank.
	for j := 0; j < 20; j++ {
		fmt.Fprintf(&b, "x%d,", j)
	}
	b.WriteString("label\n")
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 1002; i++ {
		for j := 0; j < 20; j++ {
			fmt.Fprintf(&b, "%g,", rng.NormFloat64())
		}
		fmt.Fprintf(&b, "%d\n", i%2)
	}
	if err := os.WriteFile(in, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(dir, "m.json")
	st, _, errs := run(t, "fit", "-m", "kpca", "-i", in, "-o", model)
	if st != 0 {
		t.Fatalf("fit: status %d: %s", st, errs)
	}
	if !strings.Contains(errs, "writing the model with all 1001 dimensions the method gives (-k 0; -k N keeps N)") {
		t.Errorf("fit at the default -k: stderr %q", errs)
	}
	st, _, errs = run(t, "fit", "-m", "kpca", "-i", in, "-k", "1001", "-o", model)
	if st != 0 || strings.Contains(errs, "writing the model") {
		t.Errorf("fit -k 1001: status %d, stderr %q", st, errs)
	}
}

// A fit whose estimate is above all the memory available is refused, in
// fit, cluster and eval, naming --force (with which it runs); between 80
// and 100 % it runs with a warning. (availableMemory is set to the
// wine fits' scale.)
func TestFitRefusedAboveAvailableMemory(t *testing.T) {
	defer func(old func() int64) { availableMemory = old }(availableMemory)
	kmfa, _ := method.Lookup("kmfa")
	est := fitMemory(kmfa, nil, 178, 13, 0)
	availableMemory = func() int64 { return est / 8 } // eval fits half the rows: a quarter of est
	for _, args := range [][]string{
		{"fit", "-m", "kmfa", "-i", "builtin:wine", "-o", filepath.Join(t.TempDir(), "m.json")},
		{"cluster", "-m", "kmfa", "-i", "builtin:wine"},
		{"eval", "-m", "kmfa", "-c", "ncc", "-i", "builtin:wine", "--cv", "2"},
	} {
		st, _, errs := run(t, append(args, "--quiet")...)
		if st != 1 || !strings.Contains(errs, "kmfa on ") || !strings.Contains(errs, "more than the") || !strings.Contains(errs, "-p space=nystrom") || !strings.Contains(errs, "give --force to try anyway") {
			t.Errorf("%s above the available memory: status %d, %q", args[0], st, errs)
		}
		if st, _, errs := run(t, append(args, "--quiet", "--force")...); st != 0 {
			t.Errorf("%s --force: status %d, %q", args[0], st, errs)
		}
	}
	// cluster fits k dimensions when --dims is 0: KPCA's estimate is then
	// the Lanczos route's, not the full decomposition's (the review: a
	// cluster that would fit was refused).
	kpca, _ := method.Lookup("kpca")
	availableMemory = func() int64 { return 2 * fitMemory(kpca, nil, 178, 13, 3) }
	if st, _, errs := run(t, "cluster", "-m", "kpca", "-i", "builtin:wine", "--quiet"); st != 0 {
		t.Errorf("cluster -m kpca within its k-dimension estimate: status %d, %q", st, errs)
	}
	availableMemory = func() int64 { return est * 11 / 10 }
	if st, _, errs := run(t, "fit", "-m", "kmfa", "-i", "builtin:wine", "-o", filepath.Join(t.TempDir(), "m.json")); st != 0 || !strings.Contains(errs, "warning: kmfa on 178 rows may need about") {
		t.Errorf("between 80 and 100 %%: status %d, %q; want a warning", st, errs)
	}
}

// The estimate follows the solver: KMFA by spectral regression holds a
// few n×n matrices, not the dense pencil's twenty-odd.
func TestFitMemoryRegressionSolver(t *testing.T) {
	kmfa, _ := method.Lookup("kmfa")
	dense := fitMemory(kmfa, nil, 10000, 784, 20)
	reg := fitMemory(kmfa, map[string]string{"solver": "regression"}, 10000, 784, 20)
	if gb := float64(reg) / (1 << 30); reg >= dense/4 || gb < 2 || gb > 4 {
		t.Errorf("kmfa solver=regression at 10 000 rows: %.1f GB (dense %.1f GB); want 2-4 GB (measured 2.2)", gb, float64(dense)/(1<<30))
	}
}

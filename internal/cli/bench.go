package cli

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/dimred/dimred/bench"
)

const benchUsage = "bench [--workload W0,W4/gda,…] [--data DIR] [--repeat N] [--scale F] [--peer] [--format text|json] [--memory auto|child|heap] [--work DIR]"

func runBench(e *env, args []string) error {
	fs := newFlags(e, "bench")
	workloads := fs.String("workload", "", "workloads to run, comma-separated ids (W4) or id/variant (W4/gda); empty: all (see --list)")
	dataDir := fs.String("data", "../shared/data", "directory holding "+bench.MNISTFile)
	repeat := fs.Int("repeat", 3, "timed repeats per workload; the median is reported")
	scale := fs.Float64("scale", 1, "multiply every row count by this factor in (0, 1] for a quick run (at least 100 rows)")
	format := fs.String("format", "text", "output: text or json")
	peer := fs.Bool("peer", false, "also run bench/peer.py (NumPy, SciPy, scikit-learn) on the same rows and print both side by side")
	python := fs.String("python", "/usr/bin/python3", "Python interpreter of --peer")
	script := fs.String("peer-script", "bench/peer.py", "the peer script of --peer")
	work := fs.String("work", "", "directory for x.npy, y.npy, perm.npy and the peers' inputs (default: a temporary directory, removed)")
	memory := fs.String("memory", "auto", "peak memory: child (each workload in a child process, its VmHWM), heap (in-process, sampled Go heap) or auto (child, heap inside tests)")
	list := fs.Bool("list", false, "list the workloads and exit")
	child := fs.String(bench.ChildFlag, "", "internal: run one workload (JSON job) and print its result")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *child != "" {
		return bench.RunChild(*child, e.stdout)
	}
	if *list {
		for _, w := range bench.Workloads() {
			fmt.Fprintf(e.stdout, "%-28s n = %-6d %s\n", w.Name(), w.N, w.Title)
		}
		return nil
	}
	if *format != "text" && *format != "json" {
		return usagef("--format %q: want text or json", *format)
	}
	o := bench.Options{DataDir: *dataDir, Workloads: splitList(*workloads), Repeat: *repeat, Scale: *scale,
		Peer: *peer, Python: *python, PeerScript: *script, WorkDir: *work, Log: e.progressLog()}
	if err := o.Validate(); err != nil {
		return usageError{err}
	}
	switch *memory {
	case "child":
		o.Child = childCommand()
	case "auto":
		if !testing.Testing() {
			o.Child = childCommand()
		}
	case "heap":
	default:
		return usagef("--memory %q: want auto, child or heap", *memory)
	}
	if o.Child != nil && o.Child[0] == "" {
		return fmt.Errorf("--memory child: cannot find the dimred executable to re-run; use --memory heap")
	}
	rs, err := bench.Run(o)
	if err != nil {
		return err
	}
	if *format == "json" {
		err = bench.WriteJSON(e.stdout, rs)
	} else {
		err = bench.WriteText(e.stdout, rs)
	}
	if err != nil {
		return err
	}
	var failed []string
	for _, r := range rs {
		if r.Error != "" || !r.Check.Pass {
			failed = append(failed, r.Name())
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("failed or did not pass their check: %s", strings.Join(failed, ", "))
	}
	return nil
}

// childCommand re-executes this program's bench command.
func childCommand() []string {
	exe, err := os.Executable()
	if err != nil {
		return []string{""}
	}
	return []string{exe, "bench"}
}

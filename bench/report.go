package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteJSON writes the results as one JSON list (the schema is Result's).
func WriteJSON(w io.Writer, rs []*Result) error {
	if rs == nil {
		rs = []*Result{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(rs)
}

// WriteText writes a side-by-side table (one line per peer variant), then
// the checks and the agreement with the peers.
func WriteText(w io.Writer, rs []*Result) error {
	if len(rs) > 0 {
		r := rs[0]
		src := map[string]bool{}
		for _, r := range rs {
			src[r.PeakSource] = true
		}
		var srcs []string
		for _, s := range []string{PeakVmHWM, PeakHeap} {
			if src[s] {
				srcs = append(srcs, peakSourceText(s))
			}
		}
		fmt.Fprintf(w, "dimred bench: GOMAXPROCS %d, backend %s, repeat %d, load %s at the start\n", r.GOMAXPROCS, r.Backend, r.Repeat, fmtLoad(r.LoadAvg))
		fmt.Fprintf(w, "our peak memory: %s\n", strings.Join(srcs, "; "))
		gs := map[string]float64{}
		for _, r := range rs {
			gs[r.Data] = r.Gamma
		}
		for _, d := range []string{"mnist", "mixture"} {
			if g, ok := gs[d]; ok {
				fmt.Fprintf(w, "RBF on %s rows: γ = %.6g (1/median ‖xᵢ−xⱼ‖² over the first %d rows)\n", d, g, GammaRows)
			}
		}
		fmt.Fprintln(w)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "workload\tn\tours (s)\tpeer\tpeer (s)\tours/peer\tour peak\tpeer peak\tcheck")
	for _, r := range rs {
		ours := fmtSec(r.Seconds)
		if r.Error != "" {
			ours = "error"
		}
		first := fmt.Sprintf("%s\t%d\t%s\t", r.Name(), r.N, ours)
		peak := fmtBytes(r.PeakBytes)
		status := checkText(r)
		if len(r.Peers) == 0 {
			fmt.Fprintf(tw, "%s–\t\t\t%s\t\t%s\n", first, peak, status)
			continue
		}
		for i, p := range r.Peers {
			if i > 0 {
				first, peak, status = "\t\t\t", "", ""
			}
			ps, ratio, pp := "–", "–", "–"
			if p.Seconds != nil {
				ps = fmtSec(*p.Seconds)
			}
			if p.Ratio != nil && r.Error == "" {
				ratio = fmt.Sprintf("%.2f", *p.Ratio)
			}
			if p.PeakBytes != nil {
				pp = fmtBytes(*p.PeakBytes)
			}
			name := p.Peer
			if p.Error != "" {
				name += " (error)"
			}
			fmt.Fprintf(tw, "%s%s\t%s\t%s\t%s\t%s\t%s\n", first, name, ps, ratio, peak, pp, status)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nchecks:")
	for _, r := range rs {
		fmt.Fprintf(w, "  %s: %s\n", r.Name(), checkLine(r))
		for _, c := range r.Check.Criteria {
			rel := "≤"
			if c.AtLeast {
				rel = "≥"
			}
			mark := "ok"
			switch {
			case c.Skipped != "":
				mark = "skipped: " + c.Skipped
			case !c.Pass:
				mark = "FAIL"
			}
			fmt.Fprintf(w, "      %s = %.3g (%s %.3g) %s\n", c.What, c.Value, rel, c.Limit, mark)
		}
		if r.Check.Note != "" {
			fmt.Fprintf(w, "      %s\n", r.Check.Note)
		}
	}
	var agree []string
	for _, r := range rs {
		for _, p := range r.Peers {
			switch {
			case p.Error != "":
				agree = append(agree, fmt.Sprintf("  %s vs %s: error: %s", r.Name(), p.Peer, p.Error))
			case p.Agree != "":
				agree = append(agree, fmt.Sprintf("  %s vs %s: %s", r.Name(), p.Peer, p.Agree))
			}
		}
	}
	if len(agree) > 0 {
		fmt.Fprintln(w, "\nagreement with the peers (reported, not judged):")
		fmt.Fprintln(w, strings.Join(agree, "\n"))
	}
	return nil
}

func peakSourceText(s string) string {
	if s == PeakHeap {
		return "in-process sampled Go heap (runtime/metrics)"
	}
	return "VmHWM of a child process per workload (input rows included)"
}

func fmtSec(s float64) string {
	switch {
	case s >= 100:
		return fmt.Sprintf("%.0f", s)
	case s >= 10:
		return fmt.Sprintf("%.1f", s)
	}
	return fmt.Sprintf("%.3g", s)
}

// checkText is the check column: ok, FAIL or error.
func checkText(r *Result) string {
	switch {
	case r.Error != "":
		return "error"
	case len(r.Check.Criteria) == 0:
		return "error"
	case r.Check.Pass:
		return fmt.Sprintf("ok (n=%d)", r.Check.N)
	}
	// Not "(n=…)": a failing criterion may be judged on other rows than
	// the check's reference (W8's accuracy on the full run, its
	// exactness on 500 rows); the checks section says which failed.
	return "FAIL (see checks)"
}

func checkLine(r *Result) string {
	if r.Error != "" {
		return "not run: " + r.Error
	}
	return fmt.Sprintf("%s against %s on %d rows", checkText(r), r.Check.Reference, r.Check.N)
}

package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/dimred/dimred/method"
)

func runMethods(e *env, args []string) error {
	fs := newFlags(e, "methods")
	verbose := fs.Bool("v", false, "list each method's parameters and defaults")
	if err := parse(fs, args); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tFAMILY\tSUPERVISION\tSPACE\tMAX DIMS\tPAPER")
	for _, m := range method.All() {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", m.Name, m.Family, m.Supervision, m.Space, m.MaxDims, paperNames(m.Paper))
	}
	if err := tw.Flush(); err != nil || !*verbose {
		return err
	}
	for _, m := range method.All() {
		fmt.Fprintf(e.stdout, "\n%s: %s\n", m.Name, m.Title)
		if len(m.Params) == 0 {
			fmt.Fprintln(e.stdout, "  (no parameters)")
		}
		tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
		for _, p := range m.Params {
			fmt.Fprintf(tw, "  -p %s=%s\t%s\t%s\n", p.Name, p.Default, valuesOf(p), p.Doc)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		if m.Values != "" {
			fmt.Fprintf(e.stdout, "  values of a fit (info --model): %s\n", m.Values)
		}
	}
	return nil
}

// valuesOf describes the values a parameter takes: its type and rule
// ("float ≥ 0", "int ≥ 1") or its allowed values ("auto|dense").
func valuesOf(p method.Param) string {
	switch {
	case p.Type == "kernel":
		return strings.Join(p.Allowed, "|") + "[:key=value,…]"
	case len(p.Allowed) > 0:
		return strings.Join(p.Allowed, "|")
	case p.Rule != "":
		return p.Type + " " + p.Rule
	}
	return p.Type
}

package reproduce

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/dimred/dimred/classify"
	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/evaluate"
	"github.com/dimred/dimred/method"
)

// PaperMethod maps a paper's name of a method (a table column or row) to
// dimred's.
type PaperMethod struct{ Paper, Ours string }

// paperMethods builds the methods of list selected by sel (paper names;
// empty: all) with the paper's settings params(name) and the run's
// overrides ov over them, and returns them with their paper names. A
// selection that names no method of the list is an error.
func paperMethods(list []PaperMethod, sel []string, params func(name string) (map[string]string, error), ov *Overrides) ([]evaluate.NamedMethod, []string, error) {
	var ms []evaluate.NamedMethod
	var paper []string
	for _, m := range list {
		if !selected(sel, m.Paper) {
			continue
		}
		p, err := params(m.Ours)
		if err != nil {
			return nil, nil, err
		}
		mm, err := method.New(m.Ours, ov.apply(m.Ours, p))
		if err != nil {
			return nil, nil, err
		}
		ms = append(ms, evaluate.NamedMethod{Name: m.Ours, Method: mm})
		paper = append(paper, m.Paper)
	}
	if len(ms) == 0 {
		var names []string
		for _, m := range list {
			names = append(names, m.Paper)
		}
		return nil, nil, fmt.Errorf("methods %v: none of %v", sel, names)
	}
	return ms, paper, nil
}

// perClassSplits is the protocol of seeds 003 and 004: repeats random
// splits with nu training rows per class (the rest test), the methods
// fitted on the training rows after the preprocessing scale, the
// classifier c (nil: 1-NN, the tables' own) on the embedding at
// dimensions 1..maxDims; ctx (nil: none) cancels it.
func perClassSplits(ctx context.Context, ds *data.Dataset, ms []evaluate.NamedMethod, c classify.Classifier, nu int, scale string, repeats, maxDims int, seed uint64) (*evaluate.Report, error) {
	if c == nil {
		c = classify.KNN{K: 1}
	}
	return evaluate.Run(ds, evaluate.Protocol{Preprocess: scale, Methods: ms, Classifiers: []classify.Classifier{c},
		PerClass: nu, Repeats: repeats, Seed: seed, MaxDims: maxDims, Context: ctx})
}

// fisherfaces are the settings of the FDA/LDA baseline of the face
// tables of seeds 003 and 004 (neither paper says which LDA it ran):
// Fisherfaces (Belhumeur et al. 1997) — PCA to n − C components, then LDA —
// with unit-length directions, as Cai's LDA.m normalises them, the
// "PCA+LDA" baseline of the MFA paper (Yan et al. 2007) whose protocol
// seed 003 follows. Our default LDA keeps rank S_t and the null space of
// S_w instead (null-space LDA), which beats it on every face set
// (docs/reproduction.md, "Faces: LDA's PCA step").
var fisherfaces = map[string]string{"fisherfaces": "true", "norm": "unit"}

// Overrides are parameter settings given for a whole run (dimred
// reproduce -p), routed as the command line's -p: "key=value" goes to
// every method of an experiment that has key, "method.key=value" (our
// method name, e.g. sklpp.alpha=1 for seed 000's KLPP column) to that method only, and wins over an
// unscoped key. They are applied over the experiment's own settings; the
// report's choices list them, and say which matched no method of the
// experiment (Unused). A key that no registered method has is an error
// (Check). A nil *Overrides sets nothing.
type Overrides struct {
	Settings []string
	mu       sync.Mutex
	used     map[string]bool
}

// NewOverrides returns the settings as Overrides (nil when there are none).
func NewOverrides(settings []string) *Overrides {
	if len(settings) == 0 {
		return nil
	}
	return &Overrides{Settings: settings}
}

// Check reports a setting that is not key=value, names a parameter no
// registered method has, or repeats a key.
func (o *Overrides) Check() error {
	if o == nil {
		return nil
	}
	infos := method.All()
	if err := method.RepeatedKey("-p", o.Settings); err != nil {
		return err
	}
	for _, kv := range o.Settings {
		k, _, _ := strings.Cut(kv, "=")
		if m, _, scoped := strings.Cut(k, "."); scoped {
			// A scoped key is checked against its method only.
			info, err := method.Lookup(strings.ToLower(m))
			if err != nil {
				return fmt.Errorf("-p %s: %w", kv, err)
			}
			if _, err := method.Route("-p", []string{kv}, []method.Info{info}); err != nil {
				return err
			}
			continue
		}
		if _, err := method.Route("-p", []string{kv}, infos); err != nil {
			return err
		}
	}
	return nil
}

// For returns the settings that apply to method name (nil: none): the
// unscoped keys the method has and the keys scoped to it, routed as -p
// (method.Route: a scoped key wins). The settings returned are marked
// used.
func (o *Overrides) For(name string) map[string]string {
	if o == nil {
		return nil
	}
	info, err := method.Lookup(name)
	if err != nil {
		return nil
	}
	var mine []string
	for _, kv := range o.Settings {
		k, _, _ := strings.Cut(kv, "=")
		if m, key, scoped := strings.Cut(k, "."); scoped && strings.EqualFold(m, name) && info.HasParam(key) || !scoped && info.HasParam(k) && method.ShorthandApplies(info, k, o.Settings) {
			mine = append(mine, kv)
		}
	}
	if len(mine) == 0 {
		return nil
	}
	out, err := method.Route("-p", mine, []method.Info{info})
	if err != nil {
		return nil // unreachable: every setting kept names a parameter of name
	}
	o.mu.Lock()
	if o.used == nil {
		o.used = map[string]bool{}
	}
	for _, kv := range mine {
		o.used[kv] = true
	}
	o.mu.Unlock()
	return out[info.Name]
}

// Unused returns the settings no For call has used since the last Reset.
func (o *Overrides) Unused() []string {
	if o == nil {
		return nil
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []string
	for _, kv := range o.Settings {
		if !o.used[kv] {
			out = append(out, kv)
		}
	}
	return out
}

// Reset forgets which settings were used (before an experiment runs).
func (o *Overrides) Reset() {
	if o == nil {
		return
	}
	o.mu.Lock()
	o.used = nil
	o.mu.Unlock()
}

// apply returns base with the settings for name over it (a new map).
func (o *Overrides) apply(name string, base map[string]string) map[string]string {
	over := o.For(name)
	if over == nil {
		return base
	}
	out := make(map[string]string, len(base)+len(over))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		out[k] = v
	}
	return out
}

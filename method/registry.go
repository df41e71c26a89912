package method

import (
	"fmt"
	"sort"
	"strings"

	"github.com/dimred/dimred/embed"
	"github.com/dimred/dimred/param"
)

// Param describes one hyperparameter of a method (generated from the
// method's Params declaration).
type Param = param.Spec

// Info describes a registered method for the CLI and for documentation.
type Info struct {
	Name        string // CLI name, e.g. "gda"
	Title       string // e.g. "Generalized discriminant analysis"
	Family      string // e.g. "discriminant", "variance", "mutual information"
	Supervision string // "supervised", "unsupervised" or "semi-supervised"
	Space       string // "linear" or "kernel"
	Paper       string // where it is defined or used
	MaxDims     string // the largest number of output dimensions
	// Values says what a fit's Values (Fitted.Values, a model file's
	// "values") are: the eigenvalue or ratio of each direction, and
	// their order.
	Values string
	// Params are the method's parameters, in the order its Params method
	// declares them (set by Register).
	Params []Param
	// New builds the method from key=value parameters: unknown keys, values
	// that break a rule and conflicting keys are errors (set by Register).
	New func(params map[string]string) (Method, error)
}

// Supervised reports whether the method needs labels and leaves
// unlabelled rows out (Supervision "supervised"; SR's family, which
// takes a semi-supervised graph, is not).
func (i Info) Supervised() bool { return i.Supervision == "supervised" }

var registry = map[string]Info{}

// Register adds method M under info.Name, with the parameters M declares
// in its Params method: they become info.Params (help text) and info.New
// (parsing and checking). It panics on a duplicate name (a programming
// error caught at init).
func Register[M Method, P interface {
	*M
	param.Declarer
}](info Info) {
	if _, dup := registry[info.Name]; dup {
		panic("method: duplicate registration of " + info.Name)
	}
	info.Params = param.Of(info.Name, P(new(M))).Specs()
	name := info.Name
	info.New = func(params map[string]string) (Method, error) {
		m := new(M)
		if err := param.Of(name, P(m)).Bind(params); err != nil {
			return nil, err
		}
		return *m, nil
	}
	registry[info.Name] = info
}

// resolve gives every zero field of m its default and checks every
// parameter (the start of every Fit: a struct literal is held to the same
// rules as method.New).
func resolve(name string, m param.Declarer) error {
	return param.Of(name, m).Resolve()
}

// All returns every registered method, sorted by name.
func All() []Info {
	out := make([]Info, 0, len(registry))
	for _, i := range registry {
		out = append(out, i)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Name < out[b].Name })
	return out
}

// Lookup returns the method registered under name.
func Lookup(name string) (Info, error) {
	info, ok := registry[strings.ToLower(name)]
	if !ok {
		names := make([]string, 0, len(registry))
		for _, i := range All() {
			names = append(names, i.Name)
		}
		return Info{}, fmt.Errorf("unknown method %q (known: %s)", name, strings.Join(names, ", "))
	}
	return info, nil
}

// New builds the named method from key=value parameters (see Info.New).
func New(name string, params map[string]string) (Method, error) {
	info, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	return info.New(params)
}

// dimsError is the error of a fit asked for more dimensions than the
// method gives: an *embed.DimsError (errors.As finds it for every
// method) whose rule, rule formatted with args, says where the bound
// comes from, prefixed with the method's name.
func dimsError(name string, dims, available int, rule string, args ...any) error {
	return fmt.Errorf("%s: %w", name, &embed.DimsError{Requested: dims, Available: available, Rule: fmt.Sprintf(rule, args...)})
}

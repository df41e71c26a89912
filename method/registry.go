package method

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/dimred/dimred/kernel"
)

// Param documents one hyperparameter of a method.
type Param struct {
	Name    string
	Default string
	Doc     string
}

// Info describes a registered method for the CLI and for documentation.
type Info struct {
	Name        string // CLI name, e.g. "gda"
	Title       string // e.g. "Generalized discriminant analysis"
	Family      string // e.g. "discriminant", "variance", "mutual information"
	Supervision string // "supervised", "unsupervised" or "semi-supervised"
	Space       string // "linear" or "kernel"
	Paper       string // where it is defined or used
	MaxDims     string // the largest number of output dimensions
	Params      []Param
	// New builds the method from key=value parameters (unknown keys are
	// an error).
	New func(p Params) (Method, error)
}

var registry = map[string]Info{}

// Register adds a method; it panics on a duplicate name (a programming
// error caught at init).
func Register(info Info) {
	if _, dup := registry[info.Name]; dup {
		panic("method: duplicate registration of " + info.Name)
	}
	registry[info.Name] = info
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

// New builds the named method from key=value parameters.
func New(name string, params map[string]string) (Method, error) {
	info, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	p := Params{values: params, method: info.Name, known: map[string]bool{}}
	for _, d := range info.Params {
		p.known[d.Name] = true
	}
	for k := range params {
		if !p.known[k] {
			var names []string
			for _, d := range info.Params {
				names = append(names, d.Name)
			}
			return nil, fmt.Errorf("method %s: unknown parameter %q (parameters: %s)", info.Name, k, strings.Join(names, ", "))
		}
	}
	return info.New(p)
}

// Params gives typed access to key=value hyperparameters with errors that
// name the method, the parameter, the rule and the value.
type Params struct {
	values map[string]string
	method string
	known  map[string]bool
}

// Float returns parameter key as a number (def when absent), checking
// lo ≤ v (or lo < v when open) and finiteness.
func (p Params) Float(key string, def, lo float64, open bool) (float64, error) {
	s, ok := p.values[key]
	if !ok {
		return def, nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("method %s: parameter %s=%q is not a finite number", p.method, key, s)
	}
	if v < lo || (open && v == lo) {
		rel := "≥"
		if open {
			rel = ">"
		}
		return 0, fmt.Errorf("method %s: parameter %s must be %s %g, got %g", p.method, key, rel, lo, v)
	}
	return v, nil
}

// Int returns parameter key as a whole number ≥ lo (def when absent).
func (p Params) Int(key string, def, lo int) (int, error) {
	s, ok := p.values[key]
	if !ok {
		return def, nil
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("method %s: parameter %s=%q is not a whole number", p.method, key, s)
	}
	if v < lo {
		return 0, fmt.Errorf("method %s: parameter %s must be ≥ %d, got %d", p.method, key, lo, v)
	}
	return v, nil
}

// String returns parameter key, checked against the allowed values (any
// value when allowed is empty).
func (p Params) String(key, def string, allowed ...string) (string, error) {
	s, ok := p.values[key]
	if !ok {
		return def, nil
	}
	if len(allowed) == 0 {
		return s, nil
	}
	for _, a := range allowed {
		if s == a {
			return s, nil
		}
	}
	return "", fmt.Errorf("method %s: parameter %s=%q; allowed: %s", p.method, key, s, strings.Join(allowed, ", "))
}

// Kernel reads the kernel from "kernel" (a spec such as "rbf", "poly",
// "linear", or a full spec "rbf:sigma=2") and the shorthands "sigma",
// "gamma", "degree", "offset". def is the default kernel.
func (p Params) Kernel(def kernel.Kernel) (kernel.Kernel, error) {
	k := def
	if s, ok := p.values["kernel"]; ok {
		var err error
		if k, err = kernel.Parse(s); err != nil {
			return k, fmt.Errorf("method %s: %w", p.method, err)
		}
	}
	for _, key := range []string{"sigma", "gamma", "degree", "offset"} {
		if v, ok := p.values[key]; ok {
			if err := k.Set(key, v); err != nil {
				return k, fmt.Errorf("method %s: %w", p.method, err)
			}
		}
	}
	if err := k.Validate(); err != nil {
		return k, fmt.Errorf("method %s: %w", p.method, err)
	}
	return k, nil
}

// KernelParams are the shared kernel hyperparameters of kernel methods.
var KernelParams = []Param{
	{"kernel", "rbf", "kernel type: rbf, poly, linear, sigmoid (or a spec such as rbf:sigma=2)"},
	{"sigma", "1", "RBF width σ in exp(−‖x−y‖²/(2σ²)) (seed 000 protocol: σ = 1)"},
	{"gamma", "", "RBF alternative: exp(−γ‖x−y‖²) (γ = 1/(2σ²)); poly/sigmoid scale"},
	{"degree", "2", "polynomial degree"},
	{"offset", "0", "polynomial/sigmoid offset"},
}

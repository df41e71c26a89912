package param

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Number is the type of a numeric parameter.
type Number interface{ int | uint64 | float64 }

// Option qualifies a numeric parameter: a bound (Min, Above, Max, Below),
// another rule (Check) or an automatic default (Auto).
type Option struct {
	bound *Bound
	rule  string
	ok    func(float64) bool
	auto  string
}

// Min: the value must be ≥ v.
func Min(v float64) Option { return Option{bound: &Bound{"≥", v}} }

// Above: the value must be > v.
func Above(v float64) Option { return Option{bound: &Bound{">", v}} }

// Max: the value must be ≤ v.
func Max(v float64) Option { return Option{bound: &Bound{"≤", v}} }

// Below: the value must be < v.
func Below(v float64) Option { return Option{bound: &Bound{"<", v}} }

// Check: the value must satisfy ok, which rule states in words.
func Check(rule string, ok func(float64) bool) Option { return Option{rule: rule, ok: ok} }

// Auto says that the zero value (of an Opt: unset) means a default
// computed by rule how, written "auto" in text form.
func Auto(how string) Option { return Option{auto: how} }

// rules is the checking part of a numeric parameter's options.
type rules struct {
	bounds []Bound
	checks []Option
	auto   string
	text   string
}

func newRules(opts []Option) rules {
	var r rules
	var words []string
	for _, o := range opts {
		switch {
		case o.bound != nil:
			r.bounds = append(r.bounds, *o.bound)
		case o.ok != nil:
			r.checks = append(r.checks, o)
			words = append(words, o.rule)
		case o.auto != "":
			r.auto = o.auto
		}
	}
	r.text = strings.Join(append(boundWords(r.bounds), words...), " and ")
	return r
}

// boundWords writes a lower and an upper bound as an interval, e.g.
// "in (0, 1)", and other bounds one by one, e.g. "≥ 1".
func boundWords(bs []Bound) []string {
	if len(bs) == 2 && strings.ContainsAny(bs[0].Op, ">≥") && strings.ContainsAny(bs[1].Op, "<≤") {
		l, r := "[", "]"
		if bs[0].Op == ">" {
			l = "("
		}
		if bs[1].Op == "<" {
			r = ")"
		}
		return []string{fmt.Sprintf("in %s%s, %s%s", l, formatFloat(bs[0].Value), formatFloat(bs[1].Value), r)}
	}
	var out []string
	for _, b := range bs {
		out = append(out, b.Op+" "+formatFloat(b.Value))
	}
	return out
}

func (r rules) ok(v float64) bool {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return false
	}
	for _, b := range r.bounds {
		if !b.ok(v) {
			return false
		}
	}
	for _, c := range r.checks {
		if !c.ok(v) {
			return false
		}
	}
	return true
}

func formatFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

func format[T Number](v T) string {
	if f, ok := any(v).(float64); ok {
		return formatFloat(f)
	}
	return fmt.Sprint(v)
}

func typeName[T Number]() string {
	var z T
	if _, ok := any(z).(float64); ok {
		return "float"
	}
	return "int"
}

// parse reads a number of type T checked against r; the error is an
// *Error whose Rule includes the kind of number wanted.
func parse[T Number](text string, r rules) (T, error) {
	var z T
	var v T
	var err error
	kind := "a whole number"
	switch any(z).(type) {
	case float64:
		kind = "a number"
		var f float64
		f, err = strconv.ParseFloat(strings.TrimSpace(text), 64)
		v = any(f).(T)
	case int:
		var i int
		i, err = strconv.Atoi(strings.TrimSpace(text))
		v = any(i).(T)
	case uint64:
		kind = "a whole number ≥ 0"
		var u uint64
		u, err = strconv.ParseUint(strings.TrimSpace(text), 10, 64)
		v = any(u).(T)
	}
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && ne.Err == strconv.ErrRange {
			return z, &Error{Rule: kind + " within the range of a 64-bit number", Value: text}
		}
		rule := kind
		if r.text != "" {
			rule += " " + r.text
		}
		return z, &Error{Rule: rule, Value: text}
	}
	if !r.ok(float64(v)) {
		return z, &Error{Rule: r.ruleOrFinite(), Value: text}
	}
	return v, nil
}

func (r rules) ruleOrFinite() string {
	if r.text == "" {
		return "finite"
	}
	return r.text
}

func (r rules) spec(name, typ, def, doc string) Spec {
	if r.auto != "" {
		doc += " (auto: " + r.auto + ")"
	}
	return Spec{Name: name, Type: typ, Default: def, Rule: r.text, Bounds: r.bounds, Doc: doc}
}

// Num declares a number stored in *p; a zero *p means def. With Auto
// (def must then be 0) the zero value means the automatic default and is
// written "auto".
func Num[T Number](s *Schema, p *T, name string, def T, doc string, opts ...Option) {
	r := newRules(opts)
	shown := format(def)
	if r.auto != "" {
		shown = "auto"
	}
	s.Var(r.spec(name, typeName[T](), shown, doc),
		func(text string) error {
			if r.auto != "" && text == "auto" {
				*p = 0
				return nil
			}
			v, err := parse[T](text, r)
			if err == nil {
				*p = v
			}
			return err
		},
		func() {
			if *p == 0 {
				*p = def
			}
		},
		func() error {
			if (*p == 0 && r.auto != "") || r.ok(float64(*p)) {
				return nil
			}
			return &Error{Rule: r.ruleOrFinite(), Value: format(*p)}
		})
}

// OptNum declares a number stored in *p, for which zero is a meaningful
// value: an unset *p means def, or, when def is unset too, the automatic
// default of Auto (written "auto").
func OptNum[T Number](s *Schema, p *Opt[T], name string, def Opt[T], doc string, opts ...Option) {
	r := newRules(opts)
	shown := "auto"
	if def.ok {
		shown = format(def.v)
	}
	s.Var(r.spec(name, typeName[T](), shown, doc),
		func(text string) error {
			if !def.ok && text == "auto" {
				*p = Opt[T]{}
				return nil
			}
			v, err := parse[T](text, r)
			if err == nil {
				*p = Set(v)
			}
			return err
		},
		func() {
			if !p.ok {
				*p = def
			}
		},
		func() error {
			if !p.ok || r.ok(float64(p.v)) {
				return nil
			}
			return &Error{Rule: r.ruleOrFinite(), Value: format(p.v)}
		})
}

// NumFunc declares a number that is stored by set (into a larger value,
// such as one setting of a kernel): it has no default of its own (def is
// only shown; if it is "auto", text "auto" stores 0) and no stored value
// to check. set may return an error.
func NumFunc[T Number](s *Schema, name, def, doc string, set func(T) error, opts ...Option) {
	r := newRules(opts)
	s.Var(r.spec(name, typeName[T](), def, doc),
		func(text string) error {
			if def == "auto" && text == "auto" {
				return set(0)
			}
			v, err := parse[T](text, r)
			if err != nil {
				return err
			}
			return set(v)
		}, nil, nil)
}

// Choice is one value of an enumeration and its name in text form.
type Choice[T any] struct {
	Name  string
	Value T
}

// C returns the choice name ↦ v.
func C[T any](name string, v T) Choice[T] { return Choice[T]{name, v} }

// Names returns choices named by their values, for string types.
func Names[T ~string](values ...T) []Choice[T] {
	out := make([]Choice[T], len(values))
	for i, v := range values {
		out[i] = Choice[T]{string(v), v}
	}
	return out
}

// Enum declares a choice among named values stored in *p; the first
// choice is the default (a zero *p that is no choice's value becomes it).
func Enum[T comparable](s *Schema, p *T, name, doc string, choices ...Choice[T]) {
	enum(s, p, "enum", name, doc, choices)
}

// Bool declares a boolean (default false), written true or false.
func Bool(s *Schema, p *bool, name, doc string) {
	enum(s, p, "bool", name, doc, []Choice[bool]{{"false", false}, {"true", true}})
}

func enum[T comparable](s *Schema, p *T, typ, name, doc string, choices []Choice[T]) {
	var zero T
	names := make([]string, len(choices))
	zeroIsChoice := false
	for i, c := range choices {
		names[i] = c.Name
		zeroIsChoice = zeroIsChoice || c.Value == zero
	}
	s.Var(Spec{Name: name, Type: typ, Default: choices[0].Name, Allowed: names, Doc: doc},
		func(text string) error {
			for _, c := range choices {
				if c.Name == text {
					*p = c.Value
					return nil
				}
			}
			return ErrRule
		},
		func() {
			if *p == zero && !zeroIsChoice {
				*p = choices[0].Value
			}
		},
		func() error {
			for _, c := range choices {
				if c.Value == *p {
					return nil
				}
			}
			return &Error{Rule: "one of " + strings.Join(names, ", "), Value: fmt.Sprint(*p)}
		})
}

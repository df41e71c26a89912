package param

import (
	"fmt"
	"strings"
	"testing"
)

// demo is a value with one parameter of each kind.
type demo struct {
	K     int
	Alpha Opt[float64] // zero is meaningful; unset: 0.5
	Ridge Opt[float64] // unset: automatic
	T     float64      // zero: automatic
	Cut   float64      // zero: 0.25
	Mode  string
	On    bool
}

func (d *demo) Params(s *Schema) {
	Num(s, &d.K, "k", 10, "neighbours", Min(1))
	OptNum(s, &d.Alpha, "alpha", Set(0.5), "regulariser", Min(0))
	OptNum(s, &d.Ridge, "ridge", Opt[float64]{}, "ridge", Min(0), Auto("by the data"))
	Num(s, &d.T, "t", 0, "width", Above(0), Auto("mean edge"))
	Num(s, &d.Cut, "cut", 0.25, "cut-off", Above(0), Below(1))
	Enum(s, &d.Mode, "mode", "mode", Names("fast", "exact")...)
	Bool(s, &d.On, "on", "switch")
}

func TestResolveFillsDefaultsAndKeepsSettings(t *testing.T) {
	var d demo
	if err := Of("demo", &d).Resolve(); err != nil {
		t.Fatal(err)
	}
	want := demo{K: 10, Alpha: Set(0.5), Cut: 0.25, Mode: "fast"}
	if d != want {
		t.Fatalf("resolved zero value %+v, want %+v", d, want)
	}
	d = demo{Alpha: Set(0.0), Ridge: Set(0.0)}
	if err := Of("demo", &d).Resolve(); err != nil || d.Alpha != Set(0.0) || d.Ridge != Set(0.0) {
		t.Fatalf("explicit zeros: %+v, %v", d, err)
	}
}

func TestBindReadsTextAndChecksRules(t *testing.T) {
	var d demo
	err := Of("demo", &d).Bind(map[string]string{"k": "3", "alpha": "0", "ridge": "auto", "t": "auto", "cut": "0.5", "mode": "exact", "on": "true"})
	if err != nil {
		t.Fatal(err)
	}
	if want := (demo{K: 3, Alpha: Set(0.0), Cut: 0.5, Mode: "exact", On: true}); d != want {
		t.Fatalf("bound %+v, want %+v", d, want)
	}
	for _, tc := range []struct {
		kv   map[string]string
		want string
	}{
		{map[string]string{"k": "0"}, "demo: parameter k=0: must be ≥ 1"},
		{map[string]string{"k": "2.5"}, "demo: parameter k=2.5: must be a whole number ≥ 1"},
		{map[string]string{"k": "99999999999999999999"}, "k=99999999999999999999: must be a whole number within the range of a 64-bit number"},
		{map[string]string{"alpha": "-1"}, "demo: parameter alpha=-1: must be ≥ 0"},
		{map[string]string{"alpha": "NaN"}, "alpha=NaN: must be ≥ 0"},
		{map[string]string{"alpha": "auto"}, "alpha=auto: must be a number ≥ 0"}, // alpha has a fixed default
		{map[string]string{"t": "0"}, "t=0: must be > 0"},                        // "auto", not 0, asks for the rule
		{map[string]string{"cut": "1"}, "cut=1: must be in (0, 1)"},
		{map[string]string{"mode": "slow"}, "mode=slow: must be one of fast, exact"},
		{map[string]string{"on": "yes"}, "on=yes: must be one of false, true"},
		{map[string]string{"kk": "1"}, "unknown parameter kk for demo; did you mean k?"},
		{map[string]string{"modus": "1"}, "unknown parameter modus for demo; did you mean mode?"},
		{map[string]string{"lambda": "1"}, "unknown parameter lambda for demo (parameters: k, alpha, ridge, t, cut, mode, on)"},
	} {
		var d demo
		err := Of("demo", &d).Bind(tc.kv)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.kv, err, tc.want)
		}
	}
}

// A struct literal is held to the same rules; its zero fields are defaults.
func TestResolveChecksStructValues(t *testing.T) {
	for _, tc := range []struct {
		d    demo
		want string
	}{
		{demo{K: -2}, "demo: parameter k=-2: must be ≥ 1"},
		{demo{Alpha: Set(-0.5)}, "alpha=-0.5: must be ≥ 0"},
		{demo{T: -1}, "t=-1: must be > 0"},
		{demo{Cut: 2}, "cut=2: must be in (0, 1)"},
		{demo{Mode: "slow"}, "mode=slow: must be one of fast, exact"},
	} {
		err := Of("demo", &tc.d).Resolve()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want %q", tc.d, err, tc.want)
		}
	}
}

func TestExclusiveAndConstraint(t *testing.T) {
	var a, b float64
	s := New("k")
	NumFunc(s, "sigma", "1", "width", func(v float64) error { a = v; return nil }, Above(0))
	NumFunc(s, "gamma", "auto", "scale", func(v float64) error { b = v; return nil }, Above(0))
	s.Exclusive("sigma", "gamma")
	s.Constraint(func() error {
		if a > 10 {
			return fmt.Errorf("sigma=%v with gamma unset must be ≤ 10", a)
		}
		return nil
	})
	if err := s.Bind(map[string]string{"sigma": "1", "gamma": "2"}); err == nil || !strings.Contains(err.Error(), "k: parameters sigma and gamma exclude each other") {
		t.Errorf("sigma with gamma: %v", err)
	}
	if err := s.Bind(map[string]string{"gamma": "auto"}); err != nil || b != 0 {
		t.Errorf("gamma=auto: %v, %v", b, err)
	}
	if err := s.Bind(map[string]string{"sigma": "11"}); err == nil || err.Error() != "k: sigma=11 with gamma unset must be ≤ 10" {
		t.Errorf("constraint: %v", err)
	}
}

func TestSpecs(t *testing.T) {
	specs := Of("demo", &demo{}).Specs()
	got := map[string]Spec{}
	for _, s := range specs {
		got[s.Name] = s
	}
	for name, want := range map[string]struct{ typ, def, rule string }{
		"k":     {"int", "10", "≥ 1"},
		"alpha": {"float", "0.5", "≥ 0"},
		"ridge": {"float", "auto", "≥ 0"},
		"cut":   {"float", "0.25", "in (0, 1)"},
		"mode":  {"enum", "fast", "one of fast, exact"},
		"on":    {"bool", "false", "one of false, true"},
	} {
		s := got[name]
		if s.Type != want.typ || s.Default != want.def || s.Rule != want.rule {
			t.Errorf("%s: %+v, want %+v", name, s, want)
		}
	}
	if !strings.Contains(got["t"].Doc, "auto: mean edge") {
		t.Errorf("t: doc %q does not say what auto means", got["t"].Doc)
	}
}

func TestNearest(t *testing.T) {
	names := []string{"sigma", "gamma", "alpha", "min_class", "k"}
	for in, want := range map[string]string{"sigmaa": "sigma", "Sigma": "sigma", "alpah": "alpha", "min-class": "min_class", "x": "", "lambda": ""} {
		if got := Nearest(in, names); got != want {
			t.Errorf("Nearest(%q) = %q, want %q", in, got, want)
		}
	}
}

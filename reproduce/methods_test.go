package reproduce

import (
	"reflect"
	"strings"
	"testing"
)

// Run-wide settings go to every method that has the key, scoped ones to
// their method only and over the unscoped; the experiment's own settings
// stay unless overridden; unknown keys and methods are errors.
func TestOverrides(t *testing.T) {
	ov := NewOverrides([]string{"lda.norm=constraint", "norm=unit", "sigma=2", "sklpp.k=3"})
	for _, tc := range []struct {
		name string
		base map[string]string
		want map[string]string
	}{
		{"lda", nil, map[string]string{"norm": "constraint"}},
		{"gda", map[string]string{"sigma": "1", "alpha": "0.1"}, map[string]string{"sigma": "2", "alpha": "0.1", "norm": "unit"}},
		{"aqmida", map[string]string{"seed": "3"}, map[string]string{"seed": "3", "sigma": "2"}}, // has no norm
	} {
		if got := ov.apply(tc.name, tc.base); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
	if got := (*Overrides)(nil).apply("lda", map[string]string{"ridge": "1"}); !reflect.DeepEqual(got, map[string]string{"ridge": "1"}) {
		t.Errorf("no overrides: %v", got)
	}
	if err := ov.Check(); err != nil {
		t.Errorf("valid settings: %v", err)
	}
	// lda, gda and aqmida used every setting but sklpp.k.
	if got := ov.Unused(); !reflect.DeepEqual(got, []string{"sklpp.k=3"}) {
		t.Errorf("unused %v, want [sklpp.k=3]", got)
	}
	ov.Reset()
	if got := ov.Unused(); len(got) != 4 {
		t.Errorf("after Reset: unused %v, want all four", got)
	}
	for _, tc := range []struct {
		ov   *Overrides
		want string
	}{
		{NewOverrides([]string{"nrm=unit"}), "did you mean norm?"},
		{NewOverrides([]string{"lda.sigma=1"}), "unknown parameter sigma for lda"},
		{NewOverrides([]string{"xyz.norm=unit"}), `unknown method "xyz"`},
		{NewOverrides([]string{"norm"}), "not key=value"},
	} {
		if err := tc.ov.Check(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want it to contain %q", tc.ov, err, tc.want)
		}
	}
}

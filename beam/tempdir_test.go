package dimredbeam

import (
	"os"
	"path/filepath"
	"testing"
)

// InPrivateTemp gives fn a temporary directory of its own, removes it
// with what fn left there, and restores TMPDIR.
func TestInPrivateTemp(t *testing.T) {
	before, had := os.LookupEnv("TMPDIR")
	outer := os.TempDir()
	var inner string
	got := InPrivateTemp(func() string {
		inner = os.TempDir()
		f, err := os.CreateTemp("", "beamloopbackworker-*")
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
		return filepath.Dir(f.Name())
	})
	if inner == outer || got != inner {
		t.Errorf("temporary directory inside: %s (file made in %s); outside: %s", inner, got, outer)
	}
	if _, err := os.Stat(inner); !os.IsNotExist(err) {
		t.Errorf("%s is still there: %v", inner, err)
	}
	if after, hadAfter := os.LookupEnv("TMPDIR"); after != before || hadAfter != had {
		t.Errorf("TMPDIR %q (set %v) after, %q (set %v) before", after, hadAfter, before, had)
	}
}

// Package testdata locates the shared data sets (../shared/data relative to
// the repository root) for tests. Under CI=true a missing directory is a
// test failure; elsewhere the test is skipped with a message.
package testdata

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Root returns the absolute path of the repository root.
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// SharedDir returns ../shared (beside the repository), or "" if absent.
func SharedDir() string {
	d := filepath.Join(Root(), "..", "shared")
	if st, err := os.Stat(d); err == nil && st.IsDir() {
		return d
	}
	return ""
}

// Path returns the path of rel below ../shared (for example
// "data/uci/iris.arff"). If the file is missing the test fails under
// CI=true and is skipped otherwise.
func Path(t testing.TB, rel string) string {
	t.Helper()
	p := filepath.Join(Root(), "..", "shared", rel)
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("shared data %s is required under CI=true: %v", rel, err)
		}
		t.Skipf("shared data %s not found (%v); skipping outside CI", rel, err)
	}
	return p
}

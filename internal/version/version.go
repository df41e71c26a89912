// Package version names the build of dimred: the module version and the
// commit it was built from, when the Go toolchain recorded them.
package version

import (
	"runtime/debug"
	"sync"
)

// Release is the version of this source tree.
const Release = "0.9.0"

var once = sync.OnceValue(func() string {
	s := "dimred " + Release
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return s
	}
	var rev, dirty string
	for _, kv := range info.Settings {
		switch kv.Key {
		case "vcs.revision":
			rev = kv.Value
		case "vcs.modified":
			if kv.Value == "true" {
				dirty = "+modified"
			}
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev != "" {
		s += " (" + rev + dirty + ")"
	}
	return s + ", " + info.GoVersion
})

// String returns e.g. "dimred 0.9.0 (4e267fe1a2b3), go1.23.2".
func String() string { return once() }

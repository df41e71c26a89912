package dimredbeam

import "os"

// InPrivateTemp runs fn with the process's temporary directory (TMPDIR)
// set to a new directory of its own, and removes that directory and
// restores TMPDIR when fn returns. Beam's Go SDK, in loopback mode (the
// Prism runner's default), creates an empty file "beamloopbackworker-*"
// in the temporary directory on every run and never removes it
// (runnerlib.Execute; apache/beam#27569): a process that runs pipelines
// — the dimred-beam command, a test binary — calls InPrivateTemp around
// them so that nothing is left behind. TMPDIR is process-wide: call it
// from main or TestMain, not while other goroutines make temporary
// files. If the directory cannot be made, fn runs as it is. A process
// killed inside fn (Ctrl-C) leaves the directory, named dimred-beam-*,
// with what the run had written there.
func InPrivateTemp[T any](fn func() T) T {
	dir, err := os.MkdirTemp("", "dimred-beam-")
	if err != nil {
		return fn()
	}
	old, had := os.LookupEnv("TMPDIR")
	os.Setenv("TMPDIR", dir)
	defer func() {
		if had {
			os.Setenv("TMPDIR", old)
		} else {
			os.Unsetenv("TMPDIR")
		}
		os.RemoveAll(dir)
	}()
	return fn()
}

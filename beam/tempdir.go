package dimredbeam

import (
	"os"
	"sync"
)

// PrivateTemp points the process's temporary directory (TMPDIR) at a new
// directory of its own and returns the function that removes that
// directory, with whatever was left in it, and restores TMPDIR (safe to
// call more than once, for example from a signal handler and on return).
// Beam's Go SDK, in loopback mode (the Prism runner's default), creates an
// empty file "beamloopbackworker-*" in the temporary directory on every run
// and never removes it (runnerlib.Execute; apache/beam#27569): a process
// that runs pipelines — the dimred-beam command, a test binary — runs them
// in a private temporary directory so that nothing is left behind. TMPDIR
// is process-wide: call it from main or TestMain, not while other
// goroutines make temporary files.
func PrivateTemp() (cleanup func(), err error) {
	dir, err := os.MkdirTemp("", "dimred-beam-")
	if err != nil {
		return nil, err
	}
	old, had := os.LookupEnv("TMPDIR")
	os.Setenv("TMPDIR", dir)
	var once sync.Once
	return func() {
		once.Do(func() {
			if had {
				os.Setenv("TMPDIR", old)
			} else {
				os.Unsetenv("TMPDIR")
			}
			os.RemoveAll(dir)
		})
	}, nil
}

// InPrivateTemp runs fn in a private temporary directory (PrivateTemp)
// and removes it when fn returns. If the directory cannot be made, fn
// runs as it is. A process killed inside fn leaves the directory, named
// dimred-beam-*, unless it removes it on the signal as dimred-beam does.
func InPrivateTemp[T any](fn func() T) T {
	cleanup, err := PrivateTemp()
	if err != nil {
		return fn()
	}
	defer cleanup()
	return fn()
}

package rundir

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestRunDirLock: while one holder has the run directory, a second lock is refused with an error naming the holder's pid; after
// release the directory can be locked again.
func TestRunDirLock(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no run-directory lock on Windows")
	}
	dir := filepath.Join(t.TempDir(), "run")
	l, err := Acquire(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Acquire(dir, false)
	want := fmt.Sprintf("in use by another sweep (pid %d", os.Getpid())
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("second lock: %v, want an error containing %q", err, want)
	}
	l.Release()
	if _, err := os.Stat(filepath.Join(dir, FileLock)); err == nil {
		t.Errorf("%s left behind after release", FileLock)
	}
	l2, err := Acquire(dir, false)
	if err != nil {
		t.Fatalf("lock after release: %v", err)
	}
	l2.Release()
	// A resume of a missing directory does not create it.
	missing := filepath.Join(t.TempDir(), "missing")
	if l, err := Acquire(missing, false); l != nil || err != nil {
		t.Errorf("missing directory: lock %v err %v, want neither", l, err)
	}
	if _, err := os.Stat(missing); err == nil {
		t.Errorf("Acquire created %s for a resume", missing)
	}
}

// TestSweepGone: a held lock means the sweep is alive; a lock file nobody holds (a
// killed sweep's) or none at all means it is gone.
func TestSweepGone(t *testing.T) {
	if !locksWork {
		t.Skip("no flock on this platform")
	}
	dir := t.TempDir()
	l, err := Acquire(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	if SweepGone(dir) {
		t.Error("SweepGone = true while the lock is held")
	}
	if _, err := Acquire(dir, false); err == nil {
		t.Error("SweepGone took the lock away from its holder: a second sweep got it")
	}
	_ = unlock(l.f) // as a SIGKILL leaves it: the file stays, nobody holds it
	if !SweepGone(dir) {
		t.Error("SweepGone = false with an unheld lock file")
	}
	l.Release()
	if !SweepGone(dir) {
		t.Error("SweepGone = false without a lock file")
	}
}

package sweep

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestRunDirLock: while one holder has the run directory, a second lock (and so a
// second Run, resumed or not) is refused with an error naming the holder's pid; after
// release the directory can be locked again.
func TestRunDirLock(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no run-directory lock on Windows")
	}
	dir := filepath.Join(t.TempDir(), "run")
	l, err := lockRunDir(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	_, err = lockRunDir(dir, false)
	want := fmt.Sprintf("in use by another sweep (pid %d", os.Getpid())
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("second lock: %v, want an error containing %q", err, want)
	}
	err = Run(context.Background(), nil, Options{OutDir: dir, Resume: true})
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Run --resume on a locked directory: %v, want an error containing %q", err, want)
	}
	err = Run(context.Background(), rtPlan("http://127.0.0.1:1/v1"), Options{OutDir: dir})
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Run into a locked directory: %v, want an error containing %q", err, want)
	}
	if _, err := os.Stat(filepath.Join(dir, FileRun)); err == nil {
		t.Errorf("a refused Run wrote %s", FileRun)
	}
	l.release()
	if _, err := os.Stat(filepath.Join(dir, FileLock)); err == nil {
		t.Errorf("%s left behind after release", FileLock)
	}
	l2, err := lockRunDir(dir, false)
	if err != nil {
		t.Fatalf("lock after release: %v", err)
	}
	l2.release()
	// A resume of a missing directory does not create it.
	missing := filepath.Join(t.TempDir(), "missing")
	if l, err := lockRunDir(missing, false); l != nil || err != nil {
		t.Errorf("missing directory: lock %v err %v, want neither", l, err)
	}
	if _, err := os.Stat(missing); err == nil {
		t.Errorf("lockRunDir created %s for a resume", missing)
	}
}

// TestSweepGone: a held lock means the sweep is alive; a lock file nobody holds (a
// killed sweep's) or none at all means it is gone.
func TestSweepGone(t *testing.T) {
	if !locksWork {
		t.Skip("no flock on this platform")
	}
	dir := t.TempDir()
	l, err := lockRunDir(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	if SweepGone(dir) {
		t.Error("SweepGone = true while the lock is held")
	}
	if _, err := lockRunDir(dir, false); err == nil {
		t.Error("SweepGone took the lock away from its holder: a second sweep got it")
	}
	_ = unlock(l.f) // as a SIGKILL leaves it: the file stays, nobody holds it
	if !SweepGone(dir) {
		t.Error("SweepGone = false with an unheld lock file")
	}
	l.release()
	if !SweepGone(dir) {
		t.Error("SweepGone = false without a lock file")
	}
}

package sweep

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/llmcap/llmcap/rundir"
)

// TestRunRefusesLockedRunDir: while another holder has the run directory's lock, Run
// (resumed or not) is refused with an error naming the holder's pid and writes nothing.
func TestRunRefusesLockedRunDir(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no run-directory lock on Windows")
	}
	dir := filepath.Join(t.TempDir(), "run")
	l, err := rundir.Acquire(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	want := fmt.Sprintf("in use by another sweep (pid %d", os.Getpid())
	err = Run(context.Background(), nil, Options{OutDir: dir, Resume: true})
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Run --resume on a locked directory: %v, want an error containing %q", err, want)
	}
	err = Run(context.Background(), rtPlan("http://127.0.0.1:1/v1"), Options{OutDir: dir})
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Run into a locked directory: %v, want an error containing %q", err, want)
	}
	if _, err := os.Stat(filepath.Join(dir, rundir.FileRun)); err == nil {
		t.Errorf("a refused Run wrote %s", rundir.FileRun)
	}
}

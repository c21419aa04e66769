//go:build linux

package tune

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/llmcap/llmcap/internal/testlock"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
)

// TestKilledTuneResumesWithoutLossOrOrphan: a tune killed with SIGKILL during its
// second trial leaves that trial's server behind (started through a shell, whose child
// the parent-death signal does not reach); `Run` with Resume stops it, keeps trial 0
// as recorded, redoes trial 1 and runs trial 2: each trial once, no server left.
func TestKilledTuneResumesWithoutLossOrOrphan(t *testing.T) {
	if testing.Short() {
		t.Skip("launches simulators and a tuner")
	}
	testlock.Hold(t) // timing-critical: not beside the other packages' heavy tests
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	command := `["/bin/sh", "-c", "'` + exe + `' --addr 127.0.0.1:{port} --speed-up 10 --max-num-seqs {max_num_seqs} & wait"]`
	planPath := simTunePlanFile(t, command, `    env: ["`+envHelper+`=sim"]
  space:
    - {name: max_num_seqs, type: int, values: [2, 4, 8]}
  algorithm: grid
`)
	dir := t.TempDir()
	tuner := exec.Command(exe)
	tuner.Env = append(os.Environ(), envHelper+"=tuner", envTunerPlan+"="+planPath, envTunerDir+"="+dir)
	var tunerLog bytes.Buffer
	tuner.Stderr = &tunerLog
	t.Cleanup(func() {
		if b := tunerLog.Bytes(); t.Failed() {
			t.Logf("the killed tuner's log (tail): %s", b[max(0, len(b)-4000):])
		}
	})
	if err := tuner.Start(); err != nil {
		t.Fatal(err)
	}
	srv := waitForTrialServer(t, dir, 1)
	time.Sleep(1500 * time.Millisecond) // into trial 1's capacity search
	if err := tuner.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = tuner.Wait()
	before, _, err := rundir.ReadTrials(dir)
	if err != nil || len(before) != 1 {
		t.Fatalf("after the kill: %d trials (%v), want trial 0 only", len(before), err)
	}
	time.Sleep(300 * time.Millisecond)
	if !groupAlive(srv.PID) {
		t.Fatalf("trial 1's server group %d is gone after the kill: the test does not exercise the orphan", srv.PID)
	}
	p, err := plan.Load(planPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), p, Options{Dir: dir, Resume: true, Executable: exe, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	if groupAlive(srv.PID) {
		t.Errorf("the killed tune's server group %d still runs after the resume", srv.PID)
	}
	after, _, err := rundir.ReadTrials(dir)
	if err != nil || len(after) != 3 || res.Trials != 3 {
		t.Fatalf("after the resume: %d trials (%v), result %d: want 3", len(after), err, res.Trials)
	}
	for i, tr := range after {
		if tr.Trial != i || !tr.OK() {
			t.Errorf("trial %d: number %d status %s %s", i, tr.Trial, tr.Status, tr.FailReason)
		}
	}
	if !after[0].StartedAt.Equal(before[0].StartedAt) {
		t.Errorf("trial 0 was redone (started %v, first %v)", after[0].StartedAt, before[0].StartedAt)
	}
	if _, ok, _ := rundir.ReadTuneServer(dir); ok {
		t.Error("tune-server.json left behind")
	}
}

// waitForTrialServer waits (up to a minute) until trial n's server is recorded.
func waitForTrialServer(t *testing.T, dir string, n int) rundir.TuneServer {
	t.Helper()
	for end := time.Now().Add(time.Minute); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if s, ok, _ := rundir.ReadTuneServer(dir); ok && s.Trial == n {
			return s
		}
	}
	t.Fatalf("trial %d's server never started", n)
	return rundir.TuneServer{}
}

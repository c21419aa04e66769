package main

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestInterruptDuringPreflight: a Ctrl-C while the preflight probe waits on the target
// says nothing was measured, not that completed steps are saved.
func TestInterruptDuringPreflight(t *testing.T) {
	probed := make(chan struct{}, 1)
	hold := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/models", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `{"object":"list","data":[{"id":"m","object":"model"}]}`)
	})
	mux.HandleFunc("/v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		select {
		case probed <- struct{}{}:
		default:
		}
		select { // never answers: the probe waits
		case <-hold:
		case <-r.Context().Done():
		}
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	defer close(hold)
	dir := filepath.Join(t.TempDir(), "run")
	cmd := exec.Command(bin, "sweep", "-c", tinyPlan(t), "-o", dir,
		"--set", "target.url="+srv.URL+"/v1", "--set", "target.model=m")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-probed:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("no probe request arrived:\n%s", errb.String())
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("interrupted preflight: %v, want exit 130\n%s", err, errb.String())
	}
	s := errb.String()
	if !strings.Contains(s, "preflight: probing the target") || !strings.Contains(s, "nothing was measured") ||
		strings.Contains(s, "completed steps are saved") {
		t.Errorf("stderr after a Ctrl-C during preflight:\n%s", s)
	}
}

// TestResumeOtherSimulatorSetting: a -c plan whose only difference is the simulator's
// max_num_seqs (which changes the steps' wall-time estimates, not the steps) is refused
// naming that field, and --force resumes with it; --set without -c is applied to the
// run's own plan under the same rules.
func TestResumeOtherSimulatorSetting(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	cfg := tinyPlan(t)
	if r := llmcap(t, nil, "sweep", "-c", cfg, "-o", dir); r.code != 0 {
		t.Fatalf("sweep: %d %s", r.code, r.stderr)
	}
	field := "target.simulator.max_num_seqs: 4 → 64"
	r := llmcap(t, nil, "sweep", "--resume", dir, "-c", cfg, "--set", "target.simulator.max_num_seqs=64")
	if r.code != 1 || !strings.Contains(r.stderr, field) || strings.Contains(r.stderr, "different steps") {
		t.Errorf("resume -c with max_num_seqs 64: exit %d, want refused naming %q\n%s", r.code, field, r.stderr)
	}
	r = llmcap(t, nil, "sweep", "--resume", dir, "--set", "target.simulator.max_num_seqs=64")
	if r.code != 1 || !strings.Contains(r.stderr, field) || !strings.Contains(r.stderr, "plan from --set") {
		t.Errorf("resume --set max_num_seqs=64: exit %d, want refused naming %q\n%s", r.code, field, r.stderr)
	}
	r = llmcap(t, nil, "sweep", "--resume", dir, "--set", "target.request_timeout=30s")
	if r.code != 0 || !strings.Contains(r.stderr, "resuming with the plan from --set") {
		t.Errorf("resume --set request_timeout: exit %d, want accepted\n%s", r.code, r.stderr)
	}
	r = llmcap(t, nil, "sweep", "--resume", dir, "-c", cfg, "--set", "target.simulator.max_num_seqs=64", "--force")
	if r.code != 0 || !strings.Contains(r.stderr, "--force: resuming") {
		t.Errorf("resume --force: exit %d\n%s", r.code, r.stderr)
	}
}

// TestKilledSweepReadsInterrupted: a run whose run.json still says running but whose
// lock nobody holds (the sweep was killed with SIGKILL) is analysed as interrupted,
// saying the sweep process is gone and how to resume; report does not call the
// analysis stale for it.
func TestKilledSweepReadsInterrupted(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	if r := llmcap(t, nil, "sweep", "-c", tinyPlan(t), "-o", dir); r.code != 0 {
		t.Fatalf("sweep: %d %s", r.code, r.stderr)
	}
	setRunState(t, dir, "complete", "running")
	if err := os.WriteFile(filepath.Join(dir, ".lock"), []byte(`{"pid":1}`), 0o644); err != nil {
		t.Fatal(err) // left behind, unlocked, as by a killed sweep
	}
	r := llmcap(t, nil, "analyze", dir)
	out := r.stdout + r.stderr
	if r.code != 0 || !strings.Contains(out, "the run is interrupted after 2 of 2 steps") ||
		!strings.Contains(out, "the sweep process is gone") || !strings.Contains(out, "llmcap sweep --resume "+dir) ||
		strings.Contains(out, "still running") {
		t.Errorf("analyze of a killed sweep: exit %d\n%s", r.code, out)
	}
	r = llmcap(t, nil, "report", dir, "--format", "json")
	if r.code != 0 || strings.Contains(r.stderr, "stale") {
		t.Errorf("report after analyze: exit %d, want no re-analysis\n%s", r.code, r.stderr)
	}
}

// TestInterruptDuringFirstStep: a Ctrl-C during the first step, after requests were
// recorded, says how many records were kept and how to resume, not that nothing was
// measured.
func TestInterruptDuringFirstStep(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	cmd := exec.Command(bin, "sweep", "-c", tinyPlan(t), "-o", dir, "--set", "ladder.duration=60s")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) { // run.json is written when the sweep starts its steps
		if _, err := os.Stat(filepath.Join(dir, "run.json")); err == nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(2 * time.Second) // requests of the first step (60 s long) complete meanwhile
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("interrupted first step: %v, want exit 130\n%s", err, errb.String())
	}
	b, err := os.ReadFile(filepath.Join(dir, "records.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	n := bytes.Count(b, []byte("\n"))
	if n == 0 {
		t.Fatalf("no record written in 2 s of the first step:\n%s", errb.String())
	}
	s := errb.String()
	want := fmt.Sprintf("interrupted before the first step completed: its %d records are kept in %s", n, filepath.Join(dir, "records.jsonl"))
	if !strings.Contains(s, want) || !strings.Contains(s, "resume with: llmcap sweep --resume "+dir) ||
		strings.Contains(s, "nothing was measured") {
		t.Errorf("stderr after a Ctrl-C in the first step, want %q:\n%s", want, s)
	}
}

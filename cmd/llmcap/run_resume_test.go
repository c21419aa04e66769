package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmcap/llmcap/rundir"
)

// completedRecordLines is the records.jsonl lines of dir's completed steps (those with a
// steps.jsonl summary).
func completedRecordLines(t *testing.T, dir string) []string {
	t.Helper()
	steps, _, err := rundir.ReadSteps(dir)
	if err != nil {
		t.Fatal(err)
	}
	done := map[int]bool{}
	for _, s := range steps {
		done[s.Index] = true
	}
	b, err := os.ReadFile(filepath.Join(dir, rundir.FileRecords))
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for i, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		var r rundir.Record
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("records.jsonl line %d: %v", i+1, err)
		}
		if done[r.Step] {
			lines = append(lines, line)
		}
	}
	return lines
}

// TestRunInterruptAndResume: a `run` stopped by SIGINT after its first step names
// `llmcap run --resume DIR`; that command completes the steps, keeps the completed
// steps' records unchanged, and analyses and reports the run.
func TestRunInterruptAndResume(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	cmd := exec.Command(bin, "run", "-c", "configs/demo.yaml", "-o", dir,
		"--set", "target.simulator.speed_up=20", "--set", "ladder.concurrency=[1,2,4]",
		"--set", "ladder.duration=1s", "--set", "ladder.warmup.duration=0s", "--set", "ladder.mix=false",
		"--set", "ladder.per_segment=true", "--set", "report.formats=[json,md]")
	cmd.Dir = "../.."
	var errb bytes.Buffer
	cmd.Stderr = &errb
	interruptAfterFirstStep(t, cmd, dir)
	var ee *exec.ExitError
	if err := cmd.Wait(); !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("interrupted run: %v, want exit 130\n%s", err, errb.String())
	}
	if want := "resume with: llmcap run --resume " + dir; !strings.Contains(errb.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, errb.String())
	}
	before := completedRecordLines(t, dir)
	if len(before) == 0 {
		t.Fatal("no records of the completed steps before the resume")
	}
	if _, err := os.Stat(filepath.Join(dir, "analysis.json")); err == nil {
		t.Fatal("the interrupted run was analysed")
	}
	r := llmcap(t, nil, "run", "--resume", dir)
	if r.code != 0 {
		t.Fatalf("run --resume: exit %d:\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	steps, _, err := rundir.ReadSteps(dir)
	if err != nil || len(steps) != 9 {
		t.Errorf("after run --resume: %d steps (%v), want 9", len(steps), err)
	}
	after := completedRecordLines(t, dir)
	if len(after) <= len(before) || strings.Join(after[:len(before)], "\n") != strings.Join(before, "\n") {
		t.Errorf("records: %d before, %d after; want more after, the first %d unchanged", len(before), len(after), len(before))
	}
	for _, f := range []string{"analysis.json", "report.json", "summary.md"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("run --resume did not write %s: %v", f, err)
		}
	}
	if !strings.Contains(r.stdout, "Answer:") || !strings.Contains(r.stdout, "outputs in") {
		t.Errorf("run --resume printed no summary or outputs:\n%s", r.stdout)
	}
}

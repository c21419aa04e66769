package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/llmcap/llmcap/sweep"
)

// TestOpenFilesCheckedBeforeRunDir: a ladder needing more open files than the hard
// limit fails `run` before the run directory exists; `plan` warns about it.
func TestOpenFilesCheckedBeforeRunDir(t *testing.T) {
	_, hard, ok := sweep.OpenFilesLimit()
	if !ok || hard > 1<<24 {
		t.Skipf("open-files hard limit unknown or unlimited (%d)", hard)
	}
	conc := "--set=ladder.concurrency=[" + strconv.FormatUint(hard, 10) + "]" // the simulator doubles it
	dir := filepath.Join(t.TempDir(), "run")
	r := llmcap(t, nil, "run", "-c", tinyPlan(t), "-o", dir, conc)
	if r.code == 0 || !strings.Contains(r.stderr, "open files (connections) but the limit is") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Errorf("run directory %s created before the open-files check failed", dir)
	}
	r = llmcap(t, nil, "plan", "-c", tinyPlan(t), conc)
	if r.code != 0 || !strings.Contains(r.stderr, "run and sweep will refuse this plan") {
		t.Errorf("plan: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestNoTargetWarns: a plan without target.url says it drives the simulator, with the
// simulator's settings; one with target.url does not.
func TestNoTargetWarns(t *testing.T) {
	r := llmcap(t, nil, "plan", "-c", tinyPlan(t))
	if r.code != 0 || !strings.Contains(r.stderr, "no target.url in the plan: driving the embedded simulator (llama-3.1-8b on H100-SXM×1, max_num_seqs 4)") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
	r = llmcap(t, nil, "plan", "-c", tinyPlan(t), "--set", "target.url=simulator")
	if strings.Contains(r.stderr, "no target.url") {
		t.Errorf("explicit target.url still warned: %q", r.stderr)
	}
}

// TestSetListItem: --set reaches list items by index.
func TestSetListItem(t *testing.T) {
	r := llmcap(t, nil, "plan", "-c", "configs/demo.yaml", "--json", "--set", "segments[2].weight=55")
	if r.code != 0 || !strings.Contains(r.stdout, `"weight": 55`) {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
}

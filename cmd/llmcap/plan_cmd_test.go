package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/sweep"
)

// TestOpenFilesCheckedBeforeRunDir: a ladder needing more open files than the hard
// limit fails `run` before the run directory exists, and `plan` fails as run would,
// naming the ladder's concurrency; a rate ladder's message names the rate.
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
	if r.code == 0 || !strings.Contains(r.stderr, "open files (connections) but the limit is") ||
		!strings.Contains(r.stderr, "(or lower the ladder's concurrency)") || strings.Contains(r.stdout, "estimated wall time") {
		t.Errorf("plan: exit %d, stderr %q, stdout %q; want a failure as run's, no plan printed", r.code, r.stderr, r.stdout)
	}
	if hard >= plan.MaxRate {
		return // a rate that needs more is refused by validation first
	}
	rate := "--set=ladder.rate=[" + strconv.FormatUint(hard, 10) + "]"
	r = llmcap(t, nil, "plan", "-c", tinyPlan(t), "--set=ladder.concurrency=[]", rate)
	if r.code == 0 || !strings.Contains(r.stderr, "(or lower the ladder's rate, or cap it with ladder.max_concurrency)") {
		t.Errorf("plan with a rate ladder: exit %d, stderr %q", r.code, r.stderr)
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

// TestPlanBrokenTrace: `llmcap plan` fails (exit 2, no step table) on a trace file that
// is empty or not its format, naming the field, the format and why.
func TestPlanBrokenTrace(t *testing.T) {
	for name, data := range map[string]string{"empty": "", "not JSON": "{\"timestamp\": 0, oops\n"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			trace := filepath.Join(dir, "trace.jsonl")
			if err := os.WriteFile(trace, []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg := filepath.Join(dir, "plan.yaml")
			yaml := "segments:\n  - {name: replay, weight: 1, trace: {format: mooncake, file: trace.jsonl}}\nsla: {ttft_ms: {p95: 500}}\n"
			if err := os.WriteFile(cfg, []byte(yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			r := llmcap(t, nil, "plan", "-c", cfg)
			want := "segments[0].trace.file: " + strconv.Quote(trace) + " is not allowed: must be a Mooncake trace: "
			if r.code == 0 || !strings.Contains(r.stderr, want) {
				t.Errorf("exit %d, stderr %q; want a failure saying %q", r.code, r.stderr, want)
			}
			if strings.Contains(r.stdout, "estimated wall time") {
				t.Errorf("the plan was printed despite the broken trace:\n%s", r.stdout)
			}
		})
	}
}

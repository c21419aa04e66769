package main

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmcap/llmcap/analysis"
)

func TestAnalyzeUsage(t *testing.T) {
	r := llmcap(t, nil, "analyze")
	if r.code != 2 || !strings.Contains(r.stderr, "usage: llmcap analyze RUN_DIR") {
		t.Errorf("analyze without args: exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestRunUnreachableTargetFailsFast(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String() + "/v1"
	ln.Close()
	dir := filepath.Join(t.TempDir(), "run")
	r := llmcap(t, nil, "run", "-c", tinyPlan(t), "-o", dir, "--set", "target.url="+url, "--set", "target.model=m")
	want := "llmcap: sweep: cannot reach target " + url + ": connection refused (" + dir + " removed: the preflight failed)\n"
	if r.code == 0 || !strings.HasSuffix(r.stderr, want) {
		t.Fatalf("exit %d, stderr %q, want it to end %q", r.code, r.stderr, want)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the failed preflight left %s behind (stat: %v)", dir, err)
	}
}

func TestNoSLA(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "nosla.yaml")
	yaml := "name: nosla\nsegments:\n  - {name: a, weight: 1, prompt_tokens: {dist: fixed, value: 8}, output_tokens: {dist: fixed, value: 4}}\n" +
		"ladder: {concurrency: [1], duration: 1s}\n" +
		"sla: {max_error_rate: 0.01}\n" // an sla section without latency bounds (a plan without one gets the default SLA)
	if err := os.WriteFile(cfg, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	r := llmcap(t, nil, "plan", "-c", cfg)
	if r.code != 0 || !strings.Contains(r.stderr, "no SLA: capacity is undefined") || !strings.Contains(r.stdout, ": 1 step against") {
		t.Errorf("plan: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	r = llmcap(t, nil, "run", "-c", cfg, "-o", filepath.Join(t.TempDir(), "r"))
	if r.code != 1 || !strings.Contains(r.stderr, "no SLA: capacity is undefined") {
		t.Errorf("run: exit %d\n%s", r.code, r.stderr)
	}
}

func TestResumeWithDifferentPlanRefused(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	cfg := tinyPlan(t)
	if r := llmcap(t, nil, "sweep", "-c", cfg, "-o", dir); r.code != 0 {
		t.Fatalf("sweep: %d %s", r.code, r.stderr)
	}
	r := llmcap(t, nil, "sweep", "--resume", dir, "-c", cfg, "--set", "ladder.concurrency=[1,2,4]")
	if r.code != 1 || !strings.Contains(r.stderr, "the plan from -c "+cfg+" has different steps than the run (3 steps vs 2 steps; step 3: the run has none, the plan's") ||
		strings.Contains(r.stderr, "sweep starting") {
		t.Errorf("resume with other steps: exit %d\n%s", r.code, r.stderr)
	}
	r = llmcap(t, nil, "sweep", "--resume", dir, "-c", cfg)
	if r.code != 0 || !strings.Contains(r.stderr, "resuming with the plan from -c") {
		t.Errorf("resume with the same steps: exit %d\n%s", r.code, r.stderr)
	}
}

// TestRenderHonoursCancel: a cancelled context renders nothing and says so, exit 130.
func TestRenderHonoursCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dir := t.TempDir()
	err := renderReport(ctx, io.Discard, dir, &analysis.Analysis{}, []string{"json", "markdown", "xlsx"})
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != 130 || !strings.Contains(err.Error(), "written none; not written json, md, xlsx") {
		t.Fatalf("err = %v, want exit 130 naming what was not written", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("rendered after cancellation: %v", entries)
	}
}

package profiles

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmcap/llmcap/rundir"
	"github.com/llmcap/llmcap/rundir/rundirtest"
	"github.com/llmcap/llmcap/sla"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/sweep"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func capturePlan(mode string) *plan.Plan {
	p := plan.Default()
	p.Segments = []plan.Segment{{Name: "chat", Weight: 1,
		PromptTokens: plan.Dist{Kind: plan.DistFixed, Value: 32}, OutputTokens: plan.Dist{Kind: plan.DistFixed, Value: 8}}}
	p.Ladder.Concurrency = []int{1, 2}
	p.Ladder.Requests = 4
	p.Target.Simulator.SpeedUp = 50
	p.Capture = plan.Capture{Enabled: true, Mode: mode, SessionName: "llmcap-test", Trace: "osrt",
		Steps: []plan.CaptureStep{{Segment: "chat", Concurrency: 2}}}
	return p
}

func step(idx, conc int) plan.Step {
	return plan.Step{Index: idx, Segment: "chat", Schedule: plan.ScheduleConcurrency, Concurrency: conc}
}

func TestFindNsysConfiguredMissing(t *testing.T) {
	_, err := FindNsys("/nonexistent/bin/nsys")
	if !errors.Is(err, ErrNsysNotFound) || !strings.Contains(err.Error(), "capture.nsys_path") {
		t.Fatalf("err = %v, want ErrNsysNotFound naming capture.nsys_path", err)
	}
	_, err = FindNsys(t.TempDir()) // a directory
	if !errors.Is(err, ErrNsysNotFound) {
		t.Fatalf("directory as nsys: err = %v", err)
	}
}

func TestDetectReportNames(t *testing.T) {
	old := "  gpukernsum[:base|:mangled] -- CUDA GPU Kernel Summary\n  osrtsum -- OS Runtime Summary\n"
	nw := "  cuda_gpu_kern_sum[:nvtx-name][:base|:mangled] -- CUDA GPU Kernel Summary\n  osrt_sum -- OS Runtime Summary\n"
	if g := DetectReportNames(old); g.Kernels != "gpukernsum" || g.OSRT != "osrtsum" {
		t.Errorf("old: %+v", g)
	}
	if g := DetectReportNames(nw); g.Kernels != "cuda_gpu_kern_sum" || g.OSRT != "osrt_sum" || g.CUDAAPI != "cuda_api_sum" {
		t.Errorf("new: %+v", g)
	}
}

func TestSelection(t *testing.T) {
	p := capturePlan(ModeSession)
	c, err := NewCapturer(p, quiet)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if c.Selected(step(0, 1), dir) || !c.Selected(step(1, 2), dir) {
		t.Error("explicit concurrency match wrong")
	}
	mix := plan.Step{Index: 2, Segment: "mix", Schedule: plan.ScheduleRate, Rate: 2.5}
	if c.Selected(mix, dir) {
		t.Error("mix step selected")
	}
	c.cfg.Steps = []plan.CaptureStep{{Segment: "MIX", Rate: 2.5}}
	if !c.Selected(mix, dir) || c.Selected(step(1, 2), dir) {
		t.Error("rate match wrong")
	}
	if got := StepDir(mix); got != filepath.Join("profiles", "step-002-mix-r2p5") {
		t.Errorf("StepDir = %s", got)
	}
	// Knee: capture while earlier steps of the segment pass the quick SLA check.
	c.cfg.Steps, c.cfg.Knee = nil, true
	p.SLA.TTFTMs = map[string]float64{"p95": 100}
	writeRecords(t, dir, []rundir.Record{rec(0, 50), rec(0, 60), rec(1, 90), rec(1, 500), rec(1, 400)})
	if !c.Selected(step(1, 2), dir) {
		t.Error("step 1 (after a passing step 0) not selected")
	}
	// Step 1's p95 TTFT is 500 ms > 100: step 1 was the knee, so step 2 is past it.
	if c.Selected(step(2, 4), dir) {
		t.Error("step 2 selected after step 1 failed the SLA")
	}
}

func rec(stepIdx int, ttft float64) rundir.Record {
	return rundir.Record{Segment: "chat", Step: stepIdx, Phase: rundir.PhaseMeasure, Status: rundir.StatusOK, OutputTokens: 8, TTFTMs: &ttft}
}

func writeRecords(t *testing.T, dir string, recs []rundir.Record) {
	t.Helper()
	rundirtest.Write(t, dir, rundirtest.Run{Records: recs})
}

func TestQuickSLACheck(t *testing.T) {
	spec := plan.SLA{TTFTMs: map[string]float64{"p95": 100, "mean": 80}, MaxErrorRate: 0.2}
	pass := []rundir.Record{rec(0, 10), rec(0, 20), rec(0, 90)}
	if v := QuickSLACheck(pass, spec); !v.Pass {
		t.Errorf("passing step failed: %s", v)
	}
	// [10 20 90 150]: rank 3·0.95 = 2.85, p95 = 90 + 0.85·60 = 141 ms.
	v := QuickSLACheck(append(pass, rec(0, 150)), spec)
	if c := v.Violations(); v.Pass || len(c) != 1 || c[0].Bound.Metric != sla.TTFT || c[0].Bound.Stat != sla.P95 ||
		math.Abs(c[0].Value-141) > 1e-9 || v.String() != "ttft p95 141 ms > 100 ms" {
		t.Errorf("p95 141 ms: %+v %q", v, v)
	}
	bad := rundir.Record{Step: 0, Phase: rundir.PhaseMeasure, Status: rundir.StatusError}
	if v := QuickSLACheck(append(pass, bad, bad), spec); v.Pass || !strings.Contains(v.String(), "error rate 40.0% > 20.0%") {
		t.Errorf("40%% errors: %+v %q", v, v)
	}
	if v := QuickSLACheck(nil, spec); v.Pass || !v.Empty {
		t.Errorf("no records: %+v", v)
	}
}

func TestCapturerNsysMissing(t *testing.T) {
	p := capturePlan(ModeSession)
	p.Capture.NsysPath = "/nonexistent/nsys"
	c, err := NewCapturer(p, quiet)
	if err != nil {
		t.Fatal(err)
	}
	if c.Err() == nil {
		t.Fatal("Err() = nil with a missing nsys")
	}
	dir := t.TempDir()
	if err := c.BeforeMeasure(context.Background(), step(0, 1), dir); err != nil {
		t.Errorf("unselected step: %v", err)
	}
	err = c.BeforeMeasure(context.Background(), step(1, 2), dir)
	if err == nil || !strings.Contains(err.Error(), "capture.nsys_path") {
		t.Fatalf("BeforeMeasure err = %v, want one naming capture.nsys_path", err)
	}
	if got, err := c.AfterMeasure(context.Background(), step(1, 2), dir); got != "" || err != nil {
		t.Errorf("AfterMeasure = %q, %v", got, err)
	}
}

// fakeNsys writes an executable nsys stand-in that prints msg and exits with code.
func fakeNsys(t *testing.T, msg string, code int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "nsys")
	script := "#!/bin/sh\necho \"" + msg + "\" >&2\nexit " + string(rune('0'+code)) + "\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCapturerNsysFailing(t *testing.T) {
	p := capturePlan(ModeSession)
	p.Capture.NsysPath = fakeNsys(t, "Error: session llmcap-test not found", 1)
	c, err := NewCapturer(p, quiet)
	if err != nil || c.Err() != nil {
		t.Fatalf("NewCapturer: %v, %v", err, c.Err())
	}
	dir := t.TempDir()
	err = c.BeforeMeasure(context.Background(), step(1, 2), dir)
	if err == nil || !strings.Contains(err.Error(), "capture start") || !strings.Contains(err.Error(), "session llmcap-test not found") {
		t.Fatalf("BeforeMeasure err = %v", err)
	}
	// A delayed start fails in the background; AfterMeasure reports it.
	c.cfg.Delay = 10 * time.Millisecond
	if err := c.BeforeMeasure(context.Background(), step(1, 2), dir); err != nil {
		t.Fatalf("delayed BeforeMeasure: %v", err)
	}
	time.Sleep(100 * time.Millisecond)
	if _, err := c.AfterMeasure(context.Background(), step(1, 2), dir); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Fatalf("AfterMeasure err = %v", err)
	}
}

// TestSweepCompletesWhenCaptureFails runs a real sweep against the embedded simulator
// with a capture that cannot run: the sweep completes and steps.jsonl says why.
func TestSweepCompletesWhenCaptureFails(t *testing.T) {
	p := capturePlan(ModeSession)
	p.Capture.NsysPath = "/nonexistent/nsys"
	c, err := NewCapturer(p, quiet)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := sweep.Run(context.Background(), p, sweep.Options{OutDir: dir, Hook: c, Logger: quiet}); err != nil {
		t.Fatalf("sweep failed: %v", err)
	}
	f, err := os.Open(filepath.Join(dir, rundir.FileSteps))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var sums []rundir.StepSummary
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var s rundir.StepSummary
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatal(err)
		}
		sums = append(sums, s)
	}
	if len(sums) != 2 {
		t.Fatalf("%d steps, want 2", len(sums))
	}
	if sums[0].CaptureError != "" || !strings.Contains(sums[1].CaptureError, "capture.nsys_path") || sums[1].MeasureRequests != 4 {
		t.Errorf("steps: %+v", sums)
	}
}

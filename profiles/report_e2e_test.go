package profiles

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmcap/llmcap/analysis"
	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/report"
	"github.com/llmcap/llmcap/sweep"
)

// fixtureHook is a sweep.StepHook that, as each step's window closes, converts recorded
// nsys stats tables (real captures) into the step's capture directory with
// ConvertTables — what Capturer.AfterMeasure does after `nsys stats`.
type fixtureHook struct{ tables Tables }

func (fixtureHook) BeforeMeasure(context.Context, plan.Step, string) error { return nil }

func (h fixtureHook) AfterMeasure(_ context.Context, st plan.Step, runDir string) (string, error) {
	rel := StepDir(st)
	dir := filepath.Join(runDir, rel)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	s := Summary{Step: st.Index, Segment: st.Segment, Schedule: st.Schedule, Load: st.Load(), Phase: phaseOf(st), DurationNs: 4e9}
	if _, err := ConvertTables(dir, h.tables, s); err != nil {
		return "", err
	}
	return rel, nil
}

// kneePlan is a real sweep on the embedded simulator whose later steps queue (2 slots,
// concurrency up to 8) and break a tight TTFT SLA, so the ladder has a knee.
func kneePlan(trace string) *plan.Plan {
	p := capturePlan(ModeSession)
	p.Ladder.Concurrency = []int{1, 2, 8}
	p.Ladder.Requests = 16
	p.Target.Simulator.MaxNumSeqs = 2
	p.Target.Simulator.SpeedUp = 10
	p.Segments[0].PromptTokens = plan.Dist{Kind: plan.DistFixed, Value: 512}
	p.Segments[0].OutputTokens = plan.Dist{Kind: plan.DistFixed, Value: 64}
	p.SLA = plan.SLA{TTFTMs: map[plan.Percentile]float64{"p95": 5}, MaxErrorRate: 0.05}
	p.Capture.Trace = trace
	return p
}

// runAndReport sweeps p with hook, analyses the run and writes the PDF, summary.md and
// report.json; it returns the run directory and the analysis.
func runAndReport(t *testing.T, p *plan.Plan, hook sweep.StepHook) (string, *analysis.Analysis) {
	t.Helper()
	dir := t.TempDir()
	if err := sweep.Run(context.Background(), p, sweep.Options{OutDir: dir, Hook: hook, Logger: quiet}); err != nil {
		t.Fatalf("sweep: %v", err)
	}
	a, err := analysis.Analyze(dir)
	if err != nil {
		t.Fatalf("analyze: %v", err)
	}
	if err := analysis.WriteJSON(dir, a); err != nil {
		t.Fatal(err)
	}
	if err := report.Write(dir, a, []string{"pdf", "md", "json"}); err != nil {
		t.Fatalf("report: %v", err)
	}
	return dir, a
}

// firstFailing returns the first step (by load) of the segment that broke the SLA and
// its load.
func firstFailing(t *testing.T, a *analysis.Analysis) (int, float64) {
	t.Helper()
	for _, st := range a.Segments[0].Steps {
		if !st.MeetsSLA {
			return st.Step, st.Load
		}
	}
	t.Fatalf("no step broke the SLA: %+v", a.Segments[0].Steps)
	return -1, 0
}

// TestKneeKernelsEndToEnd: a real sweep whose every step gets the kernel data of the real
// H200 recording yields analysis.json with the knee capture (the first step over the
// SLA) first, its top kernels and class shares as the fixture's, and a report whose
// PDF, summary.md and report.json show "Where GPU time goes at the knee".
func TestKneeKernelsEndToEnd(t *testing.T) {
	const fixture = "testdata/kernels-2025.3-h200_cuda_gpu_kern_sum.csv"
	dir, a := runAndReport(t, kneePlan(DefaultTrace), fixtureHook{Tables{KindKernels: fixture}})
	rows, err := ReadStatsCSV(fixture)
	if err != nil {
		t.Fatal(err)
	}
	want := KernelRows(rows)
	wantShares := ClassShares(want)
	if len(a.Kernels) != 3 {
		t.Fatalf("%d kernel summaries, want one per step (3)", len(a.Kernels))
	}
	k := a.Kernels[0]
	if step, load := firstFailing(t, a); !k.Knee || k.Step != step || k.Segment != "chat" || k.Load != load || !strings.Contains(k.KneeReason, "broke the SLA") {
		t.Errorf("first summary: step %d load %g knee %v %q; want the knee at the first failing step %d (load %g)",
			k.Step, k.Load, k.Knee, k.KneeReason, step, load)
	}
	if len(k.Top) != len(want) || k.Top[0].Name != want[0].Name || k.Top[0].TotalTimeNs != want[0].TotalTimeNs || k.GPUTimeNs != 16917483 {
		t.Errorf("top kernels %+v, GPU time %d; want %s first (16,917,483 ns in all)", k.Top[:1], k.GPUTimeNs, want[0].Name)
	}
	for c, v := range wantShares {
		if math.Abs(k.ClassShares[c]-v) > 1e-9 {
			t.Errorf("class %s share %.4f, want %.4f", c, k.ClassShares[c], v)
		}
	}
	for _, o := range a.Kernels[1:] {
		if o.Knee || o.NoGPU != "" {
			t.Errorf("other capture %+v", o)
		}
	}
	md := readFile(t, filepath.Join(dir, report.FileMarkdown))
	for _, s := range []string{"## Where GPU time goes at the knee", "— the knee**", "The knee: the first captured step that broke the SLA.",
		"gemm " + pctText(wantShares[ClassGEMM]), want[0].Name, "Other captured steps"} {
		if !strings.Contains(md, s) {
			t.Errorf("summary.md lacks %q", s)
		}
	}
	var rj struct {
		Analysis struct {
			Kernels []analysis.KernelSummary `json:"kernels"`
		} `json:"analysis"`
	}
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(dir, report.FileJSON))), &rj); err != nil ||
		len(rj.Analysis.Kernels) != 3 || !rj.Analysis.Kernels[0].Knee || rj.Analysis.Kernels[0].Top[0].Name != want[0].Name {
		t.Errorf("report.json kernels: %v %+v", err, rj.Analysis.Kernels)
	}
	checkPDFText(t, filepath.Join(dir, report.FilePDF), "Where GPU time goes at the knee", "by kernel class: gemm", "nvjet_sm90")
}

// TestKneeOSRuntimeEndToEnd: with an osrt-only capture (the serve-sim case) the report
// says plainly that no GPU trace was captured and shows the OS runtime calls instead.
func TestKneeOSRuntimeEndToEnd(t *testing.T) {
	const fixture = "testdata/osrt-2022.4_osrtsum.csv"
	dir, a := runAndReport(t, kneePlan("osrt"), fixtureHook{Tables{KindOSRT: fixture}})
	k := a.Kernels[0]
	if step, _ := firstFailing(t, a); !k.Knee || k.Step != step || len(k.Top) != 0 || len(k.OSRuntime) == 0 || k.OSRuntime[0].Name != "poll" ||
		!strings.Contains(k.NoGPU, "no GPU trace was captured") || k.WindowNs != 4e9 {
		t.Errorf("knee summary %+v", k)
	}
	md := readFile(t, filepath.Join(dir, report.FileMarkdown))
	for _, s := range []string{"## Profile at the knee (no GPU trace)", "no GPU trace was captured (capture.trace is \"osrt\", without cuda)",
		"| OS runtime call | time ms | calls | avg µs | share |", "| poll |"} {
		if !strings.Contains(md, s) {
			t.Errorf("summary.md lacks %q", s)
		}
	}
	if strings.Contains(md, "Where GPU time goes") {
		t.Error("summary.md claims a GPU breakdown for an osrt-only capture")
	}
	checkPDFText(t, filepath.Join(dir, report.FilePDF), "Profile at the knee (no GPU trace)", "OS runtime call", "poll")
}

// pctText formats a 0..1 share as the report does ("65.1%").
func pctText(v float64) string {
	b, _ := json.Marshal(math.Round(1000*v) / 10)
	return string(b) + "%"
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// checkPDFText checks the PDF's text (pdftotext, poppler-utils) for each of wants; it
// says so and checks only that the PDF exists when pdftotext is missing.
func checkPDFText(t *testing.T, path string, wants ...string) {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Logf("pdftotext missing (install poppler-utils): PDF text not checked")
		return
	}
	out, err := exec.Command("pdftotext", "-layout", path, "-").Output()
	if err != nil {
		t.Fatalf("pdftotext: %v", err)
	}
	text := strings.Join(strings.Fields(string(out)), " ")
	for _, w := range wants {
		if !strings.Contains(text, w) {
			t.Errorf("PDF text lacks %q", w)
		}
	}
}

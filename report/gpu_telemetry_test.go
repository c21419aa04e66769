package report

import (
	"context"
	"io"
	"log/slog"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/llmcap/llmcap/analysis"
	"github.com/llmcap/llmcap/analysis/dcgmtest"
	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/sweep"
)

// dcgmRun sweeps the embedded simulator (2 × H100, prefix caching on, prompts sharing a
// 128-token prefix) with target.metrics_urls pointing first at a loopback
// dcgm-exporter serving the recorded scrape, analyses it and writes the PDF, HTML and
// workbook; it returns the analysis, the run directory and the recorded GPUs' summed
// power (W).
func dcgmRun(t *testing.T) (*analysis.Analysis, string, float64) {
	t.Helper()
	if testing.Short() {
		t.Skip("drives the embedded simulator for about 6 s: skipped with -short")
	}
	lowDPI(t)
	exp, err := dcgmtest.Start(dcgmtest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer exp.Close()
	gpus, err := dcgmtest.Recorded()
	if err != nil {
		t.Fatal(err)
	}
	p := &plan.Plan{Name: "dcgm-report", Seed: 7,
		Target: plan.Target{URL: plan.TargetSimulator, API: "chat", Model: "llama-3.1-8b",
			ExtraBody: map[string]any{"ignore_eos": true},
			Simulator: plan.Simulator{GPU: "H100-SXM", Model: "llama-3.1-8b", TensorParallel: 2, MaxNumSeqs: 16,
				MaxNumBatchedTokens: 8192, GPUMemoryUtilization: 0.9, BlockSize: 16, SpeedUp: 1, PrefixCaching: true},
			MetricsURLs: []string{exp.URL}, MetricsInterval: 100 * time.Millisecond},
		Segments: []plan.Segment{{Name: "chat", Weight: 1, SharedPrefixTokens: 128,
			PromptTokens: plan.Dist{Kind: plan.DistFixed, Value: 256}, OutputTokens: plan.Dist{Kind: plan.DistFixed, Value: 48}}},
		Ladder: plan.Ladder{Concurrency: []int{2, 8},
			Warmup: plan.Warmup{Duration: 300 * time.Millisecond}, Duration: 2500 * time.Millisecond, Grace: 10 * time.Second},
		SLA:    plan.SLA{TTFTMs: map[string]float64{"p95": 2000}, MaxErrorRate: 0.01, ThinkTime: 5 * time.Second},
		Report: plan.Report{TargetUsers: []int{100}, GPUHourUSD: 2.5, Headroom: 0.2, PowerUSDPerKWh: 0.15},
	}
	dir := t.TempDir()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	if err := sweep.Run(context.Background(), p, sweep.Options{OutDir: dir, Logger: quiet}); err != nil {
		t.Fatal(err)
	}
	a, err := analysis.Analyze(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := Write(dir, a, []string{"pdf", "html", "xlsx"}); err != nil {
		t.Fatal(err)
	}
	var w float64
	for _, g := range gpus {
		w += g.PowerW
	}
	return a, dir, w
}

// The PDF, the HTML report and the workbook of a run that scraped a dcgm-exporter show
// each step's GPU power (the recorded 512.437 W + 487.962 W), J per output token
// (that power ÷ the step's output tokens/s), the prefix-cache hit rate, the energy at
// capacity and the what-if row's energy cost; the server-queue chart still reads the
// simulator's endpoint, listed after the exporter.
func TestReportShowsDCGMTelemetry(t *testing.T) {
	a, dir, wantW := dcgmRun(t)
	if math.Abs(wantW-1000.399) > 1e-9 {
		t.Fatalf("recorded power %v W", wantW)
	}
	seg := a.Segments[0]
	var want []string
	for _, s := range seg.Steps {
		g := s.GPU
		if g == nil || s.Server == nil || s.Server.PrefixCache == nil {
			t.Fatalf("step %d: GPU %+v, server %+v", s.Step, g, s.Server)
		}
		wantJ := wantW / s.OutputTokenThroughput
		if math.Abs(g.PowerW-wantW)/wantW > 0.01 || math.Abs(g.JoulesPerOutputToken-wantJ)/wantJ > 0.01 {
			t.Errorf("step %d: %v W, %v J/token; want %v W, %v J/token", s.Step, g.PowerW, g.JoulesPerOutputToken, wantW, wantJ)
		}
		want = append(want, strings.Join([]string{loadText(s.Load), pct(g.UtilizationMean), auto(g.MemoryUsedMiBMax / 1024), auto(g.PowerW),
			auto(g.JoulesPerOutputToken), auto(g.OutputTokensPerJoule), pct(s.Server.PrefixCache.HitRate)}, " "))
	}
	// The power is the energy counter's rise over the step's wall time, so it reads
	// 1,000 or 1,001 W by when the scrapes fell (its 1% bound is checked above).
	if got := want[0]; !strings.HasPrefix(got, "2 95.5% 146 1,00") || !strings.HasSuffix(got, " 50.0%") {
		t.Errorf("step row %q; want load 2, 95.5%% utilisation, 146 GiB, about 1,000 W, …, 50.0%% prefix hits", got)
	}
	skipIfAllLate(t, seg.Steps)
	e := seg.Capacity.Energy
	if e == nil {
		t.Fatalf("no energy at capacity %+v", seg.Capacity)
	}
	atCap := "At capacity: " + auto(e.PowerW) + " W, " + auto(e.JoulesPerOutputToken) + " J per output token"
	w := a.WhatIf[0]
	if w.EnergyCostPerMonthUSD <= 0 {
		t.Fatalf("what-if %+v has no energy cost", w)
	}
	cost := sizingUSD(w.EnergyCostPerMonthUSD) + " " + sizingUSDCents(w.EnergyCostPerMOutputUSD)

	if _, err := exec.LookPath("pdftotext"); err == nil {
		out, err := exec.Command("pdftotext", "-enc", "UTF-8", filepath.Join(dir, FilePDF), "-").Output()
		if err != nil {
			t.Fatal(err)
		}
		pdf := strings.Join(strings.Fields(string(out)), " ")
		for _, s := range append(want, telemetryHeading, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "2 × NVIDIA H100 80GB HBM3 on gpu-node-07", atCap, cost) {
			if !strings.Contains(pdf, s) {
				t.Errorf("PDF text lacks %q", s)
			}
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, FileHTML))
	if err != nil {
		t.Fatal(err)
	}
	html := string(b)
	for _, s := range []string{telemetryHeading, `<th scope="col">J / output token</th>`, ">" + auto(seg.Steps[1].GPU.JoulesPerOutputToken) + "<", atCap,
		">" + sizingUSD(w.EnergyCostPerMonthUSD) + "<", "energy / month", `id="chart-server-queue"`} {
		if !strings.Contains(html, s) {
			t.Errorf("HTML lacks %q", s)
		}
	}
	checkTelemetryWorkbook(t, filepath.Join(dir, FileXLSX), a, wantW)
}

// skipIfAllLate skips the rest of a test (the capacity's figures) when every step ran on
// a starved simulator: the capacity then has no evidence, so no energy at capacity.
func skipIfAllLate(t *testing.T, steps []analysis.StepStats) {
	t.Helper()
	for _, s := range steps {
		if !s.SimulatorLate {
			return
		}
	}
	t.Skip("every step ran on a starved simulator (a loaded machine): no capacity to check the energy at")
}

// checkTelemetryWorkbook: the Steps sheet's J per output token and power cells are the
// analysis's, and the GPUs sheet holds each GPU's recorded power, per step.
func checkTelemetryWorkbook(t *testing.T, path string, a *analysis.Analysis, wantW float64) {
	t.Helper()
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := f.GetRows(SheetSteps)
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	jc, pc, hc := col["J per output token"], col["GPU power (W)"], col["prefix-cache hit rate"]
	if jc == 0 || pc == 0 || hc == 0 {
		t.Fatalf("Steps header %v lacks the telemetry columns", rows[0])
	}
	for i, s := range a.Segments[0].Steps {
		j, _ := f.GetCellValue(SheetSteps, cellName(jc+1, i+2, false), excelize.Options{RawCellValue: true})
		p, _ := f.GetCellValue(SheetSteps, cellName(pc+1, i+2, false), excelize.Options{RawCellValue: true})
		jv, _ := strconv.ParseFloat(j, 64)
		pv, _ := strconv.ParseFloat(p, 64)
		if math.Abs(jv-s.GPU.JoulesPerOutputToken) > 1e-9 || math.Abs(pv-wantW)/wantW > 0.01 {
			t.Errorf("Steps row %d: %v J/token, %v W; want %v, %v W", i+2, jv, pv, s.GPU.JoulesPerOutputToken, wantW)
		}
	}
	gr, err := f.GetRows(SheetGPUs)
	if err != nil {
		t.Fatal(err)
	}
	if len(gr) != 1+2*len(a.Segments[0].Steps) {
		t.Fatalf("GPUs sheet has %d rows, want a header and 2 GPUs × %d steps", len(gr), len(a.Segments[0].Steps))
	}
	for _, r := range gr[1:] {
		want := map[string]float64{"0": 512.437, "1": 487.962}[r[3]]
		v, _ := strconv.ParseFloat(r[9], 64)
		if want == 0 || math.Abs(v-want)/want > 0.01 || r[5] != "NVIDIA H100 80GB HBM3" {
			t.Errorf("GPUs row %v: gpu %s at %v W, want %v W", r, r[3], v, want)
		}
	}
}

// A run without GPU telemetry or a prefix cache shows nothing new: no telemetry table
// or note, no energy columns, no GPUs sheet, no telemetry columns on the Steps sheet.
func TestNoTelemetryShowsNothingNew(t *testing.T) {
	a := fxAnalysis()
	for _, seg := range allSegments(a) {
		if hdr, _ := telemetryTable(a, seg); hdr != nil || telemetryNote(seg) != "" {
			t.Errorf("segment %s: telemetry table %v without telemetry", seg.Segment, hdr)
		}
	}
	if hdr, _ := whatIfRows(a); len(hdr) != len(sizingHeaders(a)) {
		t.Errorf("what-if headers %v, want %v", hdr, sizingHeaders(a))
	}
	if n := energyCostNote(a); n != "" {
		t.Errorf("energy note %q without energy", n)
	}
	f, _, _ := writeXLSXOf(t, a, 5)
	if idx, _ := f.GetSheetIndex(SheetGPUs); idx >= 0 {
		t.Error("a GPUs sheet without GPU telemetry")
	}
	rows, err := f.GetRows(SheetSteps)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows[0]) != 28 {
		t.Errorf("Steps sheet has %d columns without telemetry, want 28", len(rows[0]))
	}
}

package analysis

import (
	"context"
	"io"
	"log/slog"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/llmcap/llmcap/analysis/dcgmtest"
	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
	"github.com/llmcap/llmcap/sweep"
)

// dcgmSimPlan is a short ladder on the embedded simulator (2 × H100 tensor parallel,
// prefix caching on, every prompt sharing a 128-token prefix) that also scrapes a
// dcgm-exporter at dcgmURL.
func dcgmSimPlan(dcgmURL string) *plan.Plan {
	return &plan.Plan{Name: "dcgm-sim", Seed: 5,
		Target: plan.Target{URL: plan.TargetSimulator, API: "chat", Model: "llama-3.1-8b",
			ExtraBody: map[string]any{"ignore_eos": true},
			Simulator: plan.Simulator{GPU: "H100-SXM", Model: "llama-3.1-8b", TensorParallel: 2, MaxNumSeqs: 16,
				MaxNumBatchedTokens: 8192, GPUMemoryUtilization: 0.9, BlockSize: 16, SpeedUp: 1, PrefixCaching: true},
			MetricsURLs: []string{dcgmURL}, MetricsInterval: 100 * time.Millisecond},
		Segments: []plan.Segment{{Name: "chat", Weight: 1, SharedPrefixTokens: 128,
			PromptTokens: plan.Dist{Kind: plan.DistFixed, Value: 256},
			OutputTokens: plan.Dist{Kind: plan.DistFixed, Value: 48}}},
		Ladder: plan.Ladder{Concurrency: []int{2, 8},
			Warmup: plan.Warmup{Duration: 300 * time.Millisecond}, Duration: 2500 * time.Millisecond, Grace: 10 * time.Second},
		SLA:    plan.SLA{TTFTMs: map[string]float64{"p95": 2000}, MaxErrorRate: 0.01, ThinkTime: 5 * time.Second},
		Report: plan.Report{TargetUsers: []int{100}, GPUHourUSD: 2.5, Headroom: 0.2, PowerUSDPerKWh: 0.15},
	}
}

// runDCGMSim sweeps dcgmSimPlan against a loopback dcgm-exporter serving the recorded
// scrape and analyses the run.
func runDCGMSim(t *testing.T, o dcgmtest.Options) (*Analysis, []dcgmtest.GPU, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("drives the embedded simulator for about 6 s: skipped with -short")
	}
	exp, err := dcgmtest.Start(o)
	if err != nil {
		t.Fatal(err)
	}
	defer exp.Close()
	gpus, err := dcgmtest.Recorded()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	if err := sweep.Run(context.Background(), dcgmSimPlan(exp.URL), sweep.Options{OutDir: dir, Logger: quiet}); err != nil {
		t.Fatal(err)
	}
	if exp.Scrapes() < 10 {
		t.Fatalf("the exporter served %d scrapes, want ≥ 10", exp.Scrapes())
	}
	a, err := Analyze(dir)
	if err != nil {
		t.Fatal(err)
	}
	return a, gpus, dir
}

// The GPU telemetry of a run that scraped a dcgm-exporter is the recorded scrape's:
// per GPU its utilisation, memory and power (the energy counter's increase over the
// window, which the exporter advances at the recorded power), summed over the two
// GPUs; J per output token is that power over the step's output tokens/s, at capacity
// too, and the measured what-if row prices it at report.power_usd_per_kwh.
func TestGPUTelemetryFromDCGMEnergyCounter(t *testing.T) {
	a, gpus, dir := runDCGMSim(t, dcgmtest.Options{})
	var wantW, wantUtil, wantFB float64
	for _, g := range gpus {
		wantW += g.PowerW
		wantUtil += g.UtilPct / 100 / float64(len(gpus))
		wantFB += g.FBUsedMiB
	}
	if math.Abs(wantW-1000.399) > 1e-9 { // 512.437 W + 487.962 W recorded
		t.Fatalf("recorded power %v W, want 1000.399 W", wantW)
	}
	seg := a.Segments[0]
	for _, s := range seg.Steps {
		g := s.GPU
		if g == nil {
			t.Fatalf("step %d: no GPU telemetry", s.Step)
		}
		if g.GPUs != 2 || g.EnergySource != EnergyFromCounter || len(g.PerGPU) != 2 {
			t.Errorf("step %d: %d GPUs, energy source %q, %d per-GPU rows; want 2, %q, 2", s.Step, g.GPUs, g.EnergySource, len(g.PerGPU), EnergyFromCounter)
		}
		if rel(g.PowerW, wantW) > 0.01 || math.Abs(g.UtilizationMean-wantUtil) > 1e-9 || g.MemoryUsedMiBMax != wantFB {
			t.Errorf("step %d: power %v W, util %v, FB %v MiB; want %v W, %v, %v MiB", s.Step, g.PowerW, g.UtilizationMean, g.MemoryUsedMiBMax, wantW, wantUtil, wantFB)
		}
		if rel(g.EnergyJ, wantW*g.EnergyWindowS) > 0.01 || g.EnergyWindowS < 1.5 {
			t.Errorf("step %d: energy %v J over %v s, want %v W × the window", s.Step, g.EnergyJ, g.EnergyWindowS, wantW)
		}
		for i, d := range g.PerGPU {
			if d.UUID != gpus[i].UUID || d.Model != "NVIDIA H100 80GB HBM3" || rel(d.PowerW, gpus[i].PowerW) > 0.01 {
				t.Errorf("step %d GPU %d: %+v, want UUID %s at %v W", s.Step, i, d, gpus[i].UUID, gpus[i].PowerW)
			}
		}
		wantJ := wantW / s.OutputTokenThroughput
		if rel(g.JoulesPerOutputToken, wantJ) > 0.01 || rel(g.OutputTokensPerJoule, 1/wantJ) > 0.01 {
			t.Errorf("step %d: %v J/token, %v tokens/J; want %v W ÷ %v tok/s = %v J/token", s.Step, g.JoulesPerOutputToken,
				g.OutputTokensPerJoule, wantW, s.OutputTokenThroughput, wantJ)
		}
	}
	skipIfAllLate(t, seg.Steps)
	e := seg.Capacity.Energy
	if e == nil || seg.Capacity.OutputTokensPerSAtCapacity <= 0 {
		t.Fatalf("capacity %+v: no energy at capacity", seg.Capacity)
	}
	wantCapJ := wantW / seg.Capacity.OutputTokensPerSAtCapacity
	if rel(e.PowerW, wantW) > 0.01 || rel(e.JoulesPerOutputToken, wantCapJ) > 0.01 || e.GPUs != 2 || e.Source != EnergyFromCounter {
		t.Errorf("energy at capacity %+v; want %v W, %v J/token, 2 GPUs, from the counter", *e, wantW, wantCapJ)
	}
	w := a.WhatIf[0]
	wantMonth := float64(w.GPUs) * wantW / 2 / 1000 * hoursPerMonth * 0.15
	wantPerM := wantCapJ * 1e6 / 3.6e6 * 0.15
	if w.Projected || rel(w.EnergyCostPerMonthUSD, wantMonth) > 0.01 || rel(w.EnergyCostPerMOutputUSD, wantPerM) > 0.01 {
		t.Errorf("what-if %+v: energy $%v/month, $%v/M tokens; want $%v, $%v", w, w.EnergyCostPerMonthUSD, w.EnergyCostPerMOutputUSD, wantMonth, wantPerM)
	}
	checkPrefixHitRate(t, a, dir)
}

// checkPrefixHitRate: each step's prefix-cache hit rate is the increase of the
// simulator's hit counter over that of its query counter across the step's window, as
// recorded in server-metrics.jsonl; with a 128-token prefix shared by 256-token prompts
// it lies near one half.
func checkPrefixHitRate(t *testing.T, a *Analysis, dir string) {
	t.Helper()
	samples, _, err := rundir.ReadMetrics(dir)
	if err != nil {
		t.Fatal(err)
	}
	windows, _, err := rundir.ReadSteps(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range a.Segments[0].Steps {
		var w rundir.StepSummary
		for _, x := range windows {
			if x.Index == s.Step {
				w = x
			}
		}
		var h0, h1, q0, q1 float64
		n := 0
		for _, m := range samples {
			hit, ok := familySum(m, "vllm:prefix_cache_hits_total")
			q, okQ := familySum(m, "vllm:prefix_cache_queries_total")
			if !ok || !okQ || m.Step != s.Step || m.TimeNs < w.MeasureStartNs || m.TimeNs > w.MeasureEndNs {
				continue
			}
			if n == 0 {
				h0, q0 = hit, q
			}
			h1, q1, n = hit, q, n+1
		}
		pc := s.Server.PrefixCache
		if n < 2 || q1 <= q0 || pc == nil {
			t.Fatalf("step %d: %d simulator scrapes in the window, queries %v → %v, stats %+v", s.Step, n, q0, q1, pc)
		}
		want := (h1 - h0) / (q1 - q0)
		if pc.Source != PrefixFromCounters || math.Abs(pc.HitRate-want) > 1e-12 || pc.QueryTokens != q1-q0 || want < 0.3 || want > 0.55 {
			t.Errorf("step %d: prefix cache %+v; want hit rate %v from the counters (about 0.5)", s.Step, *pc, want)
		}
	}
}

// Without the energy counter the energy is the recorded power integrated over the
// window's scrapes (constant, so exactly power × window), and the output says so.
func TestGPUTelemetryFromDCGMPowerIntegral(t *testing.T) {
	a, gpus, _ := runDCGMSim(t, dcgmtest.Options{WithoutEnergyCounter: true})
	wantW := gpus[0].PowerW + gpus[1].PowerW
	for _, s := range a.Segments[0].Steps {
		g := s.GPU
		if g == nil || g.EnergySource != EnergyFromPower {
			t.Fatalf("step %d: GPU telemetry %+v, want energy from the power integral", s.Step, g)
		}
		if math.Abs(g.PowerW-wantW) > 1e-6 || math.Abs(g.EnergyJ-wantW*g.EnergyWindowS) > 1e-6 {
			t.Errorf("step %d: %v W, %v J over %v s; want %v W exactly", s.Step, g.PowerW, g.EnergyJ, g.EnergyWindowS, wantW)
		}
	}
	if e := a.Segments[0].Capacity.Energy; e == nil || e.Source != EnergyFromPower {
		t.Errorf("energy at capacity %+v, want from the power integral", e)
	}
}

// skipIfAllLate skips the rest of a test (the capacity's figures) when every step ran on
// a starved simulator: the capacity then has no evidence, so no energy at capacity.
func skipIfAllLate(t *testing.T, steps []StepStats) {
	t.Helper()
	for _, s := range steps {
		if !s.SimulatorLate {
			return
		}
	}
	t.Skip("every step ran on a starved simulator (a loaded machine): no capacity to check the energy at")
}

// familySum is the sum of a family's label sets in one scrape.
func familySum(m rundir.MetricSample, family string) (float64, bool) {
	sum, ok := 0.0, false
	for k, v := range m.Values {
		if k == family || strings.HasPrefix(k, family+"{") {
			sum, ok = sum+v, true
		}
	}
	return sum, ok
}

// rel is |got − want| ÷ |want|.
func rel(got, want float64) float64 { return math.Abs(got-want) / math.Abs(want) }

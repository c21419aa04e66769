package analysis

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/llmcap/llmcap/rundir"
)

// Under MIG dcgm-exporter reports DCGM_FI_DEV_GPU_UTIL as 0 for every GPU instance: a
// MIG GPU's utilisation is not measured, so the step's mean leaves it out and, with
// every GPU MIG, says it is unavailable instead of reading 0 %. A non-MIG GPU beside it
// keeps its utilisation.
func TestGPUUtilisationUnderMIGIsUnavailable(t *testing.T) {
	samples := func(withPlain bool) []rundir.MetricSample {
		var out []rundir.MetricSample
		for i := 0; i < 3; i++ {
			v := map[string]float64{}
			for _, id := range []string{"1", "2"} {
				lbl := dcgmLabels("0", "GPU-a", fmt.Sprintf(`GPU_I_ID=%q,GPU_I_PROFILE="3g.40gb"`, id))
				v["DCGM_FI_DEV_GPU_UTIL"+lbl] = 0
				v["DCGM_FI_DEV_POWER_USAGE"+lbl] = 400
			}
			if withPlain {
				lbl := dcgmLabels("1", "GPU-b", "")
				v["DCGM_FI_DEV_GPU_UTIL"+lbl] = 80
				v["DCGM_FI_DEV_POWER_USAGE"+lbl] = 500
			}
			out = append(out, rundir.MetricSample{TimeNs: int64(i+1) * 1e9, Step: 0, URL: "http://gpu:9400/metrics", Values: v})
		}
		return out
	}
	g := gpuStats(samples(false), nil)[0]
	if g == nil || !g.UtilizationUnavailable || g.MIGGPUs != 1 || g.UtilizationMean != 0 || !g.PerGPU[0].MIG {
		t.Fatalf("MIG-only GPU stats %+v, want utilisation unavailable, 1 MIG GPU", g)
	}
	g = gpuStats(samples(true), nil)[0]
	if g == nil || g.UtilizationUnavailable || g.MIGGPUs != 1 || math.Abs(g.UtilizationMean-0.8) > 1e-9 {
		t.Fatalf("MIG + plain GPU stats %+v, want the plain GPU's 80 %% alone, 1 MIG GPU", g)
	}
	if g.PerGPU[0].MIG == g.PerGPU[1].MIG {
		t.Errorf("per-GPU MIG flags %+v, want one MIG GPU and one not", g.PerGPU)
	}
}

// When the exporter's scrapes failed for most of a step's window (dcgm-exporter
// answering 503), the step's energy spans only the scrapes that succeeded: its
// coverage is that span over the measurement window, and the analysis warns, naming
// the step and its span, below EnergyCoverageMin; a step whose scrapes spanned most of
// its window is not named.
func TestGPUEnergyCoverageWarnsOnFailedScrapes(t *testing.T) {
	const t0 = int64(1_000_000_000_000)
	lbl := dcgmLabels("0", "GPU-a", "")
	windows := map[int]rundir.StepSummary{
		0: {MeasureStartNs: t0, MeasureEndNs: t0 + 8e9},
		1: {MeasureStartNs: t0 + 10e9, MeasureEndNs: t0 + 18e9},
	}
	var samples []rundir.MetricSample
	add := func(step int, atS float64) {
		tNs := t0 + int64(atS*1e9)
		samples = append(samples, rundir.MetricSample{TimeNs: tNs, Step: step, URL: "http://gpu:9400/metrics",
			Values: map[string]float64{"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION" + lbl: 8e10 + 500*float64(tNs-t0)/1e6,
				"DCGM_FI_DEV_POWER_USAGE" + lbl: 500}})
	}
	add(0, 0.2) // step 0: two scrapes 0.5 s apart, the rest failed
	add(0, 0.7)
	for s := 10.5; s < 18; s++ { // step 1: every second
		add(1, s)
	}
	gpu := gpuStats(samples, windows)
	if c := gpu[0].EnergyCoverage; math.Abs(c-0.0625) > 1e-4 {
		t.Errorf("step 0 coverage %v, want 0.5 s of 8 s = 0.0625", c)
	}
	if c := gpu[1].EnergyCoverage; math.Abs(c-0.875) > 1e-4 {
		t.Errorf("step 1 coverage %v, want 7 s of 8 s = 0.875", c)
	}
	a := &Analysis{Schedule: "concurrency", Segments: []SegmentAnalysis{{Segment: "chat", Steps: []StepStats{
		{Step: 0, Segment: "chat", Load: 2, GPU: gpu[0]}, {Step: 1, Segment: "chat", Load: 8, GPU: gpu[1]}}}}}
	w, ok := energyCoverageWarning(a)
	if !ok || w.Kind != WarnGPUEnergyCoverage || w.Data == nil || len(w.Data.Steps) != 1 || w.Data.Steps[0] != "chat @ 2 concurrency" {
		t.Fatalf("warning %+v (ok %v), want gpu-energy-coverage naming chat @ 2 concurrency alone", w, ok)
	}
	if !strings.Contains(w.Message, "0.5 s of 8.0 s (6%)") {
		t.Errorf("message %q, want the step's span and window", w.Message)
	}
}

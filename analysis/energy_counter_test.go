package analysis

import (
	"fmt"
	"math"
	"testing"

	"github.com/llmcap/llmcap/rundir"
)

// dcgmLabels is one GPU's label list as the scraper flattens it (names sorted).
func dcgmLabels(gpu, uuid, extra string) string {
	l := fmt.Sprintf(`DCGM_FI_DRIVER_VERSION="550.127.08",Hostname="gpu-node-07",UUID=%q,device="nvidia%s",gpu=%q,modelName="NVIDIA H100 80GB HBM3"`, uuid, gpu, gpu)
	if extra != "" {
		l = extra + "," + l
	}
	return "{" + l + "}"
}

// staleExporterSamples is one step's scrapes (every scrapeS seconds over windowS) of
// an exporter that collects every collectS seconds, as dcgm-exporter's -c does: each
// scrape serves the values of the last collection, so the energy counter (mJ) of a GPU
// drawing powerW steps up once per collection.
func staleExporterSamples(powerW, scrapeS, collectS, windowS float64) []rundir.MetricSample {
	const t0 = int64(1_000_000_000_000)
	lbl := dcgmLabels("0", "GPU-a", "")
	var out []rundir.MetricSample
	for t := 0.0; t <= windowS+1e-9; t += scrapeS {
		// A collection phase of 0.3 s: the exporter's clock is not the step's.
		collected := math.Floor((t+0.3)/collectS)*collectS - 0.3
		out = append(out, rundir.MetricSample{TimeNs: t0 + int64(t*1e9), Step: 0, URL: "http://gpu:9400/metrics",
			Values: map[string]float64{
				"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION" + lbl: 8e10 + powerW*collected*1000,
				"DCGM_FI_DEV_POWER_USAGE" + lbl:              powerW,
			}})
	}
	return out
}

// An exporter collecting less often than it is scraped (dcgm-exporter's default -c is
// 30 s) steps its energy counter once per collection: the energy over a window is the
// counter's increase between the scrapes at which it changed, over the time between
// them, not over the whole window (which counts the collections the window happened to
// cover: 1 or 2 collections of 5 s in a 7.5 s window, a power 33 % low or high). A
// window that saw the counter change once has no span to divide by: its energy is the
// power integral.
func TestGPUEnergyCounterCollectedLessOftenThanScraped(t *testing.T) {
	const powerW = 500.0
	for _, c := range []struct {
		scrapeS, collectS, windowS float64
		src                        EnergySource
	}{
		{0.5, 5, 7.5, EnergyFromPower}, {0.5, 5, 12, EnergyFromCounter}, {1, 30, 95, EnergyFromCounter},
		{0.5, 0.5, 7.5, EnergyFromCounter}, {1, 1, 10, EnergyFromCounter},
	} {
		samples := staleExporterSamples(powerW, c.scrapeS, c.collectS, c.windowS)
		g := gpuStats(samples, nil)[0]
		if g == nil {
			t.Fatalf("%+v: no GPU stats", c)
		}
		if g.EnergySource != c.src || math.Abs(g.PowerW-powerW) > 0.01*powerW {
			t.Errorf("scrape %v s, collect %v s, window %v s: %v W from %q (%v J over %v s); want %v W from %q",
				c.scrapeS, c.collectS, c.windowS, g.PowerW, g.EnergySource, g.EnergyJ, g.EnergyWindowS, powerW, c.src)
		}
		if math.Abs(g.EnergyJ-powerW*g.EnergyWindowS) > 0.01*g.EnergyJ {
			t.Errorf("%+v: %v J over %v s, want %v W × the span", c, g.EnergyJ, g.EnergyWindowS, powerW)
		}
	}
}

// Under MIG dcgm-exporter writes one label set per GPU instance (GPU_I_ID,
// GPU_I_PROFILE) sharing the GPU's UUID: the device-wide power is repeated on each, the
// framebuffer used is each instance's own (DCGM 3.1.3+). A GPU's memory used is then the
// sum over its instances, its power one instance's value.
func TestGPUMemoryUnderMIGSumsInstances(t *testing.T) {
	var samples []rundir.MetricSample
	for i := 0; i < 3; i++ {
		v := map[string]float64{}
		for id, fb := range map[string]float64{"1": 30000, "2": 12000} {
			lbl := dcgmLabels("0", "GPU-a", fmt.Sprintf(`GPU_I_ID=%q,GPU_I_PROFILE="3g.40gb"`, id))
			v["DCGM_FI_DEV_FB_USED"+lbl] = fb
			v["DCGM_FI_DEV_POWER_USAGE"+lbl] = 400
		}
		samples = append(samples, rundir.MetricSample{TimeNs: int64(i+1) * 1e9, Step: 0, URL: "http://gpu:9400/metrics", Values: v})
	}
	g := gpuStats(samples, nil)[0]
	if g == nil || g.GPUs != 1 {
		t.Fatalf("GPU stats %+v, want one GPU", g)
	}
	if g.MemoryUsedMiBMax != 42000 || math.Abs(g.PowerW-400) > 1e-9 {
		t.Errorf("MIG GPU: %v MiB, %v W; want 30000 + 12000 = 42000 MiB and 400 W (the device's, once)", g.MemoryUsedMiBMax, g.PowerW)
	}
}

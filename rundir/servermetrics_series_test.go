package rundir

import (
	"math"
	"testing"
)

// ServerSeries keeps DCGM's label sets apart (one per GPU), scaled into the meaning's
// unit, and MetricLabels reads the GPU's identity back from the key, commas and quotes
// in values included.
func TestServerSeriesPerGPU(t *testing.T) {
	s := MetricSample{Values: map[string]float64{
		`DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{UUID="GPU-a",gpu="0",modelName="NVIDIA H100 80GB HBM3"}`: 15152422938,
		`DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{UUID="GPU-b",gpu="1",modelName="NVIDIA H100 80GB HBM3"}`: 5551899580,
		`DCGM_FI_DEV_POWER_USAGE{UUID="GPU-a",gpu="0"}`:                                                68.244,
	}}
	got := ServerSeries(s, ServerGPUEnergyJ)
	if len(got) != 2 {
		t.Fatalf("ServerSeries = %v, want two GPUs", got)
	}
	for key, want := range map[string]float64{
		`UUID="GPU-a",gpu="0",modelName="NVIDIA H100 80GB HBM3"`: 15152422.938,
		`UUID="GPU-b",gpu="1",modelName="NVIDIA H100 80GB HBM3"`: 5551899.580,
	} {
		if math.Abs(got[key]-want) > 1e-6 {
			t.Errorf("%s = %v J, want %v J", key, got[key], want)
		}
		l := MetricLabels(key)
		if l["modelName"] != "NVIDIA H100 80GB HBM3" || l["UUID"] == "" || l["gpu"] == "" {
			t.Errorf("MetricLabels(%s) = %v", key, l)
		}
	}
	if ServerSeries(s, ServerGPUMemoryUsedMiB) != nil {
		t.Error("a meaning absent from the scrape has a series")
	}
	if l := MetricLabels(`a="x,y",b="say \"hi\""`); l["a"] != "x,y" || l["b"] != `say "hi"` || len(l) != 2 {
		t.Errorf("MetricLabels with a comma and quotes = %v", l)
	}
}

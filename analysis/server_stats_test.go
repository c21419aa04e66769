package analysis

import (
	"testing"

	"github.com/llmcap/llmcap/rundir"
)

// TestServerStatsReadsSGLangAndSkipsGPUExporter: a step's server stats come from the
// SGLang-named scrapes inside its window (running and waiting summed over the two
// data-parallel ranks, KV usage the fuller rank's token_usage, preemptions the
// retraction counter's increase); a DCGM exporter's scrapes, without queue gauges, do
// not dilute the means.
func TestServerStatsReadsSGLangAndSkipsGPUExporter(t *testing.T) {
	const start, end = int64(100e9), int64(200e9)
	var samples []rundir.MetricSample
	for k := 0; k < 4; k++ {
		at := start + int64(k+1)*10e9
		samples = append(samples,
			rundir.MetricSample{TimeNs: at, Step: 0, URL: "http://127.0.0.1:30000/metrics", Values: map[string]float64{
				`sglang:num_running_reqs{dp_rank="0",model_name="m"}`:             float64(2 + k),
				`sglang:num_running_reqs{dp_rank="1",model_name="m"}`:             2,
				`sglang:num_queue_reqs{dp_rank="0",model_name="m"}`:               float64(k),
				`sglang:token_usage{dp_rank="0",model_name="m"}`:                  0.1 * float64(k),
				`sglang:token_usage{dp_rank="1",model_name="m"}`:                  0.25,
				`sglang:num_retracted_requests_total{dp_rank="0",model_name="m"}`: float64(5 + 3*k),
			}},
			rundir.MetricSample{TimeNs: at, Step: 0, URL: "http://127.0.0.1:9400/metrics", Values: map[string]float64{
				`DCGM_FI_DEV_GPU_UTIL{gpu="0"}`: 97, `DCGM_FI_DEV_POWER_USAGE{gpu="0"}`: 690,
			}})
	}
	// Outside the window: not counted.
	samples = append(samples, rundir.MetricSample{TimeNs: end + 1, Step: 0, Values: map[string]float64{
		`sglang:num_running_reqs{model_name="m"}`: 500, `sglang:token_usage{model_name="m"}`: 1}})
	windows := map[int]rundir.StepSummary{0: {MeasureStartNs: start, MeasureEndNs: end}}
	sv := serverStats(samples, windows)[0]
	if sv == nil {
		t.Fatal("no server stats from SGLang names")
	}
	// running 4, 5, 6, 7; waiting 0..3; KV max(0.3, 0.25); retractions 5 → 14.
	near(t, "running mean", sv.RunningMean, 5.5, 1e-12)
	near(t, "waiting mean", sv.WaitingMean, 1.5, 1e-12)
	near(t, "waiting max", sv.WaitingMax, 3, 0)
	near(t, "KV max", sv.KVCacheUsageMax, 0.3, 1e-12)
	near(t, "preemptions", sv.Preemptions, 9, 0)
}

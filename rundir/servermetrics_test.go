package rundir

import (
	"math"
	"testing"
)

func TestServerMetricTableIsComplete(t *testing.T) {
	seenKey := map[string]bool{}
	owner := map[string]ServerMetric{}
	for _, m := range AllServerMetrics() {
		if m.String() == "unknown" || seenKey[m.String()] {
			t.Errorf("meaning %d: key %q missing or duplicated", int(m), m.String())
		}
		seenKey[m.String()] = true
		if m.Unit() == "" || m.Aggregate() == 0 {
			t.Errorf("%s: unit %q aggregate %d", m, m.Unit(), m.Aggregate())
		}
		names := ServerMetricNames(m)
		if len(names) == 0 {
			t.Errorf("%s: no engine names", m)
		}
		for _, n := range names {
			if n.Scale <= 0 || n.Source == "" {
				t.Errorf("%s: %s has scale %v, source %q", m, n.Name, n.Scale, n.Source)
			}
			if o, dup := owner[n.Name]; dup {
				t.Errorf("%s is listed for both %s and %s", n.Name, o, m)
			}
			owner[n.Name] = m
			if got, ok := ServerMetricOf(n.Name + `{model_name="m"}`); !ok || got != m {
				t.Errorf("ServerMetricOf(%s{...}) = %s, %v; want %s", n.Name, got, ok, m)
			}
		}
	}
	if len(AllServerMetrics()) != len(serverMetricTable) || len(AllServerMetrics()) != 11 {
		t.Errorf("%d meanings listed, %d in the table, want 11", len(AllServerMetrics()), len(serverMetricTable))
	}
	if _, ok := ServerMetricOf(`vllm:time_to_first_token_seconds_sum{model_name="m"}`); ok {
		t.Error("a histogram no meaning reads was mapped to one")
	}
}

// sglangScrape is one scrape of an SGLang server with two data-parallel ranks.
var sglangScrape = MetricSample{Values: map[string]float64{
	`sglang:num_running_reqs{dp_rank="0",model_name="m"}`:             5,
	`sglang:num_running_reqs{dp_rank="1",model_name="m"}`:             3,
	`sglang:num_queue_reqs{dp_rank="0",model_name="m"}`:               2,
	`sglang:num_queue_reqs{dp_rank="1",model_name="m"}`:               0,
	`sglang:token_usage{dp_rank="0",model_name="m"}`:                  0.62,
	`sglang:token_usage{dp_rank="1",model_name="m"}`:                  0.41,
	`sglang:cache_hit_rate{dp_rank="0",model_name="m"}`:               0.5,
	`sglang:cache_hit_rate{dp_rank="1",model_name="m"}`:               0.25,
	`sglang:num_retracted_requests_total{dp_rank="0",model_name="m"}`: 7,
	`sglang:time_to_first_token_seconds_sum{model_name="m"}`:          12.5,
}}

func TestServerValueSGLang(t *testing.T) {
	want := map[ServerMetric]float64{
		ServerRequestsRunning:    8,     // summed over the ranks
		ServerRequestsWaiting:    2,     // summed
		ServerKVCacheUsage:       0.62,  // the fullest rank
		ServerPrefixCacheHitRate: 0.375, // the mean of the ranks
		ServerPreemptions:        7,
	}
	for m, w := range want {
		got, ok := ServerValue(sglangScrape, m)
		if !ok || math.Abs(got-w) > 1e-12 {
			t.Errorf("%s = %v, %v; want %v", m, got, ok, w)
		}
	}
	for _, m := range []ServerMetric{ServerPrefixCacheHitTokens, ServerGPUPowerW} {
		if v, ok := ServerValue(sglangScrape, m); ok {
			t.Errorf("%s = %v read from a scrape without it", m, v)
		}
	}
}

func TestServerValueVLLMPrefersCurrentName(t *testing.T) {
	// vLLM 0.10 emits the current and the deprecated KV and prefix-cache names side by
	// side, and the simulator emits the current ones only: each is read once.
	s := MetricSample{Values: map[string]float64{
		`vllm:num_requests_running{engine="0",model_name="m"}`:           4,
		`vllm:num_requests_running{engine="1",model_name="m"}`:           6,
		`vllm:kv_cache_usage_perc{engine="0",model_name="m"}`:            0.3,
		`vllm:gpu_cache_usage_perc{engine="0",model_name="m"}`:           0.9,
		`vllm:num_preemptions_total{engine="0",model_name="m"}`:          11,
		`vllm:num_preemptions{engine="0",model_name="m"}`:                99,
		`vllm:prefix_cache_hits_total{engine="0",model_name="m"}`:        120,
		`vllm:gpu_prefix_cache_hits_total{engine="0",model_name="m"}`:    120,
		`vllm:prefix_cache_queries_total{engine="0",model_name="m"}`:     400,
		`vllm:gpu_prefix_cache_queries_total{engine="0",model_name="m"}`: 400,
	}}
	want := map[ServerMetric]float64{ServerRequestsRunning: 10, ServerKVCacheUsage: 0.3, ServerPreemptions: 11,
		ServerPrefixCacheHitTokens: 120, ServerPrefixCacheQueryTokens: 400}
	for m, w := range want {
		if got, ok := ServerValue(s, m); !ok || got != w {
			t.Errorf("%s = %v, %v; want %v", m, got, ok, w)
		}
	}
	if _, ok := ServerValue(s, ServerRequestsWaiting); ok {
		t.Error("waiting read from a scrape without it")
	}
	// The deprecated name alone is still read.
	old := MetricSample{Values: map[string]float64{`vllm:gpu_cache_usage_perc{model_name="m"}`: 0.55}}
	if got, ok := ServerValue(old, ServerKVCacheUsage); !ok || got != 0.55 {
		t.Errorf("vLLM V0 KV usage = %v, %v; want 0.55", got, ok)
	}
}

func TestServerValueScalesAndAggregatesDCGM(t *testing.T) {
	s := MetricSample{Values: map[string]float64{
		`DCGM_FI_DEV_GPU_UTIL{gpu="0",modelName="NVIDIA H100"}`:                 90,
		`DCGM_FI_DEV_GPU_UTIL{gpu="1",modelName="NVIDIA H100"}`:                 70,
		`DCGM_FI_DEV_POWER_USAGE{gpu="0",modelName="NVIDIA H100"}`:              650.5,
		`DCGM_FI_DEV_POWER_USAGE{gpu="1",modelName="NVIDIA H100"}`:              500,
		`DCGM_FI_DEV_FB_USED{gpu="0",modelName="NVIDIA H100"}`:                  70000,
		`DCGM_FI_DEV_FB_USED{gpu="1",modelName="NVIDIA H100"}`:                  69000,
		`DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu="0",modelName="NVIDIA H100"}`: 15152422938,
		`DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu="1",modelName="NVIDIA H100"}`: 5551899580,
	}}
	want := map[ServerMetric]float64{ServerGPUUtilization: 0.8, ServerGPUPowerW: 1150.5, ServerGPUMemoryUsedMiB: 139000,
		ServerGPUEnergyJ: (15152422938 + 5551899580) / 1000.0}
	for m, w := range want {
		if got, ok := ServerValue(s, m); !ok || math.Abs(got-w) > 1e-9 {
			t.Errorf("%s = %v, %v; want %v", m, got, ok, w)
		}
	}
}

func TestServerValueOtherEngines(t *testing.T) {
	llama := MetricSample{Values: map[string]float64{"llamacpp:requests_processing": 4,
		"llamacpp:requests_deferred": 9, "llamacpp:kv_cache_usage_ratio": 0.75}}
	tgi := MetricSample{Values: map[string]float64{"tgi_batch_current_size": 16, "tgi_queue_size": 5}}
	cases := []struct {
		s    MetricSample
		m    ServerMetric
		want float64
	}{
		{llama, ServerRequestsRunning, 4}, {llama, ServerRequestsWaiting, 9}, {llama, ServerKVCacheUsage, 0.75},
		{tgi, ServerRequestsRunning, 16}, {tgi, ServerRequestsWaiting, 5},
	}
	for _, c := range cases {
		if got, ok := ServerValue(c.s, c.m); !ok || got != c.want {
			t.Errorf("%s = %v, %v; want %v", c.m, got, ok, c.want)
		}
	}
}

func TestServerValueSkipsNonFiniteAndUnknown(t *testing.T) {
	s := MetricSample{Values: map[string]float64{
		`vllm:num_requests_running{engine="0"}`: math.NaN(),
		`vllm:num_requests_running{engine="1"}`: 2,
		`vllm:kv_cache_usage_perc{engine="0"}`:  math.Inf(1),
	}}
	if got, ok := ServerValue(s, ServerRequestsRunning); !ok || got != 2 {
		t.Errorf("running = %v, %v; want 2 (NaN skipped)", got, ok)
	}
	if got, ok := ServerValue(s, ServerKVCacheUsage); ok {
		t.Errorf("KV usage = %v from an infinite value only", got)
	}
	if _, ok := ServerValue(s, ServerMetric(0)); ok || ServerMetric(0).String() != "unknown" {
		t.Error("a meaning outside the table was read")
	}
}

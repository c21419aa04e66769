package rundir

// Sources of the engine metric names below, as checked (a name missing from a scrape is
// simply not read):
const (
	// vLLM V0 engine, vllm/engine/metrics.py (0.6.x): gauges num_requests_running,
	// num_requests_waiting, gpu_cache_usage_perc (1 = 100 %), gpu_prefix_cache_hit_rate
	// (0..1); counter num_preemptions_total.
	srcVLLMv0 = "vLLM 0.6 (V0 engine) vllm/engine/metrics.py"
	// vLLM V1 engine, vllm/v1/metrics/loggers.py (0.10.x): kv_cache_usage_perc
	// ("1 means 100 percent usage"), gpu_cache_usage_perc kept as deprecated;
	// prefix_cache_queries/hits counters (gpu_prefix_cache_* deprecated in 0.9);
	// labels model_name and engine (one label set per data-parallel engine). Also what
	// llmcap's simulator emits (sim/metrics.go).
	srcVLLMv1 = "vLLM 0.10 (V1 engine) vllm/v1/metrics/loggers.py; llmcap sim/metrics.go"
	// SGLang python/sglang/srt/metrics/collector.py (0.4 to 0.5.x), SchedulerMetricsCollector:
	// gauges num_running_reqs, num_queue_reqs, token_usage (used / max_total_num_tokens,
	// 0..1), cache_hit_rate (0..1).
	srcSGLang = "SGLang 0.4-0.5 python/sglang/srt/metrics/collector.py"
	// SGLang collector.py on main after 0.5.3 (late 2025): counter
	// num_retracted_requests_total (requests retracted from the running batch for lack
	// of KV cache, SGLang's preemption).
	srcSGLangRetract = "SGLang main (after 0.5.3) python/sglang/srt/metrics/collector.py"
	// llama.cpp llama-server with --metrics, examples/server/server.cpp (2024 builds):
	// gauges requests_processing, requests_deferred, kv_cache_usage_ratio (used cells /
	// n_ctx, 0..1) and kv_cache_tokens.
	srcLlamaCpp = "llama.cpp llama-server --metrics, examples/server/server.cpp (2024)"
	// llama.cpp llama-server on master (tools/server/server-task.cpp, checked at b10519,
	// 2026): gauges requests_processing, requests_deferred, n_busy_slots_per_decode and
	// counters prompt_tokens_total, tokens_predicted_total, n_tokens_max (a high-water
	// mark, not a usage); kv_cache_usage_ratio and kv_cache_tokens were removed upstream,
	// so current builds expose no KV-cache usage at all (the old name stays listed for
	// the 2024 builds that still emit it).
	srcLlamaCppNow = "llama.cpp llama-server --metrics, tools/server/server-task.cpp (b10519)"
	// Hugging Face text-generation-inference router (v2/v3), metrics::gauge!
	// tgi_batch_current_size ("Current batch size") and tgi_queue_size ("Current queue size").
	srcTGI = "TGI 2.x/3.x router (metrics::gauge! tgi_batch_current_size, tgi_queue_size)"
	// NVIDIA dcgm-exporter default-counters.csv: DCGM_FI_DEV_GPU_UTIL (gauge, percent),
	// DCGM_FI_DEV_POWER_USAGE (gauge, W), DCGM_FI_DEV_FB_USED (gauge, MiB),
	// DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION (counter, mJ since boot); one label set per
	// GPU (labels gpu, UUID, device, modelName, Hostname, DCGM_FI_DRIVER_VERSION, ...).
	srcDCGM = "NVIDIA dcgm-exporter etc/default-counters.csv"
)

// serverMetricTable is the one table of engine metric names llmcap reads, per meaning,
// names in priority order (the first present in a scrape wins, so an engine that emits
// a current and a deprecated name is read once).
var serverMetricTable = map[ServerMetric]serverMetricDef{
	ServerRequestsRunning: {key: "requests_running", unit: "requests", agg: AggregateSum, names: []ServerMetricName{
		{Name: "vllm:num_requests_running", Scale: 1, Source: srcVLLMv1},
		{Name: "sglang:num_running_reqs", Scale: 1, Source: srcSGLang},
		{Name: "llamacpp:requests_processing", Scale: 1, Source: srcLlamaCppNow + "; " + srcLlamaCpp},
		{Name: "tgi_batch_current_size", Scale: 1, Source: srcTGI},
	}},
	ServerRequestsWaiting: {key: "requests_waiting", unit: "requests", agg: AggregateSum, names: []ServerMetricName{
		{Name: "vllm:num_requests_waiting", Scale: 1, Source: srcVLLMv1},
		{Name: "sglang:num_queue_reqs", Scale: 1, Source: srcSGLang},
		{Name: "llamacpp:requests_deferred", Scale: 1, Source: srcLlamaCppNow + "; " + srcLlamaCpp},
		{Name: "tgi_queue_size", Scale: 1, Source: srcTGI},
	}},
	ServerKVCacheUsage: {key: "kv_cache_usage", unit: "fraction", agg: AggregateMax, names: []ServerMetricName{
		{Name: "vllm:kv_cache_usage_perc", Scale: 1, Source: srcVLLMv1}, // a fraction despite "perc"
		{Name: "vllm:gpu_cache_usage_perc", Scale: 1, Source: srcVLLMv0},
		{Name: "sglang:token_usage", Scale: 1, Source: srcSGLang},
		// Removed upstream (srcLlamaCppNow): read from 2024 builds only.
		{Name: "llamacpp:kv_cache_usage_ratio", Scale: 1, Source: srcLlamaCpp + " (removed by " + srcLlamaCppNow + ", which has no KV-cache usage gauge)"},
	}},
	ServerPreemptions: {key: "preemptions", unit: "requests", agg: AggregateSum, names: []ServerMetricName{
		{Name: "vllm:num_preemptions_total", Scale: 1, Source: srcVLLMv1},
		{Name: "vllm:num_preemptions", Scale: 1, Source: srcVLLMv1 + " (the counter's declared name; prometheus_client exposes it with _total)"},
		{Name: "sglang:num_retracted_requests_total", Scale: 1, Source: srcSGLangRetract},
	}},
	ServerPrefixCacheHitTokens: {key: "prefix_cache_hit_tokens", unit: "tokens", agg: AggregateSum, names: []ServerMetricName{
		{Name: "vllm:prefix_cache_hits_total", Scale: 1, Source: srcVLLMv1},
		{Name: "vllm:gpu_prefix_cache_hits_total", Scale: 1, Source: srcVLLMv1 + " (deprecated since 0.9)"},
	}},
	ServerPrefixCacheQueryTokens: {key: "prefix_cache_query_tokens", unit: "tokens", agg: AggregateSum, names: []ServerMetricName{
		{Name: "vllm:prefix_cache_queries_total", Scale: 1, Source: srcVLLMv1},
		{Name: "vllm:gpu_prefix_cache_queries_total", Scale: 1, Source: srcVLLMv1 + " (deprecated since 0.9)"},
	}},
	ServerPrefixCacheHitRate: {key: "prefix_cache_hit_rate", unit: "fraction", agg: AggregateMean, names: []ServerMetricName{
		{Name: "sglang:cache_hit_rate", Scale: 1, Source: srcSGLang},
		{Name: "vllm:gpu_prefix_cache_hit_rate", Scale: 1, Source: srcVLLMv0},
	}},
	ServerGPUUtilization: {key: "gpu_utilization", unit: "fraction", agg: AggregateMean, names: []ServerMetricName{
		{Name: "DCGM_FI_DEV_GPU_UTIL", Scale: 0.01, Source: srcDCGM}, // percent
	}},
	ServerGPUPowerW: {key: "gpu_power_w", unit: "W", agg: AggregateSum, names: []ServerMetricName{
		{Name: "DCGM_FI_DEV_POWER_USAGE", Scale: 1, Source: srcDCGM},
	}},
	ServerGPUMemoryUsedMiB: {key: "gpu_memory_used_mib", unit: "MiB", agg: AggregateSum, names: []ServerMetricName{
		{Name: "DCGM_FI_DEV_FB_USED", Scale: 1, Source: srcDCGM},
	}},
	ServerGPUEnergyJ: {key: "gpu_energy_j", unit: "J", agg: AggregateSum, names: []ServerMetricName{
		{Name: "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", Scale: 0.001, Source: srcDCGM}, // mJ
	}},
}

package analysis

// engineKnobs are one engine's names for the settings the advice mentions (each a
// phrase that reads after "raise", "tune" or "use"; "" when the engine has none).
// Sources: vLLM 0.10 engine arguments; SGLang 0.5 server arguments; llama.cpp
// llama-server --help (2025); Ollama FAQ and envconfig (0.17); TGI 3.x launcher
// arguments.
type engineKnobs struct {
	// slots is the running-batch limit, slotsWhere where it is set when slots does not
	// say ("" when it does).
	slots, slotsWhere string
	// slotsNote is a caution about raising slots on this engine ("" when none).
	slotsNote string
	// kvMetric names the KV-cache usage gauge to check when none was scraped.
	kvMetric string
	// kvMemory gives the KV cache more memory; kvQuant quantises it; context shortens
	// the contexts it must hold; parallel spreads a replica over more GPUs.
	kvMemory, kvQuant, context, parallel string
	// chunk tunes prefill chunking, prefix reuses shared prompt prefixes, disagg
	// separates prefill from decode.
	chunk, prefix, disagg string
	// quant quantises the weights; spec is speculative decoding.
	quant, spec string
}

// knobsOf is the advice vocabulary of an engine; an unknown engine gets every
// engine's name for the slot limit and generic phrases for the rest.
func knobsOf(e Engine) engineKnobs {
	if k, ok := knobsByEngine[e]; ok {
		return k
	}
	return knobsByEngine[EngineUnknown]
}

var vllmKnobs = engineKnobs{
	slots: "max_num_seqs", slotsWhere: "--max-num-seqs",
	kvMetric: "vllm:kv_cache_usage_perc and vllm:num_preemptions_total",
	kvMemory: "a higher --gpu-memory-utilization", kvQuant: "an FP8 KV cache (--kv-cache-dtype fp8)",
	context: "a shorter --max-model-len", parallel: "more GPUs per replica (--tensor-parallel-size)",
	chunk:  "chunked prefill with a tuned --max-num-batched-tokens",
	prefix: "prefix caching (--enable-prefix-caching) for shared prompt prefixes",
	disagg: "disaggregated prefill (--kv-transfer-config)",
	quant:  "FP8 or INT4 (AWQ/GPTQ) weights (--quantization)",
	spec:   "speculative decoding (--speculative-config)",
}

var knobsByEngine = map[Engine]engineKnobs{
	EngineVLLM: vllmKnobs,
	EngineSimulator: func() engineKnobs {
		k := vllmKnobs
		k.slotsWhere = "target.simulator.max_num_seqs"
		k.kvMemory = "a higher target.simulator.gpu_memory_utilization"
		k.kvQuant = "an FP8 model (e.g. llama-3.1-8b-fp8 as target.simulator.model)"
		k.context = "shorter prompts and outputs"
		k.parallel = "more GPUs per replica (target.simulator.tensor_parallel)"
		k.chunk = "a tuned target.simulator.max_num_batched_tokens"
		k.prefix = "prefix caching (target.simulator.prefix_caching) for shared prompt prefixes"
		k.disagg = "disaggregated prefill (separate prefill replicas)"
		k.quant = "an FP8 or AWQ model variant (target.simulator.model)"
		k.spec = "speculative decoding"
		return k
	}(),
	EngineSGLang: {
		slots:    "--max-running-requests",
		kvMetric: "sglang:token_usage and sglang:num_retracted_requests_total",
		kvMemory: "a higher --mem-fraction-static", kvQuant: "an FP8 KV cache (--kv-cache-dtype fp8_e5m2)",
		context: "a shorter --context-length", parallel: "more GPUs per replica (--tp)",
		chunk:  "a tuned --chunked-prefill-size",
		prefix: "the radix cache for shared prompt prefixes (on unless --disable-radix-cache)",
		disagg: "prefill-decode disaggregation (--disaggregation-mode)",
		quant:  "FP8 or INT4 weights (--quantization)",
		spec:   "speculative decoding (--speculative-algorithm EAGLE)",
	},
	EngineLlamaCpp: {
		slots:     "llama-server's --parallel (-np)",
		slotsNote: "llama-server splits --ctx-size (-c) among its slots, so raise -c with -np to keep each slot's context",
		kvMetric:  "llamacpp:kv_cache_usage_ratio (llama-server --metrics)",
		kvMemory:  "a larger --ctx-size (-c), which the slots share", kvQuant: "a quantised KV cache (--cache-type-k q8_0 --cache-type-v q8_0)",
		context: "a smaller context per slot", parallel: "more GPUs (--tensor-split) with every layer offloaded (-ngl 99)",
		chunk:  "tuned --batch-size and --ubatch-size",
		prefix: "--cache-reuse for shared prompt prefixes",
		quant:  "a smaller GGUF quantisation (e.g. Q4_K_M)",
		spec:   "speculative decoding with a draft model (--model-draft)",
	},
	EngineOllama: {
		slots: "OLLAMA_NUM_PARALLEL", slotsWhere: "in the environment of ollama serve",
		slotsNote: "each parallel request gets its own context (num_ctx) of KV cache, so memory grows with OLLAMA_NUM_PARALLEL",
		kvMetric:  "the memory Ollama reports in its log (it exports no metrics)",
		kvMemory:  "more GPU memory", kvQuant: "a quantised KV cache (OLLAMA_KV_CACHE_TYPE=q8_0 with OLLAMA_FLASH_ATTENTION=1)",
		context: "a shorter context (OLLAMA_CONTEXT_LENGTH or num_ctx)", parallel: "a GPU with more memory",
		chunk:  "a tuned num_batch",
		prefix: "identical prompt prefixes (Ollama reuses a slot's cached prefix)",
		quant:  "a smaller quantisation tag (e.g. q4_K_M)",
	},
	EngineTGI: {
		slots:    "--max-concurrent-requests and --max-batch-total-tokens",
		kvMetric: "the router's tgi_batch_current_size and tgi_queue_size (TGI exports no KV-cache gauge)",
		kvMemory: "a higher --cuda-memory-fraction", kvQuant: "an FP8 KV cache (--kv-cache-dtype fp8)",
		context: "a smaller --max-total-tokens", parallel: "more GPUs per replica (--num-shard)",
		chunk:  "a tuned --max-batch-prefill-tokens",
		prefix: "prefix caching (on by default since TGI 3)",
		quant:  "quantised weights (--quantize fp8, awq or gptq)",
		spec:   "speculative decoding (--speculate)",
	},
	EngineUnknown: {
		slots:      "the running-batch limit",
		slotsWhere: "max_num_seqs in vLLM, --max-running-requests in SGLang, --parallel in llama.cpp, OLLAMA_NUM_PARALLEL in Ollama, --max-concurrent-requests in TGI",
		kvMetric:   "the server's KV-cache usage and preemptions (e.g. vLLM's kv_cache_usage_perc)",
		kvMemory:   "more memory for the KV cache", kvQuant: "a quantised (FP8) KV cache",
		context: "shorter contexts", parallel: "more GPUs per replica",
		chunk:  "chunked prefill with a tuned prefill token budget",
		prefix: "prefix caching for shared prompt prefixes",
		disagg: "disaggregated prefill",
		quant:  "FP8 or INT4 weights",
		spec:   "speculative decoding",
	},
}

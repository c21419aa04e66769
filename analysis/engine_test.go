package analysis

import (
	"strings"
	"testing"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
)

// TestEngineDetection: deploymentOf finds the engine and its configured running limit
// from each source in turn: the simulator's settings, the launch command's program and
// flags (or environment), the scraped metric names, owned_by in /v1/models, and
// Ollama's default port.
func TestEngineDetection(t *testing.T) {
	launch := func(env []string, argv ...string) rundir.RunMeta {
		return rundir.RunMeta{Plan: plan.Plan{Target: plan.Target{URL: "http://127.0.0.1:8000/v1",
			Launch: &plan.Launch{Command: argv, Env: env}}}, Target: rundir.TargetInfo{URL: "http://127.0.0.1:8000/v1"}}
	}
	remote := func(url string, models any) rundir.RunMeta {
		return rundir.RunMeta{Plan: plan.Plan{Target: plan.Target{URL: url}}, Target: rundir.TargetInfo{URL: url}, Models: models}
	}
	owned := func(by string) any {
		return map[string]any{"object": "list", "data": []any{map[string]any{"id": "m", "object": "model", "owned_by": by}}}
	}
	sglangScrape := []rundir.MetricSample{{Step: 0, Values: map[string]float64{`sglang:num_running_reqs{model_name="m"}`: 3}}}
	for _, c := range []struct {
		name    string
		meta    rundir.RunMeta
		samples []rundir.MetricSample
		engine  Engine
		limit   int
		setting string
		speedUp float64
	}{
		{"simulator", rundir.RunMeta{Target: rundir.TargetInfo{Simulator: true,
			Settings: map[string]any{"max_num_seqs": float64(32), "speed_up": float64(4)}}}, nil, EngineSimulator, 32, "max_num_seqs", 4},
		{"simulator plan only", rundir.RunMeta{Plan: plan.Plan{Target: plan.Target{URL: plan.TargetSimulator,
			Simulator: plan.Simulator{MaxNumSeqs: 16}}}}, nil, EngineSimulator, 16, "max_num_seqs", 1},
		{"vllm", launch(nil, "vllm", "serve", "meta-llama/Llama-3.1-8B", "--max-num-seqs=64"), nil, EngineVLLM, 64, "--max-num-seqs", 1},
		{"vllm underscore", launch(nil, "python", "-m", "vllm.entrypoints.openai.api_server", "--max_num_seqs", "48"), nil, EngineVLLM, 48, "--max-num-seqs", 1},
		{"sglang", launch(nil, "python3", "-m", "sglang.launch_server", "--model-path", "m", "--max-running-requests", "32"), nil, EngineSGLang, 32, "--max-running-requests", 1},
		{"llama.cpp", launch(nil, "/opt/llama.cpp/build/bin/llama-server", "-m", "m.gguf", "-np", "4", "-c", "8192"), nil, EngineLlamaCpp, 4, "-np", 1},
		{"ollama", launch([]string{"OLLAMA_NUM_PARALLEL=2", "OLLAMA_HOST=127.0.0.1:11434"}, "ollama", "serve"), nil, EngineOllama, 2, "OLLAMA_NUM_PARALLEL", 1},
		{"tgi", launch(nil, "text-generation-launcher", "--model-id", "m", "--max-batch-size", "24"), nil, EngineTGI, 24, "--max-batch-size", 1},
		{"vllm without limit", launch(nil, "vllm", "serve", "m"), nil, EngineVLLM, 0, "", 1},
		{"scraped sglang", remote("http://10.0.0.5:30000/v1", nil), sglangScrape, EngineSGLang, 0, "", 1},
		{"models llamacpp", remote("http://10.0.0.5:8080/v1", owned("llamacpp")), nil, EngineLlamaCpp, 0, "", 1},
		{"models ollama", remote("http://10.0.0.5:8080/v1", owned("library")), nil, EngineOllama, 0, "", 1},
		{"ollama port", remote("http://127.0.0.1:11434/v1", nil), nil, EngineOllama, 0, "", 1},
		{"unknown", remote("http://10.0.0.5:8000/v1", owned("someone")), nil, EngineUnknown, 0, "", 1},
	} {
		d := deploymentOf(c.meta, c.samples)
		if d.engine != c.engine || d.runLimit != c.limit || d.runLimitSetting != c.setting || d.speedUp != c.speedUp {
			t.Errorf("%s: engine %q (%s), limit %d (%s from %s), speed-up %v; want %q, %d (%s), %v", c.name, d.engine,
				d.engineSource, d.runLimit, d.runLimitSetting, d.runLimitFrom, d.speedUp, c.engine, c.limit, c.setting, c.speedUp)
		}
	}
}

// TestAdviceNamesTheEngineSettings: the queue advice raises each engine's own slot
// setting (never vLLM's max_num_seqs elsewhere); a KV-cache queue names the engine's KV
// settings and says more slots would not help; decode and prefill advice never raise
// the slots.
func TestAdviceNamesTheEngineSettings(t *testing.T) {
	roomy := &SegmentAnalysis{Steps: []StepStats{stepWith(1, 20, 10, 0), stepWith(32, 900, 10, 16)},
		Fit: &Fit{Slots: 8, SlotsIdentified: true}}
	roomy.Steps[1].Server.KVCacheUsageMax = 0.3
	full := &SegmentAnalysis{Steps: []StepStats{stepWith(1, 20, 10, 0), stepWith(32, 900, 10, 16)}}
	full.Steps[1].Server.KVCacheUsageMax, full.Steps[1].Server.Preemptions = 1, 5
	for _, c := range []struct {
		engine     Engine
		slots, kv  string
		decode     string
		notInQueue string
	}{
		{EngineVLLM, "raising max_num_seqs above 8 is likely safe (--max-num-seqs)", "--gpu-memory-utilization", "--speculative-config", ""},
		{EngineSimulator, "raising max_num_seqs above 8 is likely safe (target.simulator.max_num_seqs)", "target.simulator.gpu_memory_utilization", "target.simulator.model", ""},
		{EngineSGLang, "raising --max-running-requests above 8", "--mem-fraction-static", "--speculative-algorithm", "max_num_seqs"},
		{EngineLlamaCpp, "raising llama-server's --parallel (-np) above 8", "--cache-type-k", "--model-draft", "max_num_seqs"},
		{EngineOllama, "raising OLLAMA_NUM_PARALLEL above 8", "OLLAMA_KV_CACHE_TYPE", "q4_K_M", "max_num_seqs"},
		{EngineTGI, "raising --max-concurrent-requests and --max-batch-total-tokens above 8", "--cuda-memory-fraction", "--speculate", "max_num_seqs"},
		{EngineUnknown, "raising the running-batch limit above 8 is likely safe (max_num_seqs in vLLM, --max-running-requests in SGLang", "more memory for the KV cache", "speculative decoding", ""},
	} {
		dep := deployment{engine: c.engine, speedUp: 1}
		q := adviceFor(Capacity{Method: MethodMeasured, Bottleneck: RegimeQueue, QueueLimit: QueueBySlots}, roomy, dep, "H100-SXM")
		if !strings.Contains(q, c.slots) || (c.notInQueue != "" && strings.Contains(q, c.notInQueue)) {
			t.Errorf("%s: slots advice %q lacks %q (or names %q)", c.engine, q, c.slots, c.notInQueue)
		}
		kv := adviceFor(Capacity{Method: MethodMeasured, Bottleneck: RegimeQueue, QueueLimit: QueueByKVCache}, full, dep, "H100-SXM")
		if !strings.Contains(kv, c.kv) || !strings.Contains(kv, "would not help") || strings.Contains(kv, "likely safe") {
			t.Errorf("%s: KV advice %q lacks %q", c.engine, kv, c.kv)
		}
		for _, b := range []Regime{RegimeDecode, RegimePrefill} {
			a := adviceFor(Capacity{Method: MethodMeasured, Bottleneck: b}, roomy, dep, "H100-SXM")
			if strings.Contains(a, "raising") || strings.Contains(a, knobsOf(c.engine).slots) || !strings.Contains(a, "more slots would not help") {
				t.Errorf("%s %s: advice %q", c.engine, b, a)
			}
			if b == RegimeDecode && !strings.Contains(a, c.decode) {
				t.Errorf("%s decode: advice %q lacks %q", c.engine, a, c.decode)
			}
		}
	}
}

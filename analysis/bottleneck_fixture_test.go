package analysis

import (
	"strings"
	"testing"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
)

// vsimScraped runs v over p's ladder and returns its records with the vLLM-named gauges
// the server would have exported (running and waiting as the virtual server held them,
// KV usage kv, no preemptions), scraped every 100 ms of virtual time inside each step's
// measurement window.
func vsimScraped(v vsim, p plan.Plan, kv float64) ([]rundir.Record, []rundir.MetricSample) {
	const base = int64(1_700_000_000) * 1e9
	var samples []rundir.MetricSample
	next := map[int]float64{}
	v.observe = func(step int, tMs float64, running, waiting int) {
		if tMs < v.warmupS*1000 || tMs > (v.warmupS+v.windowS)*1000 || tMs < next[step] {
			return
		}
		next[step] = tMs + 100
		samples = append(samples, rundir.MetricSample{TimeNs: base + int64(tMs*1e6), Step: step,
			URL: "http://127.0.0.1:8000/metrics", Values: map[string]float64{
				`vllm:num_requests_running{model_name="m"}`:  float64(running),
				`vllm:num_requests_waiting{model_name="m"}`:  float64(waiting),
				`vllm:kv_cache_usage_perc{model_name="m"}`:   kv,
				`vllm:num_preemptions_total{model_name="m"}`: 0,
			}})
	}
	return v.ladder(p), samples
}

// wavesSim: 256 slots that never fill, fixed lengths (users finish and resubmit in
// waves, so every wave's prompts are prefilled in one iteration) and ITL rising with
// the batch, 8 + 0.2·batch ms; prompts a quarter of the output. Decode binds: ITL p50 15
// ms breaks between 32 and 64 users. The queueing model, seeing TTFT jump with each
// wave, fits about 32 slots.
var wavesSim = vsim{slots: 256, d0: 8, d1: 0.2, prefillPerTok: 0.02, prompt: 100, output: 400,
	warmupS: 2, windowS: 20, seed: 5}

func wavesPlan() plan.Plan {
	return simPlan("waves", []int{1, 8, 32, 64}, plan.SLA{ITLMs: map[string]float64{"p50": 15}})
}

// TestServerMetricsOverrideFittedSlots: a decode-bound vLLM (--max-num-seqs 256) whose
// client curves the model fits with about 32 slots. Without server metrics the fitted
// slots call it queue-bound; with the server's gauges scraped (64 running, nothing
// waiting) it is decode-bound whatever the fit says (the fit itself is unchanged), no
// step is queue or prefill, and the advice names vLLM's decode settings, never
// max_num_seqs; the engine and its limit come from the launch command. Without the
// launch command (engine from the metric names, limit unknown) the verdict is the same.
func TestServerMetricsOverrideFittedSlots(t *testing.T) {
	p := wavesPlan()
	recs, samples := vsimScraped(wavesSim, p, 0.05)
	clientOnly, err := Analyze(writeRunDir(t, metaFor(p), recs, nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	co := clientOnly.Segments[0]
	if co.Fit == nil || !co.Fit.SlotsIdentified || co.Fit.Slots > 40 || co.Capacity.Bottleneck != RegimeQueue {
		t.Fatalf("precondition: without server metrics the fitted slots should call it queue-bound; fit %+v, bottleneck %s",
			co.Fit, co.Capacity.Bottleneck)
	}
	t.Logf("client only: %.1f fitted slots, %s: %s", co.Fit.Slots, co.Capacity.Bottleneck, co.Capacity.Advice)

	launched := p
	launched.Target = plan.Target{URL: "http://127.0.0.1:8000/v1",
		Launch: &plan.Launch{Command: []string{"vllm", "serve", "m", "--max-num-seqs", "256"}}}
	for _, c := range []struct {
		name    string
		p       plan.Plan
		engine  Engine
		limit   int
		sources string
	}{
		{"launched", launched, EngineVLLM, 256, "target.launch.command"},
		{"scraped only", p, EngineVLLM, 0, "its scraped metric names"},
	} {
		a, err := Analyze(writeRunDir(t, metaFor(c.p), recs, nil, samples))
		if err != nil {
			t.Fatal(err)
		}
		sa := a.Segments[0]
		cap := sa.Capacity
		t.Logf("%s: %s (%s): %s\nadvice: %s", c.name, cap.Bottleneck, cap.Method, cap.BottleneckEvidence, cap.Advice)
		if a.Engine != c.engine || a.EngineSource != c.sources || a.RunningLimit != c.limit {
			t.Errorf("%s: engine %q from %q, running limit %d; want %q from %q, %d", c.name, a.Engine, a.EngineSource,
				a.RunningLimit, c.engine, c.sources, c.limit)
		}
		if sa.Fit == nil || sa.Fit.Slots != co.Fit.Slots {
			t.Errorf("%s: the fit changed with the server metrics: %+v", c.name, sa.Fit)
		}
		if cap.Bottleneck != RegimeDecode || cap.QueueLimit != QueueLimitUnknown {
			t.Errorf("%s: bottleneck %s/%q, want decode", c.name, cap.Bottleneck, cap.QueueLimit)
		}
		for _, s := range sa.Steps {
			if s.Server == nil || s.Server.WaitingMean >= backlogMinMean {
				t.Errorf("%s: load %v: server %+v, want scraped with nothing waiting", c.name, s.Load, s.Server)
			}
			if s.Regime == RegimeQueue || s.Regime == RegimePrefill {
				t.Errorf("%s: load %v: regime %s (%s)", c.name, s.Load, s.Regime, s.RegimeEvidence)
			}
		}
		for _, bad := range []string{"max_num_seqs", "max-num-seqs", "slots the server runs"} {
			if strings.Contains(cap.Advice, bad) {
				t.Errorf("%s: advice mentions %q: %s", c.name, bad, cap.Advice)
			}
		}
		if !strings.Contains(cap.Advice, "--tensor-parallel-size") || !strings.Contains(cap.Advice, "--speculative-config") {
			t.Errorf("%s: decode advice lacks vLLM's settings: %s", c.name, cap.Advice)
		}
	}
}

// TestQuarterPromptsAreNotPrefill: prompts a quarter of the output (100 vs 400 tokens,
// 2 ms of prefill each) are not prefill-bound, with or without server metrics: no step
// is labelled prefill and the bottleneck is not prefill (the earlier rule called the
// step at 32 prefill-bound).
func TestQuarterPromptsAreNotPrefill(t *testing.T) {
	p := wavesPlan()
	recs, samples := vsimScraped(wavesSim, p, 0.05)
	for _, m := range [][]rundir.MetricSample{nil, samples} {
		a, err := Analyze(writeRunDir(t, metaFor(p), recs, nil, m))
		if err != nil {
			t.Fatal(err)
		}
		sa := a.Segments[0]
		for _, s := range sa.Steps {
			t.Logf("server %v, load %v: prompt %.0f output %.0f, regime %s: %s", m != nil, s.Load, s.PromptTokensMean,
				s.OutputTokensMean, s.Regime, s.RegimeEvidence)
			if s.Regime == RegimePrefill {
				t.Errorf("server metrics %v, load %v: prefill with prompts %.0f vs output %.0f", m != nil, s.Load,
					s.PromptTokensMean, s.OutputTokensMean)
			}
		}
		if sa.Capacity.Bottleneck == RegimePrefill {
			t.Errorf("server metrics %v: bottleneck prefill (%s)", m != nil, sa.Capacity.BottleneckEvidence)
		}
	}
}

// TestBottleneckDoesNotFlipWithTheLightestStep: without server metrics, the segment's
// bottleneck is the same whether the ladder starts at 1, 2 or 4 (the reference is the
// lower of the lightest step's and the fitted unloaded latency). Each case flipped
// under the earlier rule, which compared every step with the lightest one.
func TestBottleneckDoesNotFlipWithTheLightestStep(t *testing.T) {
	itl := plan.SLA{ITLMs: map[string]float64{"p50": 12}}
	for _, c := range []struct {
		name string
		v    vsim
		want Regime
	}{
		// 1,000-token prompts at 0.02 ms per token: prefill interference (a third of the
		// server's time at the capacity point) stretches ITL past 12 ms, where the batch's
		// own decode (8 + 0.08·batch ms) would not.
		{"prefill interference", vsim{slots: 256, d0: 8, d1: 0.08, prefillPerTok: 0.02, prompt: 1000, output: 50,
			jitter: true, warmupS: 2, windowS: 20, seed: 5}, RegimePrefill},
		// 200-token prompts (4 ms of prefill), ITL 8 + 0.5·batch ms: decode binds.
		{"decode", decodeSim, RegimeDecode},
	} {
		var got []string
		for _, ladder := range [][]int{{1, 4, 8, 16, 32, 64}, {2, 4, 8, 16, 32, 64}, {4, 8, 16, 32, 64}} {
			sa := analyzeSim(t, c.v, simPlan("flip", ladder, itl)).Segments[0]
			cap := sa.Capacity
			got = append(got, string(cap.Bottleneck))
			t.Logf("%s, ladder %v: capacity %.1f (%s), %s: %s", c.name, ladder, cap.MaxConcurrencyWithinSLA, cap.Method,
				cap.Bottleneck, cap.BottleneckEvidence)
			if !bracketed(cap) || cap.Bottleneck != c.want {
				t.Errorf("%s, ladder %v: %s bottleneck %s, want measured %s", c.name, ladder, cap.Method, cap.Bottleneck, c.want)
			}
		}
		t.Logf("%s: %v", c.name, got)
	}
}

// TestOllamaAdviceNamesItsSetting: an Ollama server (owned_by "library" in its
// /v1/models answer) with 4 parallel slots, driven past them: queue-bound, and the
// advice names OLLAMA_NUM_PARALLEL, never vLLM's max_num_seqs.
func TestOllamaAdviceNamesItsSetting(t *testing.T) {
	v := vsim{slots: 4, d0: 8, d1: 0.1, prefillPerTok: 0.02, prompt: 200, output: 100, jitter: true,
		warmupS: 5, windowS: 60, seed: 1}
	p := simPlan("ollama", []int{1, 2, 4, 8, 16, 24}, plan.SLA{TTFTMs: map[string]float64{"p95": 2000}})
	p.Target.URL = "http://127.0.0.1:8080/v1"
	meta := metaFor(p)
	meta.Models = map[string]any{"object": "list", "data": []any{
		map[string]any{"id": "stories260k", "object": "model", "owned_by": "library"}}}
	a, err := Analyze(writeRunDir(t, meta, v.ladder(p), nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	c := a.Segments[0].Capacity
	t.Logf("engine %s (%s): %s: %s", a.Engine, a.EngineSource, c.Bottleneck, c.Advice)
	if a.Engine != EngineOllama || c.Bottleneck != RegimeQueue {
		t.Fatalf("engine %q, bottleneck %s; want ollama, queue", a.Engine, c.Bottleneck)
	}
	if !strings.Contains(c.Advice, "raise OLLAMA_NUM_PARALLEL") || strings.Contains(c.Advice, "max_num_seqs") {
		t.Errorf("advice %q", c.Advice)
	}
}

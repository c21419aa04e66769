package importer_test

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/llmcap/llmcap/importer"
	"github.com/llmcap/llmcap/plan"
)

// vllmSummary is the part of a vllm bench serve result the test compares (ms).
type vllmSummary struct {
	MeanTTFT float64 `json:"mean_ttft_ms"`
	P99TTFT  float64 `json:"p99_ttft_ms"`
	MeanTPOT float64 `json:"mean_tpot_ms"`
	P99TPOT  float64 `json:"p99_tpot_ms"`
	MeanITL  float64 `json:"mean_itl_ms"`
	P99ITL   float64 `json:"p99_itl_ms"`
	Done     int     `json:"completed"`
	Failed   int     `json:"failed"`
}

// TestVLLMBenchLadderMatchesVLLMSummaries: two vllm bench serve results (request rate
// 6 and 2 req/s, given out of order) become one open-loop ladder whose analysis gives
// the results' own TTFT, TPOT and ITL means and p99s within 1%, comparing like with
// like: vLLM's ITL (mean_itl_ms) is every inter-chunk gap of every request
// flattened, which is llmcap's ICL; vLLM's TPOT, per request (latency − ttft)/(output
// length − 1), is llmcap's ITL. The fixtures' chunks carry up to 3 tokens, so the two
// differ, and the test checks that they do (a swap would fail). The summaries were
// computed by testdata/make_fixtures.py as vLLM's calculate_metrics does.
func TestVLLMBenchLadderMatchesVLLMSummaries(t *testing.T) {
	files := []string{filepath.Join("testdata", "vllm", "rate6.json"), filepath.Join("testdata", "vllm", "rate2.json")}
	res, dir := importInto(t, importer.FormatVLLMBench, files, nil)
	steps := analyze(t, dir)
	want := []struct {
		rate float64
		file string
	}{{2, files[1]}, {6, files[0]}}
	if len(steps) != 2 {
		t.Fatalf("%d steps, want 2", len(steps))
	}
	for i, st := range steps {
		if st.Schedule != plan.ScheduleRate || st.Rate != want[i].rate {
			t.Errorf("step %d: %s %g, want rate %g", i+1, st.Schedule, st.Rate, want[i].rate)
		}
		var sum vllmSummary
		readJSON(t, want[i].file, &sum)
		name := filepath.Base(want[i].file)
		within1pct(t, name+" TTFT mean", st.TTFTMs.Mean, sum.MeanTTFT)
		within1pct(t, name+" TTFT p99", st.TTFTMs.P99, sum.P99TTFT)
		within1pct(t, name+" ITL (vLLM TPOT) mean", st.ITLMs.Mean, sum.MeanTPOT)
		within1pct(t, name+" ITL (vLLM TPOT) p99", st.ITLMs.P99, sum.P99TPOT)
		within1pct(t, name+" ICL (vLLM ITL) mean", st.ICLMs.Mean, sum.MeanITL)
		within1pct(t, name+" ICL (vLLM ITL) p99", st.ICLMs.P99, sum.P99ITL)
		if math.Abs(st.ITLMs.Mean-sum.MeanITL) < 0.2*sum.MeanITL {
			t.Errorf("%s: llmcap ITL mean %.3f ms is within 20%% of vLLM's mean_itl_ms %.3f: the fixture no longer tells chunk gaps from per-token latency",
				name, st.ITLMs.Mean, sum.MeanITL)
		}
		if st.TTFTMs.N != sum.Done || st.Errors != sum.Failed {
			t.Errorf("%s: %d successes, %d errors; vLLM: completed %d, failed %d", name, st.TTFTMs.N, st.Errors, sum.Done, sum.Failed)
		}
	}
	if p := res.Plan; p.Target.Model != "Qwen/Qwen3-0.6B" || p.Target.URL != importer.UnknownURL || p.Target.API != "chat" {
		t.Errorf("target %q %q %q, want the result's model, the unknown URL and chat", p.Target.Model, p.Target.URL, p.Target.API)
	}
}

// TestVLLMBenchWithoutStartTimesReconstructsTheClosedLoop: a result from a vLLM
// version that saved neither start_times nor latencies (request_rate inf,
// max_concurrency 8) imports as a closed loop at concurrency 8 whose send times are
// laid out by 8 slots — at most 8 in flight, 8 at once — with E2E = TTFT + the sum of
// the chunk gaps, its statistics still those of the file, and the description saying
// the send times were reconstructed.
func TestVLLMBenchWithoutStartTimesReconstructsTheClosedLoop(t *testing.T) {
	file := filepath.Join("testdata", "vllm", "legacy-c8.json")
	res, dir := importInto(t, importer.FormatVLLMBench, []string{file}, nil)
	steps := analyze(t, dir)
	if len(steps) != 1 || steps[0].Schedule != plan.ScheduleConcurrency || steps[0].Concurrency != 8 {
		t.Fatalf("steps %+v, want one at concurrency 8", steps)
	}
	var sum vllmSummary
	readJSON(t, file, &sum)
	within1pct(t, "TTFT mean", steps[0].TTFTMs.Mean, sum.MeanTTFT)
	within1pct(t, "ICL (vLLM ITL) p99", steps[0].ICLMs.P99, sum.P99ITL)
	within1pct(t, "ITL (vLLM TPOT) mean", steps[0].ITLMs.Mean, sum.MeanTPOT)
	sums := readSteps(t, dir)
	if len(sums) != 1 || sums[0].MaxInFlight != 8 {
		t.Errorf("steps.jsonl %+v: want one step with at most 8 requests in flight, reached", sums)
	}
	if d := res.Plan.Description; !contains(d, "send times reconstructed") || !contains(d, file) {
		t.Errorf("description %q does not say the send times of %s were reconstructed", d, file)
	}
}

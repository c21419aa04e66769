package importer_test

import (
	"path/filepath"
	"strconv"
	"testing"

	"github.com/llmcap/llmcap/importer"
	"github.com/llmcap/llmcap/plan"
)

// aiperfStat is one metric of profile_export_aiperf.json (JsonMetricResult).
type aiperfStat struct {
	Avg float64 `json:"avg"`
	P99 float64 `json:"p99"`
}

// aiperfSummaryFile is the part of profile_export_aiperf.json the test compares.
type aiperfSummaryFile struct {
	TTFT       aiperfStat `json:"time_to_first_token"`
	ITL        aiperfStat `json:"inter_token_latency"`
	ICL        aiperfStat `json:"inter_chunk_latency"`
	E2E        aiperfStat `json:"request_latency"`
	Count      aiperfStat `json:"request_count"`
	ErrorCount aiperfStat `json:"error_request_count"`
}

// TestAIPerfLadderMatchesAIPerfSummaries: three AIPerf exports (concurrency 1, 4 and
// 16, given out of order) become one run directory of three steps in load order whose
// analysis gives, per step, the TTFT, ITL, inter-chunk and request latencies' mean
// and p99 that AIPerf's own profile_export_aiperf.json reports, within 1%. AIPerf's
// inter_token_latency is per request, (E2E − TTFT)/(OSL − 1), as llmcap's ITL is; its
// inter_chunk_latency is every chunk gap flattened, as llmcap's ICL is. The summaries
// were computed by testdata/make_fixtures.py the way AIPerf does (numpy linear
// percentiles over the profiling records), the warm-up records left out.
func TestAIPerfLadderMatchesAIPerfSummaries(t *testing.T) {
	levels := []int{16, 1, 4}
	var files []string
	for _, c := range levels {
		files = append(files, filepath.Join("testdata", "aiperf", "c"+strconv.Itoa(c)))
	}
	res, dir := importInto(t, importer.FormatAIPerf, files, nil)
	if len(res.Skipped) != 0 {
		t.Errorf("skipped %v, want none", res.Skipped)
	}
	steps := analyze(t, dir)
	want := []int{1, 4, 16}
	if len(steps) != len(want) {
		t.Fatalf("%d steps, want %d", len(steps), len(want))
	}
	for i, st := range steps {
		if st.Schedule != plan.ScheduleConcurrency || st.Concurrency != want[i] {
			t.Errorf("step %d: %s %d, want concurrency %d", i+1, st.Schedule, st.Concurrency, want[i])
		}
		var sum aiperfSummaryFile
		readJSON(t, filepath.Join("testdata", "aiperf", "c"+strconv.Itoa(want[i]), importer.AIPerfSummaryFile), &sum)
		name := "c" + strconv.Itoa(want[i])
		within1pct(t, name+" TTFT mean", st.TTFTMs.Mean, sum.TTFT.Avg)
		within1pct(t, name+" TTFT p99", st.TTFTMs.P99, sum.TTFT.P99)
		within1pct(t, name+" ITL mean", st.ITLMs.Mean, sum.ITL.Avg)
		within1pct(t, name+" ITL p99", st.ITLMs.P99, sum.ITL.P99)
		within1pct(t, name+" ICL mean", st.ICLMs.Mean, sum.ICL.Avg)
		within1pct(t, name+" ICL p99", st.ICLMs.P99, sum.ICL.P99)
		within1pct(t, name+" E2E mean", st.E2EMs.Mean, sum.E2E.Avg)
		within1pct(t, name+" E2E p99", st.E2EMs.P99, sum.E2E.P99)
		if st.TTFTMs.N != int(sum.Count.Avg) || st.Errors != int(sum.ErrorCount.Avg) || st.WarmupRequests != 2 {
			t.Errorf("%s: %d successes, %d errors, %d warm-up; AIPerf: %g requests, %g errors, 2 warm-up",
				name, st.TTFTMs.N, st.Errors, st.WarmupRequests, sum.Count.Avg, sum.ErrorCount.Avg)
		}
	}
	if p := res.Plan; p.Target.Model != "Qwen/Qwen3-0.6B" || p.Target.URL != "http://127.0.0.1:8000/v1" || p.Target.API != "chat" {
		t.Errorf("target %q %q %q, want the summary's model, URL + /v1 and chat", p.Target.Model, p.Target.URL, p.Target.API)
	}
}

package report

import (
	"bytes"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/llmcap/llmcap/analysis"
	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
)

// engineNames are one engine's metric names for running and waiting requests, KV-cache
// usage (a 0..1 gauge) and preemptions (a counter), as its /metrics exposes them.
type engineNames struct{ running, waiting, kv, preempt string }

var (
	sglangNames = engineNames{"sglang:num_running_reqs", "sglang:num_queue_reqs", "sglang:token_usage",
		"sglang:num_retracted_requests_total"}
	vllmNames = engineNames{"vllm:num_requests_running", "vllm:num_requests_waiting", "vllm:kv_cache_usage_perc",
		"vllm:num_preemptions_total"}
)

// engineScrape is one scrape of the engine run: the totals the test expects to be read
// back (running and waiting summed over the two data-parallel ranks, KV usage the
// fuller rank's, preemptions summed).
type engineScrape struct {
	timeNs                      int64
	step                        int
	running, waiting, kv, pre   float64
	rank1Running, rank1KV, pre1 float64 // rank 1's share; rank 0 holds the rest
}

// engineSlots is the server's batch limit in the engine run.
const engineSlots = 4

// engineRunScrapes are the scrapes of a two-step closed-loop run (concurrency 2, 6):
// per step one warm-up scrape before the measurement window (running 100, which the
// analysis must leave out), five inside it, and one scrape between the steps (step −1).
func engineRunScrapes(t0 int64) []engineScrape {
	var out []engineScrape
	for s, load := range []float64{2, 6} {
		base := t0 + int64(s)*100e9
		out = append(out, engineScrape{timeNs: base + 2e9, step: s, running: 100, rank1Running: 1, kv: 0.99, rank1KV: 0.01})
		running := math.Min(load, engineSlots)
		for j := 0; j < 5; j++ {
			out = append(out, engineScrape{timeNs: base + int64(10+10*j)*1e9, step: s,
				running: running, rank1Running: 1,
				waiting: math.Max(0, load-engineSlots) + float64(j),
				kv:      0.1*running + 0.05*float64(j), rank1KV: 0.02,
				pre: float64(10*s+2*j) + 1, pre1: 1})
		}
		out = append(out, engineScrape{timeNs: base + 80e9, step: -1, rank1Running: 0, kv: 0.01, rank1KV: 0.01})
	}
	return out
}

// values renders a scrape under names, split over the label sets dp_rank 0 and 1.
func (sc engineScrape) values(n engineNames) map[string]float64 {
	lbl := func(rank int) string { return fmt.Sprintf(`{dp_rank="%d",model_name="m"}`, rank) }
	return map[string]float64{
		n.running + lbl(0): sc.running - sc.rank1Running, n.running + lbl(1): sc.rank1Running,
		n.waiting + lbl(0): sc.waiting, n.waiting + lbl(1): 0,
		n.kv + lbl(0): sc.kv, n.kv + lbl(1): sc.rank1KV,
		n.preempt + lbl(0): sc.pre - sc.pre1, n.preempt + lbl(1): sc.pre1,
		// a histogram no chart reads, as every engine exposes
		"sglang:e2e_request_latency_seconds_sum" + lbl(0): 12.5,
	}
}

// writeEngineRun writes the two-step run through rundir.Writer, its scrapes carrying
// names; it returns the run directory and the scrapes.
func writeEngineRun(t *testing.T, names engineNames) (string, []engineScrape) {
	t.Helper()
	p := plan.Plan{Name: "engines", Seed: 1,
		Target:   plan.Target{URL: "http://127.0.0.1:30000/v1", API: "chat", Model: "m", MetricsURLs: []string{"http://127.0.0.1:30000/metrics"}},
		Segments: []plan.Segment{{Name: "chat", Weight: 1}},
		Ladder:   plan.Ladder{Concurrency: []int{2, 6}, Duration: time.Minute},
		SLA:      plan.SLA{TTFTMs: map[string]float64{"p95": 1000}}}
	dir := t.TempDir()
	w, err := rundir.OpenWriter(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.WriteMeta(&rundir.RunMeta{RunID: "engines", ToolVersion: "test", State: rundir.StateComplete, Plan: p, Steps: p.Steps()}); err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC).UnixNano()
	for _, st := range p.Steps() {
		base := t0 + int64(st.Index)*100e9
		var recs []*rundir.Record
		for i := 0; i < 30; i++ {
			sent := base + 10e9 + int64(i)*1e9
			ttft, itl, e2e := 100.0+10*float64(st.Concurrency), 10.0, 1100.0
			recs = append(recs, &rundir.Record{RunID: "engines", Segment: "chat", Step: st.Index, Schedule: plan.ScheduleConcurrency,
				Concurrency: st.Concurrency, Phase: rundir.PhaseMeasure, SentNs: sent, EndNs: sent + 1.1e9,
				TTFTMs: &ttft, ITLMs: &itl, E2EMs: &e2e, PromptTokens: 50, OutputTokens: 101,
				TokensSource: rundir.TokensUsage, Status: rundir.StatusOK})
		}
		if err := w.AppendRecords(recs); err != nil {
			t.Fatal(err)
		}
		if err := w.AppendStep(&rundir.StepSummary{Step: st, RunID: "engines", StartNs: base, MeasureStartNs: base + 5e9,
			MeasureEndNs: base + 65e9, EndNs: base + 70e9, MeasureRequests: 30}); err != nil {
			t.Fatal(err)
		}
	}
	scrapes := engineRunScrapes(t0)
	for _, sc := range scrapes {
		if err := w.AppendMetric(&rundir.MetricSample{TimeNs: sc.timeNs, Step: sc.step, URL: p.Target.MetricsURLs[0], Values: sc.values(names)}); err != nil {
			t.Fatal(err)
		}
	}
	return dir, scrapes
}

// TestSGLangRunChartsAndAnalysisReadTheSameValues: a run whose server-metrics.jsonl
// carries SGLang names draws non-empty server-queue and server-kv charts whose points
// are the scraped values, and the analysis reads the same running, waiting, KV and
// preemption values for each step's window.
func TestSGLangRunChartsAndAnalysisReadTheSameValues(t *testing.T) {
	dir, scrapes := writeEngineRun(t, sglangNames)
	a, err := analysis.Analyze(dir)
	if err != nil {
		t.Fatal(err)
	}
	in, err := loadInput(dir, a)
	if err != nil {
		t.Fatal(err)
	}
	running, waiting := serverQueueSeries(in.metrics)
	kv := serverKVSeries(in.metrics)
	if len(running) != len(scrapes) || len(waiting) != len(scrapes) || len(kv) != len(scrapes) {
		t.Fatalf("series of %d, %d, %d points for %d scrapes", len(running), len(waiting), len(kv), len(scrapes))
	}
	for i, sc := range scrapes {
		x := float64(sc.timeNs-scrapes[0].timeNs) / 1e9
		if running[i].X != x || running[i].Y != sc.running || waiting[i].Y != sc.waiting || math.Abs(kv[i].Y-100*sc.kv) > 1e-9 {
			t.Errorf("scrape %d at %v s: running %v waiting %v KV %v %%; want %v, %v, %v %%",
				i, x, running[i], waiting[i].Y, kv[i].Y, sc.running, sc.waiting, 100*sc.kv)
		}
	}
	steps := a.Segments[0].Steps
	if len(steps) != 2 {
		t.Fatalf("%d steps, want 2", len(steps))
	}
	for _, st := range steps {
		want := windowStats(scrapes, st.Step)
		sv := st.Server
		if sv == nil {
			t.Fatalf("step %d: no server stats read from the SGLang names", st.Step)
		}
		if sv.RunningMean != want.RunningMean || sv.WaitingMean != want.WaitingMean || sv.WaitingMax != want.WaitingMax ||
			math.Abs(sv.KVCacheUsageMax-want.KVCacheUsageMax) > 1e-12 || sv.Preemptions != want.Preemptions {
			t.Errorf("step %d: server stats %+v, want %+v", st.Step, *sv, want)
		}
	}
	// The expected values themselves, so that windowStats cannot drift with the data.
	if s1 := steps[1].Server; s1.RunningMean != 4 || s1.WaitingMean != 4 || s1.WaitingMax != 6 ||
		math.Abs(s1.KVCacheUsageMax-0.6) > 1e-12 || s1.Preemptions != 8 {
		t.Errorf("step 1 server stats %+v, want running 4, waiting mean 4 max 6, KV 0.6, preemptions 8", *s1)
	}
	charts := map[string]Chart{}
	for _, c := range buildCharts(in) {
		charts[c.Name] = c
	}
	for _, name := range []string{"server-queue", "server-kv"} {
		if c, ok := charts[name]; !ok || c.Err != nil || len(c.SVG) == 0 {
			t.Errorf("chart %s: present %v, err %v, %d SVG bytes", name, ok, c.Err, len(c.SVG))
		}
	}
}

// TestServerChartsSameForSGLangAndVLLMNames: the same scrapes under vLLM names (what
// the simulator emits) and SGLang names draw byte-identical server charts.
func TestServerChartsSameForSGLangAndVLLMNames(t *testing.T) {
	lowDPI(t)
	svgs := map[engineNames]map[string][]byte{}
	for _, names := range []engineNames{sglangNames, vllmNames} {
		dir, _ := writeEngineRun(t, names)
		a, err := analysis.Analyze(dir)
		if err != nil {
			t.Fatal(err)
		}
		in, err := loadInput(dir, a)
		if err != nil {
			t.Fatal(err)
		}
		svgs[names] = map[string][]byte{}
		for _, c := range buildCharts(in) {
			if c.Err != nil && (c.Name == "server-queue" || c.Name == "server-kv") {
				t.Errorf("%s: chart %s: %v", names.running, c.Name, c.Err)
			}
			svgs[names][c.Name] = c.SVG
		}
	}
	for _, name := range []string{"server-queue", "server-kv"} {
		s, v := svgs[sglangNames][name], svgs[vllmNames][name]
		if len(s) == 0 || !bytes.Equal(s, v) {
			t.Errorf("%s: SGLang chart (%d bytes) differs from the vLLM one (%d bytes)", name, len(s), len(v))
		}
	}
}

// windowStats is what the analysis should read for step: the scrapes of the step inside
// its measurement window (the five at 10..50 s), averaged or maximised by hand.
func windowStats(scrapes []engineScrape, step int) analysis.ServerStats {
	var out analysis.ServerStats
	var n int
	var first, last float64
	for _, sc := range scrapes {
		if sc.step != step || sc.running == 100 { // the warm-up scrape lies outside the window
			continue
		}
		if n == 0 {
			first = sc.pre
		}
		last = sc.pre
		n++
		out.RunningMean += sc.running
		out.WaitingMean += sc.waiting
		out.WaitingMax = math.Max(out.WaitingMax, sc.waiting)
		out.KVCacheUsageMax = math.Max(out.KVCacheUsageMax, sc.kv)
	}
	out.RunningMean /= float64(n)
	out.WaitingMean /= float64(n)
	out.Preemptions = last - first
	return out
}

func TestServerSheetKeepsReadMetricsUnderTheColumnCap(t *testing.T) {
	vals := sglangScrapeForSheet()
	names := serverMetricNames([]rundir.MetricSample{{Values: vals}})
	if len(names) != maxServerColumns {
		t.Fatalf("%d columns, want the cap %d", len(names), maxServerColumns)
	}
	has := map[string]bool{}
	for i, n := range names {
		has[n] = true
		if i > 0 && names[i-1] >= n {
			t.Errorf("columns not sorted: %q before %q", names[i-1], n)
		}
	}
	for _, want := range []string{`sglang:num_running_reqs{model_name="m"}`, `sglang:num_queue_reqs{model_name="m"}`,
		`sglang:token_usage{model_name="m"}`} {
		if !has[want] {
			t.Errorf("column %s dropped by the cap", want)
		}
	}
	if has[`sglang:zz_other_69{model_name="m"}`] {
		t.Error("an unread metric was kept over a read one")
	}
	// Under the cap nothing changes: every non-bucket key, sorted.
	few := serverMetricNames([]rundir.MetricSample{{Values: map[string]float64{"b": 1, "a": 2, `c_bucket{le="1"}`: 3}}})
	if len(few) != 2 || few[0] != "a" || few[1] != "b" {
		t.Errorf("small sheet columns %v, want [a b]", few)
	}
}

// sglangScrapeForSheet is an SGLang scrape with more unread metrics than the sheet's
// cap, all sorting before the read ones ("sglang:a..." < "sglang:num_...").
func sglangScrapeForSheet() map[string]float64 {
	vals := map[string]float64{
		`sglang:num_running_reqs{model_name="m"}`: 3, `sglang:num_queue_reqs{model_name="m"}`: 1,
		`sglang:token_usage{model_name="m"}`: 0.4,
	}
	for i := 0; i < 70; i++ {
		vals[fmt.Sprintf(`sglang:aa_other_%02d{model_name="m"}`, i)] = float64(i)
	}
	vals[`sglang:zz_other_69{model_name="m"}`] = 1
	return vals
}

package sweep

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/sla"
	"github.com/llmcap/llmcap/tracefile"
)

// rtTraces is the real trace directory, relative to this package.
const rtTraces = "../data/traces/"

func rtNeedFile(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("real trace data missing (%v): it ships in data/traces", err)
	}
}

type rtMooncakeRow struct {
	Timestamp    float64 `json:"timestamp"`
	InputLength  int     `json:"input_length"`
	OutputLength int     `json:"output_length"`
	HashIDs      []int64 `json:"hash_ids"`
}

func rtMooncake(t *testing.T, path string, start, rows int) []rtMooncakeRow {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	var out []rtMooncakeRow
	for i := 0; sc.Scan() && len(out) < rows; i++ {
		if i < start {
			continue
		}
		var r rtMooncakeRow
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

func TestTraceReplayMooncake(t *testing.T) {
	file := rtTraces + "mooncake_conversation_trace.jsonl"
	rtNeedFile(t, file)
	want := rtMooncake(t, file, 200, 40)
	span := want[len(want)-1].Timestamp - want[0].Timestamp // ms
	srv := newRTServer(t, 2*time.Millisecond, time.Millisecond)
	p := rtPlan(srv.url())
	tr := &plan.Trace{Format: plan.TraceMooncake, File: file, TimeScale: 500 / span,
		PromptScale: 0.05, OutputScale: 0.01, MaxOutputTokens: 4, StartRow: 200, Rows: 40}
	p.Segments = []plan.Segment{{Name: "mooncake", Weight: 1, Trace: tr}}
	p.Ladder = plan.Ladder{Concurrency: []int{1}, Duration: time.Minute, Grace: 5 * time.Second}
	dir := t.TempDir()
	if err := Run(context.Background(), p, Options{OutDir: dir}); err != nil {
		t.Fatal(err)
	}
	recs, steps, _ := rtRead(t, dir)
	if len(recs) != 40 || len(steps) != 1 || steps[0].Schedule != plan.ScheduleTrace {
		t.Fatalf("%d records, steps %+v; want 40 trace records", len(recs), steps)
	}
	sort.Slice(recs, func(i, j int) bool { return recs[i].RequestID < recs[j].RequestID })
	for i, r := range recs {
		w := want[i]
		wantOff := (w.Timestamp - want[0].Timestamp) * 1e6 * tr.TimeScale
		if got := float64(r.ScheduledNs - recs[0].ScheduledNs); math.Abs(got-wantOff) > 1e3 {
			t.Errorf("row %d scheduled at +%.3f ms, want +%.3f ms", i, got/1e6, wantOff/1e6)
		}
		wp := max(int(math.Round(float64(w.InputLength)*0.05)), 1)
		wo := min(max(int(math.Round(float64(w.OutputLength)*0.01)), 1), 4)
		if r.IntendedPromptTokens != wp || r.PromptTokens != wp || r.IntendedOutputTokens != wo || r.OutputTokens != wo {
			t.Errorf("row %d: prompt %d/%d output %d/%d, want %d, %d", i, r.IntendedPromptTokens,
				r.PromptTokens, r.IntendedOutputTokens, r.OutputTokens, wp, wo)
		}
		if !r.OK() {
			t.Errorf("row %d failed: %s", i, r.Error)
		}
	}
}

func TestMooncakeHashIDsShareBlocks(t *testing.T) {
	file := rtTraces + "mooncake_conversation_trace.jsonl"
	rtNeedFile(t, file)
	td, err := loadTrace(plan.Trace{Format: plan.TraceMooncake, File: file, PromptScale: 0.25, Rows: 200}, "")
	if err != nil {
		t.Fatal(err)
	}
	if td.blockWords != 128 {
		t.Fatalf("block words %d, want 512 × 0.25", td.blockWords)
	}
	shared, distinct := 0, 0
	for i := 1; i < len(td.rows); i++ {
		a, b := td.rows[0], td.rows[i]
		wa := strings.Fields(td.promptText(a, 3, seededRand(1, uint64(i))))
		wb := strings.Fields(td.promptText(b, 3, seededRand(2, uint64(i))))
		if len(wa) != a.Prompt || len(wb) != b.Prompt {
			t.Fatalf("prompt words %d, %d; want %d, %d", len(wa), len(wb), a.Prompt, b.Prompt)
		}
		// Common leading blocks: equal hash ids give equal words, block by block.
		k := 0
		for k < len(a.HashIDs) && k < len(b.HashIDs) && a.HashIDs[k] == b.HashIDs[k] {
			k++
		}
		n := min(k*td.blockWords, len(wa), len(wb))
		if strings.Join(wa[:n], " ") != strings.Join(wb[:n], " ") {
			t.Fatalf("rows 0 and %d share %d blocks but not their first %d words", i, k, n)
		}
		if k > 0 {
			shared++
		}
		if n < min(len(wa), len(wb)) && strings.Join(wa[n:n+min(20, len(wa)-n, len(wb)-n)], " ") ==
			strings.Join(wb[n:n+min(20, len(wa)-n, len(wb)-n)], " ") {
			t.Fatalf("rows 0 and %d agree past their shared blocks", i)
		}
		distinct++
	}
	if shared == 0 {
		t.Fatal("no row shares a prefix block with row 0; the test checks nothing")
	}
}

func TestTraceReplayAzureWindow(t *testing.T) {
	file := rtTraces + "AzureLLMInferenceTrace_code_2023.csv"
	rtNeedFile(t, file)
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	all, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	rows := all[1+1000 : 1+1000+30]
	t0, _ := time.Parse(tracefile.AzureTimeLayout, rows[0][0])
	t1, _ := time.Parse(tracefile.AzureTimeLayout, rows[len(rows)-1][0])
	scale := 0.4 / t1.Sub(t0).Seconds()
	td, err := loadTrace(plan.Trace{Format: plan.TraceAzure, File: file, TimeScale: scale,
		PromptScale: 0.5, MaxPromptTokens: 600, StartRow: 1000, Rows: 30}, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(td.rows) != 30 {
		t.Fatalf("%d rows, want 30", len(td.rows))
	}
	for i, r := range rows {
		at, _ := time.Parse(tracefile.AzureTimeLayout, r[0])
		ctx, _ := strconv.Atoi(r[1])
		gen, _ := strconv.Atoi(r[2])
		wantOff := float64(at.Sub(t0)) * scale
		if math.Abs(float64(td.rows[i].Offset)-wantOff) > 1e3 {
			t.Errorf("row %d offset %s, want %s", i, td.rows[i].Offset, time.Duration(wantOff))
		}
		if wp := min(max(int(math.Round(float64(ctx)*0.5)), 1), 600); td.rows[i].Prompt != wp {
			t.Errorf("row %d prompt %d, want %d", i, td.rows[i].Prompt, wp)
		}
		if td.rows[i].Output != max(gen, 1) {
			t.Errorf("row %d output %d, want %d", i, td.rows[i].Output, gen)
		}
	}
}

func TestWorkloadPromptsAndSessions(t *testing.T) {
	p := rtPlan("http://unused/v1")
	p.Segments = []plan.Segment{
		{Name: "a", Weight: 3, PromptTokens: plan.Dist{Kind: plan.DistLognormal, Mean: 200, StdDev: 80, Min: 50, Max: 400},
			OutputTokens: plan.Dist{Kind: plan.DistFixed, Value: 8}, SharedPrefixTokens: 40},
		{Name: "b", Weight: 1, PromptTokens: plan.Dist{Kind: plan.DistEmpirical,
			File: rtTraces + "vidur_arxiv_summarization_stats_llama2_tokenizer_filtered_v2.csv", Column: "num_prefill_tokens"},
			OutputTokens: plan.Dist{Kind: plan.DistUniform, Min: 2, Max: 5},
			MultiTurn:    &plan.MultiTurn{Turns: 3, ThinkTimeS: plan.Dist{Kind: plan.DistFixed, Value: 0.5}}},
	}
	rtNeedFile(t, p.Segments[1].PromptTokens.File)
	var segs []*segmentGen
	for i := range p.Segments {
		g, err := newSegmentGen(p, i, "")
		if err != nil {
			t.Fatal(err)
		}
		segs = append(segs, g)
	}
	wl, wl2 := newWorkload(p, 0, segs), newWorkload(p, 0, segs)
	now := time.Now()
	counts := map[string]int{}
	var prefix string
	for i := 0; i < 400; i++ {
		j, j2 := wl.next(now), wl2.next(now)
		text := j.req.Messages[len(j.req.Messages)-1].Content
		if text != j2.req.Messages[len(j2.req.Messages)-1].Content || j.intendedP != j2.intendedP {
			t.Fatal("same seed gave different prompts")
		}
		words := 0
		for _, m := range j.req.Messages {
			words += len(strings.Fields(m.Content))
		}
		if words != j.intendedP {
			t.Fatalf("%d words sent for %d intended prompt tokens", words, j.intendedP)
		}
		counts[j.seg.name]++
		if j.seg.name == "a" {
			if pre := strings.Join(strings.Fields(text)[:40], " "); prefix == "" {
				prefix = pre
			} else if pre != prefix {
				t.Fatal("segment a prompts do not share their 40-word prefix")
			}
		}
		if j.seg.name == "b" && j.turn == 0 {
			wl.done(j, "four words of answer", true, now)
			wl2.done(j2, "four words of answer", true, now)
		}
	}
	if f := float64(counts["a"]) / 400; math.Abs(f-0.75) > 0.08 {
		t.Errorf("segment a drew %.2f of requests, want ≈ 0.75 by weight", f)
	}
	// Sessions of b whose think time has elapsed come back with their history.
	later := now.Add(time.Second)
	j := wl.next(later)
	if j.seg.name != "b" || j.turn != 1 || len(j.req.Messages) != 3 || j.req.Messages[1].Role != "assistant" {
		t.Fatalf("next turn after think time: seg %s turn %d messages %d", j.seg.name, j.turn, len(j.req.Messages))
	}
	if j.intendedP <= len(strings.Fields(j.req.Messages[2].Content)) {
		t.Errorf("turn 2 intended prompt %d does not include history", j.intendedP)
	}
}

func TestGammaArrivalsBurstiness(t *testing.T) {
	for _, k := range []float64{0.25, 1, 4} {
		p := &plan.Plan{Seed: 1, Ladder: plan.Ladder{Arrival: plan.ArrivalGamma, Burstiness: k}}
		a := newArrivals(p, plan.Step{Rate: 50})
		var gaps []float64
		prev := a.next()
		for i := 0; i < 20000; i++ {
			at := a.next()
			gaps = append(gaps, float64(at-prev)/1e9)
			prev = at
		}
		mean := sla.Summarize(slices.Clone(gaps)).Mean
		var v float64
		for _, g := range gaps {
			v += (g - mean) * (g - mean)
		}
		cv := math.Sqrt(v/float64(len(gaps))) / mean
		if math.Abs(mean-0.02) > 0.002 || math.Abs(cv-1/math.Sqrt(k)) > 0.1/math.Sqrt(k) {
			t.Errorf("gamma k=%g: mean gap %.4f s (want 0.02), CV %.3f (want %.3f)", k, mean, cv, 1/math.Sqrt(k))
		}
	}
}

// TestTokensFromClamps: a draw is clamped to [1, plan.MaxTokens] before the conversion
// to int, so a huge value (an empirical file's, an unclamped normal's tail) cannot wrap
// to a 1-token or negative prompt.
func TestTokensFromClamps(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, v := range []float64{1e30, 1e19, math.Inf(1), float64(plan.MaxTokens) + 0.6} {
		if got := tokensFrom(fixedSampler(v), r); got != plan.MaxTokens {
			t.Errorf("tokensFrom(%g) = %d, want %d", v, got, plan.MaxTokens)
		}
	}
	for _, v := range []float64{-1e30, 0, math.NaN()} {
		if got := tokensFrom(fixedSampler(v), r); got != 1 {
			t.Errorf("tokensFrom(%g) = %d, want 1", v, got)
		}
	}
	if got := tokensFrom(fixedSampler(41.6), r); got != 42 {
		t.Errorf("tokensFrom(41.6) = %d, want 42", got)
	}
}

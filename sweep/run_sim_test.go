package sweep

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/llmcap/llmcap/rundir"

	"github.com/llmcap/llmcap/plan"
)

// simPlan is a fast plan against the embedded simulator: a 1B model on an H200 with
// room for every stream in one batch.
func simPlan(conc, requests int) *plan.Plan {
	return &plan.Plan{
		Name: "sim", Seed: 3,
		Target: plan.Target{URL: plan.TargetSimulator, API: "chat",
			ExtraBody: map[string]any{"ignore_eos": true},
			Simulator: plan.Simulator{GPU: "H200", Model: "llama-3.2-1b", MaxNumSeqs: 2048,
				MaxNumBatchedTokens: 65536, SpeedUp: 4},
			MetricsInterval: 100 * time.Millisecond},
		Segments: []plan.Segment{{Name: "chat", Weight: 1,
			PromptTokens: plan.Dist{Kind: plan.DistUniform, Min: 16, Max: 48},
			OutputTokens: plan.Dist{Kind: plan.DistFixed, Value: 16}}},
		Ladder: plan.Ladder{Concurrency: []int{conc}, Requests: requests, Grace: 30 * time.Second},
		SLA:    plan.SLA{MaxErrorRate: 0.01},
	}
}

// TestSimulator2000ConcurrentStreams drives 2,000 concurrent streams (closed loop, the
// whole window) against the embedded simulator and requires zero client errors. It also
// checks run.json's simulator settings and the simulator's scraped /metrics.
func TestSimulator2000ConcurrentStreams(t *testing.T) {
	if testing.Short() {
		t.Skip("2,000 streams: skipped with -short")
	}
	p := simPlan(2000, 4000)
	dir := t.TempDir()
	start := time.Now()
	if err := Run(context.Background(), p, Options{OutDir: dir}); err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	recs, steps, meta := rtRead(t, dir)
	errs := map[string]int{}
	for _, r := range recs {
		if !r.OK() {
			errs[r.ErrorClass+": "+r.Error]++
		} else if r.OutputTokens != 16 || r.PromptTokens != r.IntendedPromptTokens {
			t.Fatalf("tokens: %+v", r)
		}
	}
	if len(errs) > 0 {
		t.Fatalf("client errors: %v", errs)
	}
	if len(steps) != 1 || steps[0].MaxInFlight != 2000 || steps[0].MeasureRequests != 4000 {
		t.Fatalf("step summary %+v", steps)
	}
	if !meta.Target.Simulator || meta.Target.Settings["max_num_seqs"] == nil || meta.Models == nil {
		t.Errorf("run.json target %+v models %v", meta.Target, meta.Models)
	}
	samples := 0
	rtLines(t, filepath.Join(dir, rundir.FileServerMetrics), func(b []byte) {
		var m rundir.MetricSample
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		if m.Step == 0 && len(m.Values) > 0 {
			samples++
		}
	})
	if samples == 0 {
		t.Error("no server-metrics.jsonl sample tagged with step 0")
	}
	t.Logf("%d records (2,000 in flight) in %s, %d metric samples during the step", len(recs), elapsed, samples)
}

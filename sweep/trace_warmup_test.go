package sweep

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
)

// TestTraceStepWarmupIsAShareOfTheTrace: a warm-up duration longer than the whole
// trace must not swallow it: the step warms up on 5% of the requests and measures the
// rest.
func TestTraceStepWarmupIsAShareOfTheTrace(t *testing.T) {
	file := filepath.Join(t.TempDir(), "t.jsonl")
	var b strings.Builder
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&b, `{"timestamp": %d, "input_length": 20, "output_length": 2, "hash_ids": [%d]}`+"\n", i*5, i)
	}
	if err := os.WriteFile(file, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := newRTServer(t, time.Millisecond, time.Millisecond)
	p := rtPlan(srv.url())
	tr := &plan.Trace{Format: plan.TraceMooncake, File: file, TimeScale: 1, PromptScale: 1, OutputScale: 1, MaxOutputTokens: 2}
	p.Segments = []plan.Segment{{Name: "tr", Weight: 1, Trace: tr}}
	p.Ladder = plan.Ladder{Concurrency: []int{1}, Warmup: plan.Warmup{Duration: 5 * time.Second}, Grace: 2 * time.Second}
	if rows, span, err := tr.Span(); err != nil || rows != 200 || span != 995*time.Millisecond {
		t.Fatalf("TraceSpan = %d, %s, %v; want 200 rows over 995ms", rows, span, err)
	}
	dir := t.TempDir()
	if err := Run(context.Background(), p, Options{OutDir: dir}); err != nil {
		t.Fatal(err)
	}
	_, steps, _ := rtRead(t, dir)
	if len(steps) != 1 {
		t.Fatalf("steps %+v", steps)
	}
	s := steps[0]
	// Exactly the first 10 sends: the send after them opens the window (stepRun.claim),
	// however late the step's controller runs.
	if s.WarmupRequests != 10 || s.MeasureRequests+s.GraceRequests+s.WarmupRequests != 200 {
		t.Errorf("warm-up %d, measured %d, grace %d; want 10 warm-up (5%%) and the rest measured",
			s.WarmupRequests, s.MeasureRequests, s.GraceRequests)
	}
	// A window shorter than the trace is recorded as a run.json warning.
	p.Ladder.Duration, p.Ladder.Grace = 300*time.Millisecond, 0
	dir = t.TempDir()
	if err := Run(context.Background(), p, Options{OutDir: dir}); err != nil {
		t.Fatal(err)
	}
	_, _, meta := rtRead(t, dir)
	if len(meta.Warnings) != 1 || meta.Warnings[0].Kind != rundir.WarnTraceWindowCut || meta.Warnings[0].Segment != "tr" ||
		meta.Warnings[0].Step != 0 || meta.Warnings[0].Data.Count != 200 ||
		!strings.HasPrefix(meta.Warnings[0].Message, "step 1 (tr): the measurement window (ladder.duration 300ms) ends before the trace does") {
		t.Errorf("run.json warnings = %+v", meta.Warnings)
	}
}

func TestTraceWarmupRulesAndNotes(t *testing.T) {
	for _, c := range []struct {
		w    plan.Warmup
		rows int
		want int
	}{
		{plan.Warmup{}, 200, 0},
		{plan.Warmup{Duration: time.Second}, 200, 10},
		{plan.Warmup{Requests: 4}, 200, 4},
		{plan.Warmup{Requests: 50}, 200, 10},
		{plan.Warmup{Requests: 5}, 10, 0},
	} {
		if got := plan.TraceWarmupRequests(c.w, c.rows); got != c.want {
			t.Errorf("plan.TraceWarmupRequests(%+v, %d) = %d, want %d", c.w, c.rows, got, c.want)
		}
	}
	notes := traceStepNotes(plan.Step{Duration: 3 * time.Second}, 200, 40*time.Second)
	if len(notes) != 1 || notes[0].Kind != rundir.WarnTraceWindowCut ||
		!strings.Contains(notes[0].Message, "ladder.duration 3s) ends before the trace does (200 requests over 40s") {
		t.Errorf("notes = %+v", notes)
	}
	notes = traceStepNotes(plan.Step{Index: 2, Segment: "tr"}, 0, time.Second)
	if len(notes) != 1 || notes[0].Kind != rundir.WarnTraceTooShort || notes[0].Step != 2 || notes[0].Segment != "tr" ||
		notes[0].Message != "the trace has 0 requests: nothing is left to measure after 0 warm-up requests" {
		t.Errorf("too-short notes = %+v", notes)
	}
}

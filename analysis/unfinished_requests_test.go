package analysis

import (
	"strings"
	"testing"
	"time"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
)

// unfinishedRecord is a measured request still in flight when its step ended, after
// waitedMs, with its first token after ttftMs (nil: none yet).
func unfinishedRecord(sentNs int64, waitedMs float64, ttftMs *float64) rundir.Record {
	r := rundir.Record{RunID: "test", Segment: "chat", Step: 0, Schedule: plan.ScheduleConcurrency, Concurrency: 2,
		Phase: rundir.PhaseGrace, SentNs: sentNs, TTFTMs: ttftMs, TTFOMs: ttftMs, WaitedMs: fp(waitedMs),
		Status: rundir.StatusError, ErrorClass: rundir.ErrUnfinished}
	if ttftMs != nil {
		r.FirstTokenNs = sentNs + int64(*ttftMs*1e6)
	}
	return r
}

// TestUnfinishedRequestsAreNeverGood: under TTFT p95 ≤ 300 ms, statsRecords has 4 good
// requests of 9 finished ones (good fraction 4/9). Three unfinished requests are added:
// one without a token after 900 ms (over the bound for certain: counted in the good
// fraction's denominator, not good), one without a token after 200 ms and one streaming
// with a 100 ms TTFT (within every bound so far: left out). Goodput (good requests per
// second) is unchanged; the good fraction is 4/10; the error rate still counts the
// finished ones only (2/9); the step fails the SLA on its TTFT, whose censored values
// (the two without a token) the judge counts.
func TestUnfinishedRequestsAreNeverGood(t *testing.T) {
	p := plan.Plan{Name: "unfinished", Segments: []plan.Segment{{Name: "chat", Weight: 1}},
		Ladder: plan.Ladder{Concurrency: []int{2}}, SLA: plan.SLA{TTFTMs: map[string]float64{"p95": 300}}}
	recs := statsRecords()
	base, err := Analyze(writeRunDir(t, metaFor(p), recs, nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	b := base.Segments[0].Steps[0]
	near(t, "good fraction without unfinished", b.GoodFraction, 4.0/9, 1e-12)
	sent := recs[len(recs)-1].SentNs
	recs = append(recs, unfinishedRecord(sent, 900, nil), unfinishedRecord(sent, 200, nil), unfinishedRecord(sent, 2000, fp(100)))
	a, err := Analyze(writeRunDir(t, metaFor(p), recs, nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	s := a.Segments[0].Steps[0]
	if s.Requests != 9 || s.Errors != 2 || s.Unfinished != 3 {
		t.Fatalf("requests %d errors %d unfinished %d, want 9, 2 and 3", s.Requests, s.Errors, s.Unfinished)
	}
	near(t, "good fraction", s.GoodFraction, 4.0/10, 1e-12)
	near(t, "goodput", s.Goodput, b.Goodput, 1e-12)
	near(t, "error rate", s.ErrorRate, 2.0/9, 1e-12)
	if s.MeetsSLA || len(s.SLAViolations) == 0 || !strings.HasPrefix(s.SLAViolations[0], "ttft p95") ||
		!strings.Contains(s.SLAViolations[0], "(2 censored)") {
		t.Errorf("meets SLA %v, violations %q: want the TTFT bound broken, counting the 2 unfinished without a token", s.MeetsSLA, s.SLAViolations)
	}
}

// TestStepTimeoutWarning: steps.jsonl marks the step cut by its 30 s wall-time bound
// with 3 of its 12 measured requests unfinished: the step says so
// (cut_by_step_timeout), and the analysis warns twice: the step-timeout warning names
// the bound and the unfinished count, the unfinished warning (3 of 12 > 5%) says how
// the judge counts them.
func TestStepTimeoutWarning(t *testing.T) {
	p := plan.Plan{Name: "bound", Segments: []plan.Segment{{Name: "chat", Weight: 1}},
		Ladder: plan.Ladder{Concurrency: []int{2}}, SLA: plan.SLA{TTFTMs: map[string]float64{"p95": 300}}}
	recs := statsRecords()
	sent := recs[len(recs)-1].SentNs
	recs = append(recs, unfinishedRecord(sent, 30e3, nil), unfinishedRecord(sent, 29e3, nil), unfinishedRecord(sent, 28e3, fp(50)))
	meta := metaFor(p)
	st := meta.Steps[0]
	st.Timeout = 30 * time.Second
	sum := rundir.StepSummary{Step: st, Unfinished: 3, CutByStepTimeout: true}
	a, err := Analyze(writeRunDir(t, meta, recs, []rundir.StepSummary{sum}, nil))
	if err != nil {
		t.Fatal(err)
	}
	s := a.Segments[0].Steps[0]
	if !s.CutByStepTimeout || s.Unfinished != 3 || s.MeetsSLA {
		t.Fatalf("cut by step timeout %v, unfinished %d, meets SLA %v: want true, 3, false", s.CutByStepTimeout, s.Unfinished, s.MeetsSLA)
	}
	var bound, unfinished string
	for _, w := range a.Warnings {
		switch w.Kind {
		case WarnStepTimeout:
			bound = w.Message
		case WarnUnfinished:
			unfinished = w.Message
		}
	}
	if !strings.Contains(bound, "wall-time bound (30s)") || !strings.Contains(bound, "its 3 measured requests still in flight are unfinished") {
		t.Errorf("step-timeout warning %q", bound)
	}
	if !strings.Contains(unfinished, "3 of 12 measured requests were still in flight when the step ended") ||
		!strings.Contains(unfinished, "counts each at its wait so far") {
		t.Errorf("unfinished warning %q", unfinished)
	}
	noCut, err := Analyze(writeRunDir(t, metaFor(p), statsRecords(), nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range noCut.Warnings {
		if w.Kind == WarnStepTimeout || w.Kind == WarnUnfinished {
			t.Errorf("a step that ended on its own warns %s: %q", w.Kind, w.Message)
		}
	}
}

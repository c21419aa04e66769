package analysis

import (
	"math"
	"testing"
	"time"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
	"github.com/llmcap/llmcap/sla/slatest"
)

// TestAgreementLadderCapacity: the analysis of a run directory holding the SLA
// agreement ladder (sla/slatest) reaches sla.Judge's verdicts — a TTFT p95 exactly on
// the threshold passes, a linear p95 of 499 ms passes although its nearest-rank p95 is
// 580 ms, one of 525 ms fails although its nearest-rank p95 is 500 ms — so its first
// failing step is the one the sweep's early stop and the profiles' knee pick
// (sweep/early_stop_test.go, profiles/knee_test.go), and the capacity lies below it:
// the p95 rises from 500 ms exactly at load 2 to 525 ms at load 3, so the TTFT bound
// is crossed at load 2 itself.
func TestAgreementLadderCapacity(t *testing.T) {
	ladder := slatest.Ladder()
	p := plan.Plan{Name: "agree", Seed: 1, Segments: []plan.Segment{{Name: slatest.Segment, Weight: 1}},
		Ladder: plan.Ladder{Duration: time.Minute}, SLA: slatest.SLA()}
	var recs []rundir.Record
	for i, st := range ladder {
		p.Ladder.Concurrency = append(p.Ladder.Concurrency, st.Concurrency)
		recs = append(recs, st.Records("test", i, int64(1_700_000_000+100*i)*1e9)...)
	}
	a, err := Analyze(writeRunDir(t, metaFor(p), recs, nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	sa := a.Segments[0]
	if len(sa.Steps) != len(ladder) {
		t.Fatalf("%d steps analysed, want %d", len(sa.Steps), len(ladder))
	}
	for i, st := range ladder {
		s := sa.Steps[i]
		if s.Requests != len(st.TTFTMs) || s.Unfinished != 1 || s.WarmupRequests != 1 || s.Errors != 0 {
			t.Errorf("%s: %d requests, %d cancelled, %d warm-up, %d errors", st.Name, s.Requests, s.Unfinished, s.WarmupRequests, s.Errors)
		}
		if s.Step != i || s.MeetsSLA != st.Pass || math.Abs(s.TTFTMs.P95-st.LinearP95Ms) > 1e-9 {
			t.Errorf("%s: step %d meets SLA %v (%v) at TTFT p95 %.12g; want %v at %g",
				st.Name, s.Step, s.MeetsSLA, s.SLAViolations, s.TTFTMs.P95, st.Pass, st.LinearP95Ms)
		}
	}
	if v := sa.Steps[2].SLAViolations; len(v) != 1 || v[0] != "ttft p95 525 ms > 500 ms (1 censored)" {
		t.Errorf("failing step's violations %q", v)
	}
	c := sa.Capacity
	if c.Method != MethodMeasured || c.LimitingConstraint != "TTFT p95 ≤ 500 ms" || c.MaxConcurrencyWithinSLA != 2 {
		t.Errorf("capacity %s %q %.3f, want measured, TTFT p95 ≤ 500 ms, 2", c.Method, c.LimitingConstraint, c.MaxConcurrencyWithinSLA)
	}
}

package profiles

import (
	"testing"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
	"github.com/llmcap/llmcap/sla/slatest"
)

// TestKneeAgreesWithTheAnalysis: with capture.knee, the capturer selects each step of
// the SLA agreement ladder (sla/slatest) while the earlier ones pass QuickSLACheck, so
// its knee is the analysis' first failing step (analysis/sla_agreement_test.go) and the
// sweep's early stop (sweep/early_stop_test.go): the first step's linear p95 is 499 ms
// (its nearest-rank p95, 580 ms, made the former check stop the knee there), the second's
// sits exactly on 500 ms (inclusive: passes), the third's is 525 ms (nearest rank: 500)
// and fails. The knee captures steps 0–2 and not step 3.
func TestKneeAgreesWithTheAnalysis(t *testing.T) {
	p := capturePlan(ModeSession)
	p.Capture.Steps, p.Capture.Knee, p.Capture.NsysPath = nil, true, "/nonexistent/nsys"
	p.SLA = slatest.SLA()
	c, err := NewCapturer(p, quiet)
	if err != nil {
		t.Fatal(err)
	}
	ladder := slatest.Ladder()
	var recs []rundir.Record
	for i, st := range ladder {
		if v := QuickSLACheck(st.Records("agree", i, 0), p.SLA); v.Pass != st.Pass {
			t.Errorf("%s: QuickSLACheck %v (%s), want %v", st.Name, v.Pass, v, st.Pass)
		}
		recs = append(recs, st.Records("agree", i, 0)...)
	}
	dir := t.TempDir()
	writeRecords(t, dir, recs)
	for i := 0; i <= len(ladder); i++ {
		st := plan.Step{Index: i, Segment: slatest.Segment, Schedule: plan.ScheduleConcurrency, Concurrency: i + 1}
		if got, want := c.Selected(st, dir), i <= 2; got != want {
			t.Errorf("step %d selected %v, want %v (the knee is step 2, the first failing one)", i, got, want)
		}
	}
}

package analysis

import (
	"strings"
	"testing"

	"github.com/llmcap/llmcap/plan"
)

// TestClientReadLateStepIsWarned: records carry the client's read lag; a step whose
// requests' read lag p95 (40 ms in 10% of them) is above its ITL p50 and 5 ms gets a
// client-read-late warning naming the lag, a step read within 1 ms does not, and a run
// whose records carry no read lag has no read_lag_ms summary.
func TestClientReadLateStepIsWarned(t *testing.T) {
	p := simPlan("readlate", []int{2, 8}, plan.SLA{TTFTMs: map[string]float64{"p95": 1e6}})
	recs := decodeSim.ladder(p)
	for i := range recs {
		lag := 0.5
		if recs[i].Step == 1 && i%10 == 0 {
			lag = 40
		}
		recs[i].ReadLagMs = fp(lag)
	}
	a := mustAnalyze(t, metaFor(p), recs)
	steps := a.Segments[0].Steps
	for _, s := range steps {
		if s.ReadLagMs == nil {
			t.Fatalf("load %v: no read_lag_ms summary", s.Load)
		}
		t.Logf("load %v: read lag p50 %.1f p95 %.1f max %.1f ms, ITL p50 %.2f ms", s.Load, s.ReadLagMs.P50,
			s.ReadLagMs.P95, s.ReadLagMs.Max, s.ITLMs.P50)
	}
	if steps[0].ReadLagMs.P95 != 0.5 || steps[1].ReadLagMs.P95 != 40 || steps[1].ITLMs.P50 >= 40 {
		t.Errorf("read lag p95 %v and %v ms, want 0.5 and 40 (ITL p50 %v)", steps[0].ReadLagMs.P95, steps[1].ReadLagMs.P95, steps[1].ITLMs.P50)
	}
	var late []Warning
	for _, w := range a.Warnings {
		if w.Kind == WarnClientReadLate {
			late = append(late, w)
		}
	}
	if len(late) != 1 || late[0].Step != 1 || !strings.Contains(late[0].Message, "read lag p95 40 ms") ||
		!strings.Contains(late[0].Message, "--shard") {
		t.Errorf("client-read-late warnings %+v, want one for step 1 naming its 40 ms", late)
	}

	for i := range recs {
		recs[i].ReadLagMs = nil
	}
	b := mustAnalyze(t, metaFor(p), recs)
	for _, s := range b.Segments[0].Steps {
		if s.ReadLagMs != nil {
			t.Errorf("load %v: read lag %+v from records without one", s.Load, *s.ReadLagMs)
		}
	}
}

// TestClientReadLateThreshold: the judgement's edges — at or below 5 ms, or at or
// below the ITL p50, a step kept up; a step without ITL is judged on 5 ms alone.
func TestClientReadLateThreshold(t *testing.T) {
	cases := []struct {
		p95, itl float64
		itlN     int
		want     bool
	}{
		{4.9, 1, 100, false}, {5, 1, 100, false}, {5.1, 1, 100, true},
		{9, 10, 100, false}, {10, 10, 100, false}, {10.5, 10, 100, true},
		{6, 0, 0, true}, {4, 0, 0, false},
	}
	for _, c := range cases {
		s := StepStats{ReadLagMs: &Summary{N: 100, P95: c.p95}, ITLMs: Summary{N: c.itlN, P50: c.itl}}
		if got := clientReadLate(&s); got != c.want {
			t.Errorf("read lag p95 %v ms, ITL p50 %v ms (n %d): late %v, want %v", c.p95, c.itl, c.itlN, got, c.want)
		}
	}
	if clientReadLate(&StepStats{}) {
		t.Error("a step without read lag is late")
	}
}

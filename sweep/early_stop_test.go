package sweep

import (
	"testing"

	"github.com/llmcap/llmcap/sla/slatest"
)

// TestEarlyStopAgreesWithTheAnalysis: the early-stop decision (slaViolation) at factor
// 1 — "broken by more than 1×", i.e. the SLA itself — reaches sla.Judge's verdict on
// every step of the SLA agreement ladder (sla/slatest), as the analysis and the
// profiles' knee do (analysis/sla_agreement_test.go, profiles/knee_test.go): a TTFT p95
// exactly on the threshold passes, a linear p95 of 499 ms passes (nearest rank: 580),
// 525 ms fails (nearest rank: 500). With one violation enough, the ladder stops at the
// third step, the analysis' first failing one; at factor 2 it never stops.
func TestEarlyStopAgreesWithTheAnalysis(t *testing.T) {
	streak, stoppedAt := 0, -1
	for i, st := range slatest.Ladder() {
		recs := st.Records("agree", i, 0)
		results := make([]stepResult, len(recs))
		for k := range recs {
			results[k] = stepResult{rec: &recs[k]}
		}
		bad, why := slaViolation(slatest.SLA(), results, 1)
		if bad == st.Pass {
			t.Errorf("%s: violation %v (%q), want %v", st.Name, bad, why, !st.Pass)
		}
		if !st.Pass && why != "ttft p95 525 ms > 1 × 500 ms (1 unfinished)" {
			t.Errorf("%s: reason %q", st.Name, why)
		}
		if streak = nextStreak(streak, why); streak >= 1 && stoppedAt < 0 {
			stoppedAt = i
		}
		if bad, why := slaViolation(slatest.SLA(), results, 2); bad {
			t.Errorf("%s: broken by more than 2×: %q", st.Name, why)
		}
	}
	if stoppedAt != 2 {
		t.Errorf("early stop after step %d, want 2 (the first failing step)", stoppedAt)
	}
}

package sla_test

import (
	"math"
	"slices"
	"testing"

	"github.com/llmcap/llmcap/rundir"
	"github.com/llmcap/llmcap/sla"
	"github.com/llmcap/llmcap/sla/slatest"
)

// TestAgreementLadderVerdicts: the agreement ladder's documented percentiles hold (the
// linear p95 by sla.Percentile, the nearest-rank one it replaced on opposite sides of
// the threshold for two steps) and sla.Judge reaches the documented verdicts on the
// ladder's records. The analysis, sweep and profiles tests judge the same ladder
// through their own code paths (analysis/sla_agreement_test.go,
// sweep/early_stop_test.go, profiles/knee_test.go).
func TestAgreementLadderVerdicts(t *testing.T) {
	for i, st := range slatest.Ladder() {
		x := slices.Clone(st.TTFTMs)
		slices.Sort(x)
		if p := sla.Percentile(x, 0.95); math.Abs(p-st.LinearP95Ms) > 1e-9 {
			t.Errorf("%s: linear p95 %.12g, documented %g", st.Name, p, st.LinearP95Ms)
		}
		// Nearest rank: the ⌈0.95·n⌉-th smallest value (what profiles used before).
		if nr := x[int(math.Ceil(0.95*float64(len(x))))-1]; nr != st.NearestRankP95Ms {
			t.Errorf("%s: nearest-rank p95 %g, documented %g", st.Name, nr, st.NearestRankP95Ms)
		}
		var c sla.Collector
		cut := 0
		for _, r := range st.Records("agree", i, 0) {
			if r.Phase == rundir.PhaseWarmup {
				continue // never judged
			}
			if q := sla.RecordRequest(&r); q.Unfinished {
				cut++ // a censored value: judged apart (censored_test.go); the percentile here is the finished ones'
			} else {
				c.Add(q)
			}
		}
		smp := c.Sample()
		if smp.Requests != len(st.TTFTMs) || cut != 1 || smp.Errors != 0 {
			t.Errorf("%s: sample counts %d requests, %d cut off, %d errors", st.Name, smp.Requests, cut, smp.Errors)
		}
		v := sla.Judge(slatest.SLA(), smp)
		if v.Pass != st.Pass || v.Checks[0].Bound != (sla.Bound{Metric: sla.TTFT, Stat: sla.P95, Threshold: slatest.ThresholdMs}) ||
			math.Abs(v.Checks[0].Value-st.LinearP95Ms) > 1e-9 {
			t.Errorf("%s: verdict %+v, want pass %v at p95 %g", st.Name, v, st.Pass, st.LinearP95Ms)
		}
	}
	ladder := slatest.Ladder()
	if !ladder[0].Pass || !ladder[1].Pass || ladder[2].Pass ||
		ladder[0].NearestRankP95Ms <= slatest.ThresholdMs || ladder[2].NearestRankP95Ms > slatest.ThresholdMs {
		t.Error("the ladder no longer separates the linear and nearest-rank verdicts")
	}
}

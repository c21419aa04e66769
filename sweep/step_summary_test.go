package sweep

import (
	"strings"
	"testing"

	"github.com/llmcap/llmcap/rundir"

	"github.com/llmcap/llmcap/plan"
)

// rtRecords builds n successful records sent 10 ms apart with TTFT ttft(i) ms.
func rtRecords(n int, ttft func(i int) float64) []*rundir.Record {
	out := make([]*rundir.Record, n)
	for i := range out {
		v, e := ttft(i), ttft(i)+100
		out[i] = &rundir.Record{Status: rundir.StatusOK, SentNs: int64(i) * 1e7, EndNs: int64(i)*1e7 + int64(e*1e6),
			TTFTMs: &v, E2EMs: &e, IntendedPromptTokens: 100, PromptTokens: 100 + i%2}
	}
	return out
}

func TestSteadyStateVerdict(t *testing.T) {
	s := &stepRun{st: plan.Step{Schedule: plan.ScheduleConcurrency, Concurrency: 4}}
	if ok, why := s.steadyVerdict(rtRecords(11, func(int) float64 { return 50 })); ok || !strings.Contains(why, "need 12") {
		t.Errorf("11 records at concurrency 4: %v %q", ok, why)
	}
	if ok, why := s.steadyVerdict(rtRecords(30, func(i int) float64 { return 50 + float64(i%3) })); !ok {
		t.Errorf("flat TTFT judged unsteady: %q", why)
	}
	if ok, why := s.steadyVerdict(rtRecords(30, func(i int) float64 { return 50 + 10*float64(i) })); ok || !strings.Contains(why, "trends") {
		t.Errorf("rising TTFT judged steady: %q", why)
	}
}

func TestSLAViolationAndPromptMeans(t *testing.T) {
	recs := rtRecords(20, func(i int) float64 { return float64(100 + i) })
	var res []stepResult
	for _, r := range recs {
		r.Phase, r.OutputTokens = rundir.PhaseMeasure, 8
		res = append(res, stepResult{rec: r})
	}
	spec := plan.SLA{TTFTMs: map[string]float64{"p95": 50}}
	// TTFT 100..119: rank 19·0.95 = 18.05, p95 = 118 + 0.05 = 118.05 ms.
	if bad, why := slaViolation(spec, res, 2); !bad || why != "ttft p95 118 ms > 2 × 50 ms" {
		t.Errorf("TTFT p95 118.05 ms vs 2 × 50 ms: %v %q", bad, why)
	}
	if bad, _ := slaViolation(spec, res, 3); bad {
		t.Error("TTFT p95 118.05 ms flagged against 3 × 50 ms")
	}
	res[0].rec.Status, res[1].rec.Status = rundir.StatusError, rundir.StatusError
	if bad, why := slaViolation(plan.SLA{MaxErrorRate: 0.01}, res, 3); !bad || !strings.Contains(why, "error rate") {
		t.Errorf("10%% errors vs 3 × 1%%: %v %q", bad, why)
	}
	for _, r := range res {
		r.rec.Status, r.rec.ErrorClass, r.rec.Phase = rundir.StatusOK, "", rundir.PhaseMeasure
	}
	for _, r := range res[:4] { // cut off after grace: not server failures
		r.rec.Status, r.rec.ErrorClass, r.rec.Phase = rundir.StatusError, rundir.ErrCancelled, rundir.PhaseGrace
	}
	if bad, why := slaViolation(plan.SLA{MaxErrorRate: 0.01}, res, 3); bad {
		t.Errorf("requests cancelled after grace counted as errors: %q", why)
	}
	for _, r := range res {
		r.rec.Status, r.rec.ErrorClass, r.rec.Phase = rundir.StatusError, rundir.ErrCancelled, rundir.PhaseGrace
	}
	if bad, why := slaViolation(plan.SLA{MaxErrorRate: 0.01}, res, 3); !bad || !strings.Contains(why, "none of 20") {
		t.Errorf("a step where nothing ended: %v %q", bad, why)
	}
	i, a := promptTokenMeans(recs)
	if i != 100 || a != 100.5 {
		t.Errorf("prompt means %g / %g, want 100 / 100.5", i, a)
	}
}

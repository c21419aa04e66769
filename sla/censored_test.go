package sla

import (
	"math"
	"testing"

	"github.com/llmcap/llmcap/plan"
)

var ttftE2E = plan.SLA{TTFTMs: map[string]float64{"p95": 2000}, E2EMs: map[string]float64{"p95": 8000}, MaxErrorRate: 0.01}

func msp(v float64) *float64 { return &v }

// finished is a successful request with the given TTFT and E2E (ms), 64 tokens.
func finished(ttft, e2e float64) Request {
	return Request{OK: true, OutputTokens: 64, TTFTMs: msp(ttft), TTFOMs: msp(ttft), ITLMs: msp((e2e - ttft) / 63), E2EMs: msp(e2e)}
}

// TestHalfHungStepBreaksTTFT: 50 requests answered at once, 50 hung after the headers
// (no token) for 9–10 s when the step ended: the TTFT p95's lower bound is above its
// 2 s threshold, so the step fails for certain — where leaving the unfinished out (the
// AIPerf rule) called it healthy. The hung half is also overdue (overdue.go), so the
// error rate is 50%.
func TestHalfHungStepBreaksTTFT(t *testing.T) {
	var c Collector
	for i := range 50 {
		c.Add(finished(100, 1000))
		c.Add(Request{Unfinished: true, WaitedMs: 9000 + 20*float64(i)})
	}
	s := c.Sample()
	v := Judge(ttftE2E, s)
	if v.Pass || s.CutOff != 50 || s.TTFT.Censored != 50 {
		t.Fatalf("half hung: pass %v cut-off %d censored %d (%s)", v.Pass, s.CutOff, s.TTFT.Censored, v)
	}
	ttft := v.Checks[0]
	if ttft.Outcome != Broken || ttft.Value < 9000 || ttft.Censored != 50 {
		t.Errorf("ttft check %+v, want broken at ≥ 9000 ms with 50 censored", ttft)
	}
	// The hung half waited over twice the longest finished request: overdue, failed.
	near(t, "error rate (overdue counted)", v.Checks[len(v.Checks)-1].Value, 0.5, 1e-12)
}

// TestHealthyStepCutInFlightPasses: a healthy closed loop (C = 64) whose window ends
// with its 64 requests in flight after a normal wait (up to their usual E2E, most with
// their first token) is judged on the KM estimate and passes; its TTFT/E2E summaries
// are lower bounds that say how many values are censored.
func TestHealthyStepCutInFlightPasses(t *testing.T) {
	var c Collector
	for i := range 320 {
		ttft := 200 + float64(i%10)*60                // 200..740 ms
		c.Add(finished(ttft, 3000+float64(i%20)*150)) // 3.0..5.85 s
	}
	for i := range 64 {
		w := 90 * float64(i) // 0..5.7 s in flight
		r := Request{Unfinished: true, WaitedMs: w}
		if w > 800 {
			r.TTFTMs, r.TTFOMs = msp(300), msp(300) // streaming already
		}
		c.Add(r)
	}
	s := c.Sample()
	v := Judge(ttftE2E, s)
	if !v.Pass {
		t.Fatalf("healthy step with 64 in flight failed: %s", v)
	}
	if s.E2E.Censored != 64 || s.E2E.N != 384 || s.TTFT.Censored == 0 {
		t.Errorf("summaries E2E n %d censored %d, TTFT censored %d", s.E2E.N, s.E2E.Censored, s.TTFT.Censored)
	}
	e2e := v.Checks[1]
	if e2e.Outcome != Met || e2e.Censored != 64 || e2e.Value < s.E2E.P95 || e2e.Value > 6000 {
		t.Errorf("e2e check %+v (lower-bound p95 %.0f)", e2e, s.E2E.P95)
	}
}

// TestUndeterminedTailFails: half the requests waited 1.5 s without a token, longer
// than every finished one but below the 2 s threshold: the p95 lies among them, known
// only to be ≥ 1.5 s — undetermined, which fails the step.
func TestUndeterminedTailFails(t *testing.T) {
	var c Collector
	for range 20 {
		c.Add(finished(100, 1000))
		c.Add(Request{Unfinished: true, WaitedMs: 1500})
	}
	v := Judge(ttftE2E, c.Sample())
	if v.Pass || v.Checks[0].Outcome != Undetermined || !v.Checks[0].Failed() {
		t.Fatalf("undetermined tail: %+v", v)
	}
	if _, broken := v.BrokenBy(2); broken {
		t.Error("an undetermined bound counted as broken by 2× for the early stop")
	}
}

// TestKMEstimate: Efron's redistribution on a small sample: exact 1, 2, 3, 4 and a
// value censored at 2.5 give 1 and 2 a fifth each and 3 and 4 three tenths each, at
// positions 0, 2/7, 4/7 and 1 (p50 = 2 + 0.75 = 2.75); censored values beyond the last
// exact one are tail lower bounds (p95 of 1, 2 and 5+, 6+ interpolates 5.85, a lower
// bound); a value censored below every exact one spreads its weight evenly, so every
// quantile is Percentile's of the exact values, bit for bit.
func TestKMEstimate(t *testing.T) {
	o := observations{exact: []float64{1, 2, 3, 4}, censored: []float64{2.5}}
	if v, tail := o.estimate(P50); math.Abs(v-2.75) > 1e-12 || tail {
		t.Errorf("p50 %v tail %v, want 2.75 false", v, tail)
	}
	if v, _ := o.estimate(Mean); math.Abs(v-(0.2*1+0.2*2+0.3*3+0.3*4)) > 1e-12 {
		t.Errorf("mean %v", v)
	}
	o = observations{exact: []float64{1, 2}, censored: []float64{5, 6}}
	if v, tail := o.estimate(P95); math.Abs(v-5.85) > 1e-12 || !tail {
		t.Errorf("p95 %v tail %v, want 5.85 true", v, tail)
	}
	exact := []float64{480, 420, 499.5, 300, 450, 430, 470, 410, 460, 440, 400, 490, 505, 380, 395, 415, 425, 435, 445, 455}
	o = observations{exact: exact, censored: []float64{50, 120}}
	for _, st := range []Statistic{P50, P90, P95, P99} {
		q, _ := st.Quantile()
		if v, tail := o.estimate(st); v != Percentile(sortedCopy(exact), q) || tail {
			t.Errorf("%s with two early censored values: %v (tail %v), want Percentile's %v", st, v, tail, Percentile(sortedCopy(exact), q))
		}
	}
}

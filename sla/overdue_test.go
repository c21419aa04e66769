package sla

import (
	"testing"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
)

var ttftP50 = plan.SLA{TTFTMs: map[string]float64{"p50": 2000}, MaxErrorRate: 0.01}

// TestSmallShareHungFailsErrorRate: 99 requests answered within 0.5–1 s, 5 hung after
// their headers for 2.1–3 s when the step ended (over twice the longest finished one):
// the 5 are lost to the user and count as failed — 5 of 104, over the 1% bound — where
// the finished-only error rate (0%) passed the step.
func TestSmallShareHungFailsErrorRate(t *testing.T) {
	var c Collector
	for i := range 99 {
		c.Add(finished(100, 500+5*float64(i%100))) // longest 990 ms
	}
	for i := range 5 {
		c.Add(Request{Unfinished: true, WaitedMs: 2100 + 200*float64(i)})
	}
	s := c.Sample()
	if s.Overdue.N != 5 || s.Overdue.AfterMs != 1980 || s.Overdue.MinWaitMs != 2100 {
		t.Fatalf("overdue %+v, want 5 after 1980 ms, the shortest 2100 ms", s.Overdue)
	}
	v := Judge(ttftP50, s)
	er := v.Checks[len(v.Checks)-1]
	if v.Pass || er.Outcome != Broken {
		t.Fatalf("5 of 104 hung: %s", v)
	}
	near(t, "error rate", er.Value, 5.0/104, 1e-12)
	want := "error rate 4.8% > 1.0% (5 of 104 requests got no token for ≥ 2.1 s, over twice the longest finished request)"
	if er.String() != want {
		t.Errorf("error-rate check %q\nwant %q", er.String(), want)
	}
}

// TestMidStreamHangFailsTTFTOnlySLA: half the requests stream their first token at
// once and then hang for 5 s; a TTFT-only SLA sees exact TTFTs and no censoring, but
// the hung half waited five times the longest finished request: error rate 50%.
func TestMidStreamHangFailsTTFTOnlySLA(t *testing.T) {
	var c Collector
	for range 52 {
		c.Add(finished(100, 1000))
		c.Add(Request{Unfinished: true, WaitedMs: 5000, TTFTMs: msp(100), TTFOMs: msp(100)})
	}
	s := c.Sample()
	v := Judge(ttftP50, s)
	if v.Pass || v.Checks[0].Outcome != Met || v.Checks[0].Censored != 0 {
		t.Fatalf("mid-stream hang: %s (ttft %+v)", v, v.Checks[0])
	}
	er := v.Checks[1]
	if er.Outcome != Broken || er.Overdue.N != 52 || er.Judged != 104 {
		t.Errorf("error-rate check %+v", er)
	}
	near(t, "error rate", er.Value, 0.5, 1e-12)
}

// TestStreamingLongReplyIsNotOverdue: a reply still streaming when the step ended
// (sent 5 s ago, its last token 4.9 s after it was sent) is silent for 0.1 s only, so
// not overdue however much longer than the finished requests (1 s) it has run; the same
// wait with its last token at 100 ms (a hang mid-stream) is overdue.
func TestStreamingLongReplyIsNotOverdue(t *testing.T) {
	var c Collector
	for range 50 {
		c.Add(finished(100, 1000))
	}
	streaming := Request{Unfinished: true, WaitedMs: 5000, LastTokenMs: 4900, TTFTMs: msp(100), TTFOMs: msp(100)}
	c.Add(streaming)
	s := c.Sample()
	if s.Overdue.N != 0 || s.IsOverdue(streaming) || s.ErrorRate() != 0 {
		t.Fatalf("still streaming: overdue %+v, error rate %v, want none", s.Overdue, s.ErrorRate())
	}
	hung := Request{Unfinished: true, WaitedMs: 5000, LastTokenMs: 100, TTFTMs: msp(100), TTFOMs: msp(100)}
	c.Add(hung)
	if s := c.Sample(); s.Overdue.N != 1 || !s.IsOverdue(hung) || s.Overdue.MinWaitMs != 4900 {
		t.Errorf("hung mid-stream: overdue %+v, want 1 silent for 4900 ms", s.Overdue)
	}
}

// TestHealthyCutHasNoOverdue: the healthy C = 64 step of TestHealthyStepCutInFlightPasses
// (waits up to 5.7 s, finished E2E up to 5.85 s) has no overdue request, so its error
// rate stays 0; a request that waited 11.8 s (over 2 × 5.85 s) would be.
func TestHealthyCutHasNoOverdue(t *testing.T) {
	var c Collector
	for i := range 320 {
		c.Add(finished(200, 3000+float64(i%20)*150))
	}
	for i := range 64 {
		r := Request{Unfinished: true, WaitedMs: 90 * float64(i)}
		if r.WaitedMs > 800 {
			r.TTFTMs, r.TTFOMs = msp(300), msp(300)
		}
		c.Add(r)
	}
	s := c.Sample()
	v := Judge(ttftE2E, s)
	if !v.Pass || s.Overdue.N != 0 || s.Overdue.AfterMs != 11700 || s.ErrorRate() != 0 {
		t.Fatalf("healthy cut: %s, overdue %+v", v, s.Overdue)
	}
	c.Add(Request{Unfinished: true, WaitedMs: 11800})
	if s := c.Sample(); s.Overdue.N != 1 {
		t.Errorf("11.8 s wait after 5.85 s at most: overdue %+v, want 1", s.Overdue)
	}
}

// TestOverdueFloor: finished requests of 100 ms at most and an unfinished one that
// waited 900 ms: 2 × 100 ms is under OverdueFloor (1 s), so it is pending, not overdue;
// at 1.2 s it is overdue, and the message names the floor.
func TestOverdueFloor(t *testing.T) {
	var c Collector
	for range 10 {
		c.Add(finished(20, 100))
	}
	c.Add(Request{Unfinished: true, WaitedMs: 900})
	if s := c.Sample(); s.Overdue.N != 0 || s.Overdue.AfterMs != OverdueFloor {
		t.Fatalf("900 ms after ≤ 100 ms: overdue %+v, want none after the 1 s floor", s.Overdue)
	}
	c.Add(Request{Unfinished: true, WaitedMs: 1200})
	s := c.Sample()
	want := "1 of 11 requests got no token for ≥ 1.2 s, over 1 s and twice the longest finished request"
	if got := s.Overdue.Explain(s.ErrorJudged()); got != want {
		t.Errorf("explain %q, want %q", got, want)
	}
}

// TestOverdueIsNeverGood: an unfinished request whose wait is within every latency
// threshold is Pending by RequestGoodness, but NotGood in its step once overdue.
func TestOverdueIsNeverGood(t *testing.T) {
	var c Collector
	for range 10 {
		c.Add(finished(100, 400))
	}
	hung := Request{Unfinished: true, WaitedMs: 1500}
	c.Add(hung)
	s := c.Sample()
	bounds := Bounds(plan.SLA{TTFTMs: map[string]float64{"p50": 5000}})
	if g := RequestGoodness(bounds, hung); g != Pending {
		t.Fatalf("request goodness %v, want pending", g)
	}
	if g := StepGoodness(bounds, s, hung); g != NotGood {
		t.Errorf("step goodness of an overdue request %v, want not good", g)
	}
	if g := StepGoodness(bounds, s, Request{Unfinished: true, WaitedMs: 500}); g != Pending {
		t.Errorf("step goodness of a 500 ms wait %v, want pending", g)
	}
}

// TestRecordRequestKeepsLastToken: an unfinished record's last content event (end_ns)
// gives its LastTokenMs, so its silence is waited_ms − (end_ns − sent_ns); with no token
// it is silent for its whole wait.
func TestRecordRequestKeepsLastToken(t *testing.T) {
	w := 5000.0
	r := rundir.Record{Status: rundir.StatusError, ErrorClass: rundir.ErrUnfinished, WaitedMs: &w,
		SentNs: 1_000_000_000, EndNs: 5_900_000_000}
	q := RecordRequest(&r)
	if !q.Unfinished || q.LastTokenMs != 4900 || q.SilentMs() != 100 {
		t.Errorf("streaming record: %+v silent %v, want last token 4900 ms, silent 100 ms", q, q.SilentMs())
	}
	r.EndNs = 0
	if q := RecordRequest(&r); q.LastTokenMs != 0 || q.SilentMs() != 5000 {
		t.Errorf("no token: %+v silent %v, want silent 5000 ms", q, q.SilentMs())
	}
}

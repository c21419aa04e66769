package sla

import (
	"testing"

	"github.com/llmcap/llmcap/plan"
)

// TestRequestGoodness: per-request goodness under TTFT p95 ≤ 2 s, E2E p95 ≤ 8 s and ITL
// p50 ≤ 200 ms with a stricter TTFT p50 ≤ 1 s: a finished request must meet the
// strictest threshold of each metric; ITL is exempt below two tokens; a failed one is
// never good; an unfinished one is never good — NotGood once its wait (or its known
// TTFT) breaks a bound it bounds below, Pending while it is within all of them.
func TestRequestGoodness(t *testing.T) {
	spec := plan.SLA{TTFTMs: map[string]float64{"p95": 2000, "p50": 1000}, E2EMs: map[string]float64{"p95": 8000},
		ITLMs: map[string]float64{"p50": 200}}
	b := Bounds(spec)
	for _, c := range []struct {
		name string
		r    Request
		want Goodness
	}{
		{"fast", finished(900, 4000), Good},
		{"ttft over the strictest bound", finished(1500, 4000), NotGood},
		{"e2e over", finished(500, 8001), NotGood},
		{"at the threshold (inclusive)", finished(1000, 8000), Good},
		{"one token: ITL exempt", Request{OK: true, OutputTokens: 1, TTFTMs: msp(100), TTFOMs: msp(100), E2EMs: msp(100)}, Good},
		{"two tokens without ITL", Request{OK: true, OutputTokens: 2, TTFTMs: msp(100), TTFOMs: msp(100), E2EMs: msp(200)}, NotGood},
		{"failed", Request{OK: false, TTFTMs: msp(5)}, NotGood},
		{"unfinished, waited under every bound", Request{Unfinished: true, WaitedMs: 900}, Pending},
		{"unfinished, no token after 1.2 s", Request{Unfinished: true, WaitedMs: 1200}, NotGood},
		{"unfinished, streaming, fast TTFT, 7 s so far", Request{Unfinished: true, WaitedMs: 7000, TTFTMs: msp(300), TTFOMs: msp(300)}, Pending},
		{"unfinished, streaming, 9 s so far", Request{Unfinished: true, WaitedMs: 9000, TTFTMs: msp(300), TTFOMs: msp(300)}, NotGood},
		{"unfinished, slow known TTFT", Request{Unfinished: true, WaitedMs: 1600, TTFTMs: msp(1500), TTFOMs: msp(1500)}, NotGood},
	} {
		if got := RequestGoodness(b, c.r); got != c.want {
			t.Errorf("%s: goodness %d, want %d", c.name, got, c.want)
		}
	}
}

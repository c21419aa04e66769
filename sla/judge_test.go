package sla

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/llmcap/llmcap/plan"
)

// ok is a sample of n successful requests with two-token replies or more.
func ok(n int) Sample { return Sample{Requests: n, ITLEligible: n} }

func with(s Sample, m Metric, sum Summary) Sample {
	switch m {
	case TTFT:
		s.TTFT = sum
	case TTFO:
		s.TTFO = sum
	case ITL:
		s.ITL = sum
	case E2E:
		s.E2E = sum
	}
	return s
}

func p95(v float64) Summary { return Summary{N: 20, P95: v, Mean: v} }

var ttftP95 = plan.SLA{TTFTMs: map[string]float64{"p95": 500}, MaxErrorRate: 0.01}

// TestJudgeInclusiveThreshold: a p95 exactly on the threshold passes; just above fails
// with the measured value, the threshold and their ratio.
func TestJudgeInclusiveThreshold(t *testing.T) {
	v := Judge(ttftP95, with(ok(20), TTFT, p95(500)))
	if !v.Pass || len(v.Checks) != 2 || v.Checks[0].Outcome != Met || v.Checks[0].Ratio() != 1 {
		t.Fatalf("p95 = threshold: %+v", v)
	}
	v = Judge(ttftP95, with(ok(20), TTFT, p95(812)))
	c := v.Checks[0]
	if v.Pass || c.Outcome != Broken || c.Bound != (Bound{TTFT, P95, 500}) || c.Value != 812 {
		t.Fatalf("p95 812: %+v", v)
	}
	near(t, "ratio", c.Ratio(), 1.624, 1e-12)
	if got := v.Reasons(); !reflect.DeepEqual(got, []string{"ttft p95 812 ms > 500 ms"}) {
		t.Errorf("reasons %q", got)
	}
	if got := v.Checks[1]; got.Bound != (Bound{Metric: ErrorRate, Threshold: 0.01}) || got.Outcome != Met || got.Value != 0 {
		t.Errorf("error-rate check %+v", got)
	}
}

// TestJudgeOrderAndDefaults: bounds are judged in plan order (metric, then statistic),
// the error rate last with its 1% default; the error rate is inclusive too.
func TestJudgeOrderAndDefaults(t *testing.T) {
	spec := plan.SLA{E2EMs: map[string]float64{"mean": 9000}, ITLMs: map[string]float64{"p50": 30},
		TTFTMs: map[string]float64{"p95": 500, "p50": 200}}
	s := ok(100)
	s.Errors = 1 // 1% exactly: on the default bound, passes
	s.TTFT = Summary{N: 99, P50: 100, P95: 400}
	s.ITL = Summary{N: 99, P50: 20}
	s.E2E = Summary{N: 99, Mean: 5000}
	v := Judge(spec, s)
	var got []Bound
	for _, c := range v.Checks {
		got = append(got, c.Bound)
	}
	want := []Bound{{TTFT, P50, 200}, {TTFT, P95, 500}, {ITL, P50, 30}, {E2E, Mean, 9000}, {ErrorRate, 0, 0.01}}
	if !v.Pass || !reflect.DeepEqual(got, want) {
		t.Errorf("pass %v, bounds %+v, want %+v", v.Pass, got, want)
	}
	s.Errors = 2
	if v := Judge(spec, s); v.Pass || v.String() != "error rate 2.0% > 1.0%" {
		t.Errorf("2%% errors: %v %q", v.Pass, v)
	}
}

// TestJudgeNotApplicableAndNoData: ITL does not apply when no successful reply had two
// tokens (it holds); a metric missing while requests succeeded is "no data" (broken,
// +Inf); with every request failed only the error rate is judged.
func TestJudgeNotApplicableAndNoData(t *testing.T) {
	spec := plan.SLA{ITLMs: map[string]float64{"p95": 50}, TTFOMs: map[string]float64{"p95": 500}}
	oneTok := Sample{Requests: 10, TTFO: p95(100)} // ITLEligible 0: one-token replies
	v := Judge(spec, oneTok)
	if !v.Pass || v.Checks[1].Outcome != NotApplicable || !math.IsNaN(v.Checks[1].Value) {
		t.Errorf("one-token replies: %+v", v)
	}
	twoTok := oneTok
	twoTok.ITLEligible = 10 // two-token replies without ITL values
	v = Judge(spec, twoTok)
	if v.Pass || v.Checks[1].Outcome != NoData || !math.IsInf(v.Checks[1].Ratio(), 1) || v.String() != "itl p95: no data" {
		t.Errorf("two-token replies without ITL: %+v %q", v, v)
	}
	failed := Sample{Requests: 10, Errors: 10}
	v = Judge(spec, failed)
	if v.Pass || len(v.Checks) != 1 || v.Checks[0].Bound.Metric != ErrorRate || v.Checks[0].Value != 1 ||
		v.String() != "error rate 100.0% > 1.0%" {
		t.Errorf("all failed: %+v %q", v, v)
	}
}

// TestJudgeEmptySample: no judged request fails, naming the cut-off ones when there
// were some; an empty sample is broken by any factor.
func TestJudgeEmptySample(t *testing.T) {
	v := Judge(ttftP95, Sample{})
	if v.Pass || !v.Empty || len(v.Checks) != 0 || v.String() != "no measured requests" {
		t.Errorf("empty: %+v %q", v, v)
	}
	v = Judge(ttftP95, Sample{CutOff: 20})
	why, broken := v.BrokenBy(3)
	if v.Pass || !broken || !strings.Contains(why, "none of 20 measured requests ended") {
		t.Errorf("all cut off: %+v, broken by 3: %v %q", v, broken, why)
	}
}

// TestBrokenBy: the early-stop rule is "broken by more than factor" (Ratio > factor),
// first bound in order.
func TestBrokenBy(t *testing.T) {
	for _, c := range []struct {
		p95, factor float64
		broken      bool
		why         string
	}{
		{1100, 2, true, "ttft p95 1100 ms > 2 × 500 ms"},
		{1000, 2, false, ""}, // exactly 2×: not more than
		{600, 1, true, "ttft p95 600 ms > 1 × 500 ms"},
		{500, 1, false, ""},
	} {
		why, broken := Judge(ttftP95, with(ok(20), TTFT, p95(c.p95))).BrokenBy(c.factor)
		if broken != c.broken || why != c.why {
			t.Errorf("p95 %g factor %g: %v %q, want %v %q", c.p95, c.factor, broken, why, c.broken, c.why)
		}
	}
	s := with(ok(20), TTFT, p95(100))
	s.Errors = 1 // 5% errors against 1%
	if why, broken := Judge(ttftP95, s).BrokenBy(3); !broken || why != "error rate 5.0% > 3 × 1.0%" {
		t.Errorf("5%% errors by 3: %v %q", broken, why)
	}
	na := Judge(plan.SLA{ITLMs: map[string]float64{"p95": 50}}, Sample{Requests: 10})
	if _, broken := na.BrokenBy(1); broken {
		t.Error("a not-applicable ITL bound broke the early stop")
	}
}

// TestCollectorRules: a Collector counts as the analysis does: unfinished requests apart
// from the error rate but in the TTFT/TTFO/E2E summaries at their waits (censored),
// failures in the error rate, latencies only from successful replies with tokens, ITL
// eligibility from two output tokens.
func TestCollectorRules(t *testing.T) {
	ms := func(v float64) *float64 { return &v }
	var c Collector
	for _, r := range []Request{
		{OK: true, OutputTokens: 4, TTFTMs: ms(10), ITLMs: ms(2), E2EMs: ms(16)},
		{OK: true, OutputTokens: 4, TTFTMs: ms(30), ITLMs: ms(4), E2EMs: ms(42)},
		{OK: true, OutputTokens: 1, TTFTMs: ms(20), E2EMs: ms(20)},   // one token: no ITL, not eligible
		{OK: true, OutputTokens: 0, TTFTMs: ms(999), E2EMs: ms(999)}, // token-less: no latency
		{OK: false, TTFTMs: ms(5)}, // failed: an error, no latency
		{Unfinished: true, WaitedMs: 50}, {Unfinished: true, WaitedMs: 60},
	} {
		c.Add(r)
	}
	s := c.Sample()
	if s.Requests != 5 || s.Errors != 1 || s.CutOff != 2 || s.ITLEligible != 2 {
		t.Errorf("counts %+v", s)
	}
	if s.TTFT.N != 5 || s.TTFT.Censored != 2 || s.TTFT.P50 != 30 || s.ITL.N != 2 || s.ITL.Censored != 0 ||
		s.E2E.Max != 60 || s.TTFO.N != 2 {
		t.Errorf("summaries TTFT %+v ITL %+v E2E %+v TTFO %+v", s.TTFT, s.ITL, s.E2E, s.TTFO)
	}
	near(t, "error rate", s.ErrorRate(), 0.2, 1e-12)
	c.Add(Request{OK: true, OutputTokens: 2, TTFTMs: ms(40)})
	if again := c.Sample(); again.TTFT.N != 6 || s.TTFT.N != 5 {
		t.Errorf("collector not reusable: %d then %d TTFT values", s.TTFT.N, again.TTFT.N)
	}
}

func TestParseNames(t *testing.T) {
	for _, name := range plan.SLAMetrics {
		if m, ok := ParseMetric(name); !ok || m.String() != name {
			t.Errorf("metric %q: %v %v", name, m, ok)
		}
	}
	for _, name := range plan.Stats {
		if st, ok := ParseStatistic(name); !ok || st.String() != name {
			t.Errorf("statistic %q: %v %v", name, st, ok)
		}
	}
	if _, ok := ParseMetric("error rate"); ok {
		t.Error("the error rate parsed as a latency metric")
	}
	if _, ok := ParseStatistic("p999"); ok {
		t.Error("p999 parsed")
	}
}

package analysis

import (
	"bytes"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/llmcap/llmcap/rundir"

	"github.com/llmcap/llmcap/plan"
)

// TestServerThatNeverAnswersIsSaidSo: every measured request still waits for its first
// token when the grace period ends (no first_byte_timeout): the answer says the server
// did not answer, not "lengthen the steps", and no latency is called underestimated.
func TestServerThatNeverAnswersIsSaidSo(t *testing.T) {
	p := simPlan("nofirst", []int{1, 2}, plan.SLA{TTFTMs: map[string]float64{"p95": 500}})
	recs := decodeSim.ladder(p)
	for i := range recs {
		if recs[i].Phase != rundir.PhaseWarmup {
			failRecord(&recs[i], rundir.ErrCancelled, "cancelled: context canceled")
			recs[i].Phase = rundir.PhaseGrace
		}
	}
	a := mustAnalyze(t, metaFor(p), recs)
	all := a.Answer + "\n" + strings.Join(a.WarningMessages(), "\n")
	t.Logf("%s", all)
	if a.Overall.Method != MethodNoData || !strings.Contains(a.Answer, "were still waiting for their first token") ||
		!strings.Contains(a.Answer, "never answered") {
		t.Errorf("answer %q", a.Answer)
	}
	for _, bad := range []string{"lengthen the steps", "underestimated", "window is too short", "fell in the warm-up"} {
		if strings.Contains(all, bad) {
			t.Errorf("output says %q", bad)
		}
	}
}

// TestAllFailedStepIsNotCalledTooShort: a step whose requests all failed is not in
// steady state because nothing succeeded, not because its window was short.
func TestAllFailedStepIsNotCalledTooShort(t *testing.T) {
	p := simPlan("fail", []int{1, 2}, plan.SLA{TTFTMs: map[string]float64{"p95": 5000}})
	recs := decodeSim.ladder(p)
	for i := range recs {
		failRecord(&recs[i], rundir.ErrHTTP5xx, "HTTP 500: CUDA out of memory")
	}
	a := mustAnalyze(t, metaFor(p), recs)
	for _, s := range a.Segments[0].Steps {
		if s.SteadyState || !strings.HasPrefix(s.SteadyStateReason, "no request succeeded (100% failed: http_5xx ×") ||
			strings.Contains(s.SteadyStateReason, "too short") {
			t.Errorf("load %v: steady %v, %q", s.Load, s.SteadyState, s.SteadyStateReason)
		}
	}
}

// TestSlotsGuessStaysNearTheLoadsTested: a ladder that never saturates prints no
// fitted slot count far beyond the loads tested (it printed 40,580 for loads 1 and 2).
func TestSlotsGuessStaysNearTheLoadsTested(t *testing.T) {
	re := regexp.MustCompile(`the fit suggests about (\d+), above the ([\d.]+) requests in flight`)
	for _, loads := range [][]int{{1, 2}, {1, 2, 4}, {2, 8, 32}} {
		a := analyzeSim(t, decodeSim, simPlan("free", loads, plan.SLA{TTFTMs: map[string]float64{"p95": 1e6}}))
		for _, w := range a.WarningMessages() {
			if strings.Contains(w, "at least about") {
				t.Errorf("loads %v: %q", loads, w)
			}
			if m := re.FindStringSubmatch(w); m != nil {
				got, _ := strconv.ParseFloat(m[1], 64)
				top, _ := strconv.ParseFloat(m[2], 64)
				if got <= top || got > projectMaxFactor*top+0.5 {
					t.Errorf("loads %v: %q", loads, w)
				}
			}
		}
	}
}

// TestSlotsBandLeavesOutUnlocatedResamples: a resample that located no slots (+Inf or
// the maxSlots sentinel) is no slot count: it is counted apart, not a band edge.
func TestSlotsBandLeavesOutUnlocatedResamples(t *testing.T) {
	xs := []float64{18, 19, math.Inf(1), 20, maxSlots, 21, 19.5, 18.5}
	lo, hi, un := slotsBand(xs, 19.7)
	if lo < 18 || hi > 21 || lo > 19.7 || hi < 19.7 {
		t.Errorf("band [%v, %v]", lo, hi)
	}
	near(t, "unlocated share", un, 0.25, 1e-12)
}

// TestNonStreamingServerHasNoITLFit: with no ITL at any step the summary says ITL was
// not measured instead of "ITL 0.00 + 0.000·batch ms", and a warning says why.
func TestNonStreamingServerHasNoITLFit(t *testing.T) {
	p := simPlan("json", []int{1, 2, 4}, plan.SLA{TTFTMs: map[string]float64{"p95": 5000}})
	recs := decodeSim.ladder(p)
	for i := range recs {
		recs[i].ITLMs, recs[i].FirstTokenNs, recs[i].TTFTMs, recs[i].TTFOMs = nil, recs[i].EndNs, recs[i].E2EMs, recs[i].E2EMs
	}
	a := mustAnalyze(t, metaFor(p), recs)
	var b bytes.Buffer
	if err := PrintSummary(&b, a); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.Contains(out, "ITL not measured") || strings.Contains(out, "ITL 0.00 + 0.000·batch") ||
		!strings.Contains(out, "no step has ITL (the server did not stream") {
		t.Errorf("summary:\n%s", out)
	}
}

// TestAtLeastNamesNoBottleneck: every step meets the SLA, though the top load exceeds
// the 8 slots: a bound never reached is not named as binding.
func TestAtLeastNamesNoBottleneck(t *testing.T) {
	for _, loads := range [][]int{{4, 8, 9}, {1, 8}} {
		a := analyzeSim(t, queueSim, simPlan("loose", loads, plan.SLA{TTFTMs: map[string]float64{"p95": 1e7}}))
		c := a.Overall
		t.Logf("%v: %s %s %s", loads, c.Method, c.Bottleneck, c.BottleneckEvidence)
		if c.Method != MethodAtLeast || c.Bottleneck != RegimeNone || strings.Contains(a.Answer, "-bound") {
			t.Errorf("method %s bottleneck %s (%s); answer %q", c.Method, c.Bottleneck, c.BottleneckEvidence, a.Answer)
		}
	}
}

// TestCPUAdviceNamesNoHBM: the decode and prefill advice for a CPU server names CPU
// memory bandwidth and cores, not HBM and GPU FLOPS.
func TestCPUAdviceNamesNoHBM(t *testing.T) {
	sa := &SegmentAnalysis{Steps: []StepStats{stepWith(1, 20, 10, 0)}}
	for _, b := range []Regime{RegimeDecode, RegimePrefill} {
		c := Capacity{Method: MethodMeasured, Bottleneck: b}
		cpu, gpu := adviceFor(c, sa, deployment{}, "2-core CPU"), adviceFor(c, sa, deployment{}, "H100-SXM")
		if strings.Contains(cpu, "HBM") || strings.Contains(cpu, "FLOPS") || !strings.Contains(cpu, "CPU") || cpu == gpu {
			t.Errorf("%s: CPU advice %q", b, cpu)
		}
	}
}

// TestInterpolatedCapacityIsLabelled: a capacity the model fills in between two steps
// is a whole number of concurrent users, said to be the model's estimate between the
// passing and the failing loads; the sizing table prints "–" for prices that were not
// set, never 0.
func TestInterpolatedCapacityIsLabelled(t *testing.T) {
	p := simPlan("floor", queueLadder[:6], plan.SLA{TTFTMs: map[string]float64{"p95": 300}})
	p.Report.GPUHourUSD = 0
	a := analyzeSim(t, queueSim, p)
	c := a.Overall
	x := c.MaxConcurrencyWithinSLA
	if c.Method != MethodInterpolated || x != math.Floor(x) || c.RangeKind != RangePrediction {
		t.Fatalf("capacity %v (%s, range %s): want a whole interpolated one", x, c.Method, c.RangeKind)
	}
	want := "keeps about " + commaInt(x) + " requests in flight within the SLA."
	if !strings.Contains(a.Answer, want) {
		t.Errorf("answer %q lacks %q", a.Answer, want)
	}
	cert := "Modelled between measurements: " + commaInt(c.PassLoad) + " requests in flight met the SLA and " + commaInt(c.FailLoad) +
		" requests in flight broke it; between them the queueing model puts capacity at about " + commaInt(x) + " requests in flight (range "
	if !strings.HasPrefix(a.Headline.Certainty, cert) {
		t.Errorf("certainty %q lacks %q", a.Headline.Certainty, cert)
	}
	var b bytes.Buffer
	if err := PrintSummary(&b, a); err != nil {
		t.Fatal(err)
	}
	rows := 0
	for _, line := range strings.Split(b.String(), "\n") {
		row := strings.TrimSpace(line)
		if !strings.HasPrefix(row, "H100-SXM") {
			continue
		}
		rows++
		if strings.Contains(row, "false") || strings.HasSuffix(row, " 0.00") || !strings.HasSuffix(row, "–") {
			t.Errorf("sizing row %q", line)
		}
	}
	if rows == 0 {
		t.Errorf("no sizing rows in\n%s", b.String())
	}
}

// TestMoneyRoundsAsTheReportsDo: the CLI's cost figures round half up, as the reports'
// do ($1,277.50 a month reads $1,278 everywhere), and "–" stands for no price.
func TestMoneyRoundsAsTheReportsDo(t *testing.T) {
	for _, c := range []struct {
		usd  float64
		want string
	}{{1277.5, "1,278"}, {6387.4, "6,387"}, {51100, "51,100"}, {0, "–"}} {
		if got := moneyOrDash(c.usd, 0); got != c.want {
			t.Errorf("moneyOrDash(%v) = %q, want %q", c.usd, got, c.want)
		}
	}
}

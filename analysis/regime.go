package analysis

import (
	"fmt"
	"math"
	"strings"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/sla"
)

// Regime thresholds: a metric "rises" when it exceeds the lightest step's by these factors.
const (
	ttftRiseFactor = 1.5
	itlRiseFactor  = 1.25
	// saturationMargin: n above margin × fitted slots counts as saturated slots.
	saturationMargin = 1.05
	// minTTFTRiseMs: TTFT must also rise by at least this much to count as rising.
	minTTFTRiseMs = 25
	// promptHeavyRatio: prompts at least this many times the output make a segment's
	// work prefill-dominated.
	promptHeavyRatio = 20
)

// classifySteps labels each step (sorted by load) with its regime and evidence.
func classifySteps(steps []StepStats, sf segFit) {
	if len(steps) == 0 {
		return
	}
	base := &steps[0]
	for i := range steps {
		prev := base
		if i > 0 {
			prev = &steps[i-1]
		}
		steps[i].Regime, steps[i].RegimeEvidence = classify(&steps[i], base, prev, sf)
	}
}

// itlFlatFactor: ITL within this factor of the previous step's counts as flat.
const itlFlatFactor = 1.15

// itlRatio is s's mean ITL over ref's (1 when either lacks ITL data).
func itlRatio(s, ref *StepStats) float64 {
	if s.ITLMs.N > 0 && ref.ITLMs.N > 0 && ref.ITLMs.Mean > 0 {
		return s.ITLMs.Mean / ref.ITLMs.Mean
	}
	return 1
}

// queueEvidence describes ITL for a queue verdict from its actual ratios against the
// lightest step (itlX) and the previous step: flat, risen then flat, or still rising.
func queueEvidence(s, base, prev *StepStats, itlX float64, why string) string {
	prevX := itlRatio(s, prev)
	switch {
	case itlX < itlRiseFactor:
		return "TTFT rising while ITL stays flat: " + why
	case prev != base && prevX < itlFlatFactor && prevX > 1/itlFlatFactor:
		return fmt.Sprintf("ITL rose ×%.1f as the batch filled, then stayed flat once slots were full (×%.2f vs load %s) while TTFT rose: %s",
			itlX, prevX, fmtNum(prev.Load), why)
	case prevX <= 1/itlFlatFactor:
		return fmt.Sprintf("TTFT rising while ITL fell (×%.2f vs load %s, ×%.2f vs load %s): %s",
			prevX, fmtNum(prev.Load), itlX, fmtNum(base.Load), why)
	}
	return fmt.Sprintf("TTFT rising and ITL still rising (×%.2f vs load %s): %s while the batch grows",
		prevX, fmtNum(prev.Load), why)
}

// classify decides one step's regime from the client curves relative to the lightest
// step, the fitted slots and the server metrics when scraped.
func classify(s, base, prev *StepStats, sf segFit) (Regime, string) {
	if s.TTFTMs.N == 0 || base.TTFTMs.N == 0 {
		return RegimeNone, "no successful requests to judge"
	}
	ttftX := s.TTFTMs.Mean / base.TTFTMs.Mean
	if s.TTFTMs.Mean-base.TTFTMs.Mean < minTTFTRiseMs {
		ttftX = math.Min(ttftX, 1) // a few ms more is batching noise, not a rising TTFT
	}
	itlX := itlRatio(s, base)
	n := s.Load
	if s.Rate > 0 && s.Concurrency == 0 {
		n = s.Rate * s.E2EMs.Mean / 1000
	}
	ev := []string{fmt.Sprintf("TTFT ×%.2f and ITL ×%.2f vs load %s", ttftX, itlX, fmtNum(base.Load))}
	saturated := false
	if sf.ok && sf.eval.m.c < maxSlots/2 && n > saturationMargin*sf.eval.m.c {
		saturated = true
		ev = append(ev, fmt.Sprintf("%.1f requests in system > %.1f fitted slots", n, sf.eval.m.c))
	}
	if sv := s.Server; sv != nil {
		ev = append(ev, fmt.Sprintf("server waiting %.1f, running %.1f, KV %.0f%%, preemptions %.0f",
			sv.WaitingMean, sv.RunningMean, 100*sv.KVCacheUsageMax, sv.Preemptions))
		if sv.WaitingMean >= 1 || sv.KVCacheUsageMax >= 0.95 || sv.Preemptions > 0 {
			saturated = true
		}
	}
	// Prompt-dominated work: a decode iteration costs as much as a few hundred prefill
	// tokens, so with prompts ≥ promptHeavyRatio × the output the prefill work dominates
	// and an inflated ITL is prefill interference rather than decode batch growth.
	promptHeavy := s.PromptTokensMean >= promptHeavyRatio*math.Max(s.OutputTokensMean, 1)
	// Long prompts with rising TTFT or inflated ITL point at prefill, unless the slots are
	// full (then the queue explains TTFT); the model's split of TTFT into prefill time and
	// waiting can also decide.
	prefill := !saturated && promptHeavy && (ttftX >= ttftRiseFactor || itlX >= itlRiseFactor)
	if sf.ok && ttftX >= ttftRiseFactor && itlX >= itlRiseFactor && ttftX > 1.5*itlX {
		m := sf.eval.m
		growth := m.base(s.Load, m.lout) - m.base(base.Load, m.lout)
		if growth > m.wait(s.Load, m.lout) && growth > 0.5*(s.TTFTMs.Mean-base.TTFTMs.Mean) {
			prefill = true
			ev = append(ev, fmt.Sprintf("prefill interference %.0f ms of TTFT (%.1f ms per 1k prompt tokens in flight)",
				growth, m.tp*1000/math.Max(m.pmean, 1)))
		}
	}
	switch {
	case prefill:
		return RegimePrefill, strings.Join(append(ev, fmt.Sprintf("prompt-dominated work (%.0f prompt vs %.0f output tokens): prefill interference inflates ITL and TTFT grows with prompt tokens in flight",
			s.PromptTokensMean, s.OutputTokensMean)), "; ")
	case saturated && ttftX >= ttftRiseFactor:
		return RegimeQueue, strings.Join(append(ev, queueEvidence(s, base, prev, itlX, "requests wait for a slot")), "; ")
	case itlX >= itlRiseFactor:
		return RegimeDecode, strings.Join(append(ev, "ITL rising with batch size: decode is memory-bandwidth bound"), "; ")
	case ttftX >= ttftRiseFactor && promptHeavy:
		return RegimePrefill, strings.Join(append(ev, "TTFT rising with long prompts while ITL stays flat"), "; ")
	case ttftX >= ttftRiseFactor:
		return RegimeQueue, strings.Join(append(ev, queueEvidence(s, base, prev, itlX, "admission queueing")), "; ")
	}
	return RegimeNone, strings.Join(append(ev, "no saturation"), "; ")
}

// bottleneckOf names the regime that limits capacity: the first failing step's regime,
// else the model's regime at the capacity load, else one inferred from the metric of
// the binding bound (r.bound, typed by the SLA judge).
func bottleneckOf(r capResult, steps []StepStats, sf segFit) (Regime, string) {
	if r.bound.Metric == sla.ErrorRate {
		i := r.fail
		if r.method == MethodBelowFirstStep || i < 0 {
			i = 0
		}
		return RegimeErrors, errorEvidence(&steps[i])
	}
	if r.method == MethodNoData {
		return RegimeNone, noMeasuredEvidence(steps)
	}
	if r.method == MethodBelowFirstStep {
		return RegimeNone, belowFirstStepEvidence(&steps[0])
	}
	if r.fail >= 0 && steps[r.fail].Regime != RegimeNone && steps[r.fail].Regime != "" {
		s := &steps[r.fail]
		return s.Regime, fmt.Sprintf("at load %s: %s", fmtNum(s.Load), s.RegimeEvidence)
	}
	if r.method == MethodAtLeast {
		// Every step met the SLA: no bound was reached, so none can be named as binding
		// (the model's queue at the highest load is a prediction, not a measured limit).
		return RegimeNone, atLeastEvidence(steps)
	}
	metric := r.bound.Metric
	if sf.ok {
		m := sf.eval.m
		// What breaks the SLA is the model's state at the first failing load (just past
		// the capacity a closed loop's mean wait is small, but its requests queue).
		x := r.value
		if r.fail >= 0 {
			x = math.Max(x, steps[r.fail].Load)
		}
		st := m.state(x, m.lout)
		queued := st.wait > m.baseAt(st.b) || (!m.open && x > m.c)
		switch {
		case !st.ok || (queued && metric != sla.ITL):
			return RegimeQueue, fmt.Sprintf("model: %.0f ms waiting for one of %.1f slots at the capacity point", st.wait, m.c)
		case metric == sla.ITL || metric == sla.E2E:
			return RegimeDecode, fmt.Sprintf("model: ITL %.1f ms at batch %.1f (%.2f ms per sequence) binds", m.itlAt(st.b), st.b, m.d1)
		case metric == sla.TTFT || metric == sla.TTFO:
			return RegimePrefill, fmt.Sprintf("model: TTFT %.0f ms without queueing binds (prefill)", m.baseAt(st.b))
		}
	}
	switch metric {
	case sla.ITL:
		return RegimeDecode, "ITL constraint binds"
	case sla.TTFT, sla.TTFO:
		return RegimeQueue, "TTFT constraint binds"
	}
	return RegimeNone, "no bottleneck reached"
}

// saturatedFirstStep opens the evidence of an open loop saturated at its lowest rate.
const saturatedFirstStep = "the server is saturated already at the lowest rate tested"

// firstStepSaturated reports whether s, the lowest load of a ladder, is an open loop
// the server could not keep up with (it completed less than the rate offered): it is
// saturated, not unloaded.
func firstStepSaturated(s *StepStats) bool {
	return s.Schedule == plan.ScheduleRate && s.AchievedRateRps > 0 && s.LittleThroughputRps < s.Rate
}

// saturatedBelowFirst is Capacity.FirstStepSaturated of c, the capacity of a ladder of
// steps sorted by load: the SLA fails at the lowest load (not on errors) because that
// load already saturated the server.
func saturatedBelowFirst(c Capacity, steps []StepStats) bool {
	return c.Method == MethodBelowFirstStep && c.Bottleneck != RegimeErrors && len(steps) > 0 &&
		firstStepSaturated(&steps[0])
}

// belowFirstStepEvidence explains an SLA that fails at the lowest load: no saturation
// limits it, the SLA is tighter than the deployment's (nearly) unloaded latency.
func belowFirstStepEvidence(s *StepStats) string {
	what := "the SLA is below the latency at the lowest load tested"
	switch {
	case firstStepSaturated(s):
		what = fmt.Sprintf("%s (it completed %.2f of %.2f requests/s offered)", saturatedFirstStep,
			s.AchievedRateRps, s.sentRateRps)
	case s.Schedule != plan.ScheduleRate && s.Load <= 1:
		what = "the SLA is below the unloaded latency"
	}
	v := strings.Join(s.SLAViolations, ", ")
	if v == "" {
		v = "the SLA fails"
	}
	return fmt.Sprintf("%s (at load %s: %s)", what, fmtNum(s.Load), v)
}

// atLeastEvidence explains a ladder whose every step met the SLA: no bottleneck was
// reached, with the regime the highest step already shows when it has one.
func atLeastEvidence(steps []StepStats) string {
	e := "no bottleneck reached"
	if n := len(steps); n > 0 {
		if s := &steps[n-1]; s.Regime != RegimeNone && s.Regime != "" {
			e += fmt.Sprintf(" (load %s, the highest tested, already shows the %s regime: %s)", fmtNum(s.Load), s.Regime, s.RegimeEvidence)
		}
	}
	return e
}

package analysis

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
	"github.com/llmcap/llmcap/sla"
)

// unfinishedWarning warns about a step whose measured requests were unfinished (more
// than 5% of them, or any overdue one): still in flight when the step ended, each
// counted by the SLA judge at its wait so far, a lower bound of its latency (censored;
// docs/metrics.md "Unfinished requests"). "" when none or few were and none is overdue.
// Overdue ones (no token for more than twice the longest finished request) say the
// server looks hung — a longer window would not help; otherwise, with some completed,
// the verdict rests on the finished requests where the waits are short; with none
// completed there are no latencies at all.
func unfinishedWarning(seg string, s *StepStats) string {
	n := s.Requests + s.Unfinished
	if s.Unfinished == 0 || (s.Overdue == 0 && float64(s.Unfinished) <= 0.05*float64(n)) {
		return ""
	}
	head := fmt.Sprintf("%s: %d of %d measured requests were still in flight when the step ended (unfinished); "+
		"the SLA judge counts each at its wait so far, a lower bound of its latency",
		stepPlace(seg, s), s.Unfinished, n)
	if s.ClientLimited {
		return head + ": they were waiting on the client's own limit, not on the server (see the client-limit warning)"
	}
	if s.Overdue > 0 && s.Requests-s.Errors > 0 {
		return head + "; " + hungWords(s) + " (they count as failed in the error rate)"
	}
	if s.Requests-s.Errors > 0 {
		if s.Schedule == plan.ScheduleConcurrency {
			head += "; the steady throughput counts them for their time in flight so far, so it is an upper bound"
		}
		return head + "; where their waits are short the latencies are estimated from the finished requests (lengthen ladder.grace or ladder.duration to let them finish)"
	}
	if s.cancelledNoFirst == s.Unfinished {
		return head + ", none with a first token: the server did not answer (target.first_byte_timeout and target.idle_timeout fail such requests sooner)"
	}
	return head + "; none completed, so there are no finished latencies (lengthen ladder.grace or ladder.duration)"
}

// stepTimeoutWarning warns about a step its wall-time bound ended (CutByStepTimeout);
// "" otherwise.
func stepTimeoutWarning(seg string, s *StepStats) string {
	if !s.CutByStepTimeout {
		return ""
	}
	return fmt.Sprintf("%s: the step's wall-time bound (%s) ended it before its window and grace period did; "+
		"its %d measured requests still in flight are unfinished, counted at their wait so far (ladder.step_timeout sets the bound)",
		stepPlace(seg, s), s.stepTimeout, s.Unfinished)
}

// fitWarning warns when a segment's model fit means nothing: R² below 0 (the model
// predicts TTFT p95 worse than its mean, often when TTFT hardly varies with load), or no
// step with ITL (a server that does not stream, or 1-token replies), which leaves the
// decode fit at 0 + 0·batch. "" when the fit is usable.
func fitWarning(sa *SegmentAnalysis) string {
	f := sa.Fit
	if f == nil {
		return ""
	}
	var why []string
	if f.R2 < 0 && len(f.Residuals) > 0 {
		why = append(why, fmt.Sprintf("the TTFT fit explains nothing (R² %s < 0: it predicts the steps' TTFT p95 worse than their mean does), so its curve is no prediction", r2Number(f.R2)))
	}
	itl := false
	for i := range sa.Steps {
		itl = itl || sa.Steps[i].ITLMs.N > 0
	}
	if !itl && anyMeasured(sa.Steps) {
		why = append(why, "no step has ITL (the server did not stream, or every reply had one token), so decode speed is not measured")
	}
	if len(why) == 0 {
		return ""
	}
	return fmt.Sprintf("segment %s: %s", sa.Segment, strings.Join(why, "; "))
}

// itlNotApplicableWarning says once per segment that its ITL constraints did not apply:
// the SLA has one, some step had successful requests and none of them produced two
// output tokens (ITL is defined for OSL ≥ 2). "" otherwise.
func itlNotApplicableWarning(sa *SegmentAnalysis, cons []plan.Constraint) string {
	var itl *plan.Constraint
	for i := range cons {
		if m, _ := sla.ParseMetric(cons[i].Metric); m == sla.ITL {
			itl = &cons[i]
			break
		}
	}
	if itl == nil {
		return ""
	}
	na := false
	for i := range sa.Steps {
		s := &sa.Steps[i]
		if s.itlEligible > 0 {
			return ""
		}
		na = na || notApplicable(s, *itl)
	}
	if !na {
		return ""
	}
	return fmt.Sprintf("ITL SLA not applicable to segment %s: no request produced two tokens (ITL is defined for two output tokens or more)", sa.Segment)
}

// stepWarnings warns about every step that did not reach steady state, and about
// segments whose capacity is extrapolated or below the first step.
func stepWarnings(a *Analysis) []Warning {
	var out []Warning
	all := append([]SegmentAnalysis(nil), a.Segments...)
	if a.Mix != nil {
		all = append(all, *a.Mix)
	}
	for _, sa := range all {
		for _, s := range sa.Steps {
			if w := stepTimeoutWarning(sa.Segment, &s); w != "" {
				out = append(out, stepWarning(WarnStepTimeout, sa.Segment, &s, w))
			}
			if w := unfinishedWarning(sa.Segment, &s); w != "" {
				out = append(out, stepWarning(WarnUnfinished, sa.Segment, &s, w))
			}
			if s.SimulatorLate {
				out = append(out, stepWarning(WarnSimulatorLate, sa.Segment, &s, fmt.Sprintf(
					"%s: the simulator ran late (iteration lateness p99 %s ms > %s ms): the host starved it "+
						"of CPU, so this step's latencies measure the host, not the modelled engine: it is left out of the fit and the capacity; rerun on a quieter machine",
					stepPlace(sa.Segment, &s), fmtNum(roundTo(s.Server.SimLatenessP99Ms, 1)), fmtNum(SimLateLimitMs))))
			}
			if w := clientReadLateWarning(sa.Segment, &s); w != "" {
				out = append(out, stepWarning(WarnClientReadLate, sa.Segment, &s, w))
			}
			if w := overMaxTokensWarning(sa.Segment, &s); w != "" {
				out = append(out, stepWarning(WarnIgnoredMaxTokens, sa.Segment, &s, w))
			}
			if !s.SteadyState {
				out = append(out, stepWarning(WarnNotSteady, sa.Segment, &s, fmt.Sprintf("%s: not in steady state: %s",
					stepPlace(sa.Segment, &s), s.SteadyStateReason)))
			}
		}
		out = append(out, fitWarnings(&sa, a.Constraints)...)
		if w := clientLimitedWarning(&sa, &a.Plan); w != "" {
			out = append(out, segmentWarning(WarnClientLimited, sa.Segment, w))
		}
		if w, ok := capacityWarning(&sa, &a.Plan); ok {
			out = append(out, w)
		}
	}
	return out
}

// fitWarnings are a segment's warnings about its model fit: too few steps, slots not
// identified, a meaningless fit, ITL constraints that did not apply, an open slots band.
func fitWarnings(sa *SegmentAnalysis, cons []plan.Constraint) []Warning {
	var out []Warning
	add := func(k WarningKind, msg string) { out = append(out, segmentWarning(k, sa.Segment, msg)) }
	if f := sa.Fit; f != nil && f.Underdetermined {
		add(WarnFitUnderdetermined, fmt.Sprintf("segment %s: model fit from %d steps: not enough to identify the model (its TTFT curve alone has 3 parameters), so its slots, maximum throughput and R² say nothing; test 3 loads or more, some beyond the knee",
			sa.Segment, f.FitSteps))
	} else if f != nil && !f.SlotsIdentified {
		w := fmt.Sprintf("segment %s: slots not identified (no step saturated the server)", sa.Segment)
		// Only a fit close to the loads tested says something; far beyond them it is
		// an unconstrained extrapolation (40,580 slots from loads 1 and 2).
		if top := maxInFlight(sa.Steps); f.slotsFitted >= top+1 && f.slotsFitted <= projectMaxFactor*top {
			w += fmt.Sprintf("; the fit suggests about %.0f, above the %s requests in flight at the highest load",
				f.slotsFitted, fmtNum(roundTo(top, 1)))
		}
		add(WarnSlotsNotIdentified, w)
	}
	if w := fitWarning(sa); w != "" {
		add(WarnFitMeaningless, w)
	}
	if w := itlNotApplicableWarning(sa, cons); w != "" {
		add(WarnITLNotApplicable, w)
	}
	if f := sa.Fit; f != nil && f.SlotsIdentified && f.slotsUnlocated > 0.025 {
		add(WarnSlotsBandOpen, fmt.Sprintf("segment %s: the slots' band has no upper bound: %s of the bootstrap resamples saturated no step (the band shown, %.1f–%.1f, is that of the others); add loads above the knee to pin it",
			sa.Segment, pct(f.slotsUnlocated), f.SlotsCILow, f.SlotsCIHigh))
	}
	return out
}

// capacityWarning is the warning about a segment's capacity method when it is not a
// measured one: at least (every step met the SLA), projected, no data or below the
// first step; ok is false for a measured capacity.
func capacityWarning(sa *SegmentAnalysis, p *plan.Plan) (Warning, bool) {
	last := 0.0
	if n := len(sa.Steps); n > 0 {
		last = sa.Steps[n-1].Load
	}
	var k WarningKind
	var msg string
	switch sa.Capacity.Method {
	case MethodAtLeast:
		k = WarnCapacityAtLeast
		msg = fmt.Sprintf("segment %s: every step met the SLA: capacity is at least %s (the highest load tested; no limit reached); extend the ladder to find the limit",
			sa.Segment, fmtNum(last))
		if sa.Capacity.ClientLimited {
			msg = fmt.Sprintf("segment %s: every step met the SLA, but %s limited the load the server saw: %.2f req/s is a lower bound set by the client, not the server's limit",
				sa.Segment, clientWho(p), sa.Capacity.MaxRateWithinSLA)
		}
	case MethodModel:
		k = WarnCapacityProjected
		msg = fmt.Sprintf("segment %s: every step met the SLA; capacity %s is projected by the model beyond the highest load tested (%s), capped at %s×",
			sa.Segment, fmtNum(loadOf(sa.Capacity)), fmtNum(last), fmtNum(projectMaxFactor))
	case MethodNoData:
		k, msg = WarnCapacityNoData, fmt.Sprintf("segment %s: %s", sa.Segment, noMeasuredEvidence(sa.Steps))
	case MethodBelowFirstStep:
		k = WarnCapacityBelowFirstStep
		msg = fmt.Sprintf("segment %s: the SLA fails already at the lowest load (%s)", sa.Segment, sa.Capacity.LimitingConstraint)
		switch s := firstFailing(sa.Steps); capacityCause(sa.Steps) {
		case causeUndetermined:
			msg = fmt.Sprintf("segment %s: the lowest load is undetermined, not a measured failure: %s", sa.Segment, undeterminedWords(s))
		case causeHung:
			msg = fmt.Sprintf("segment %s: the SLA fails already at the lowest load because requests hung (%s)", sa.Segment, hungWords(s))
		}
	default:
		return Warning{}, false
	}
	return segmentWarning(k, sa.Segment, msg), true
}

// sourceWarned reports whether a.Warnings already holds a warning of kind k about the
// segment (or mix) the headline comes from.
func sourceWarned(a *Analysis, k WarningKind) bool {
	return a.OverallSource != "" && slices.ContainsFunc(a.Warnings, func(w Warning) bool {
		return w.Kind == k && w.Segment == a.OverallSource
	})
}

// headlineWarnings are the run-wide notes on the headline, after every other warning:
// steps whose error rate exceeds the SLA's bound (unless a segment's SLA already fails
// on errors at its lowest load, which its own warning says), a headline capacity that
// is projected, a lower bound of the ladder (not of the client's limit), below the
// first step (not on errors) or missing, and projected what-if rows.
func headlineWarnings(a *Analysis) []Warning {
	var out []Warning
	if w, ok := errorRateWarning(a); ok {
		out = append(out, w)
	}
	switch a.Overall.Method {
	case MethodModel:
		out = append(out, warning(WarnHeadlineProjected, "The capacity is a model projection beyond the last measured step, not a measurement."))
	case MethodAtLeast:
		// Not when the client's limit, not the ladder's top, bounds it, nor when the
		// headline is a segment whose own capacity-at-least warning already says so
		// (a one-segment run would say it twice).
		if !a.Overall.ClientLimited && !sourceWarned(a, WarnCapacityAtLeast) {
			fix := "extend the ladder upwards to find the limit"
			if a.Plan.Ladder.Search != nil {
				fix = "raise ladder.search.max to find the limit"
			}
			out = append(out, warning(WarnHeadlineAtLeast, "Every step met the SLA: the capacity is the highest load tested, a lower bound; %s.", fix))
		}
	case MethodBelowFirstStep:
		if a.Overall.Bottleneck != RegimeErrors {
			msg := "The SLA already fails at the lowest load measured: "
			fix := "extend the ladder downwards"
			switch s := a.Plan.Ladder.Search; {
			case a.Overall.cause == causeUndetermined:
				msg, fix = "The lowest load measured is undetermined, not failed: ",
					"unfinished requests left its verdict open; lengthen ladder.duration or ladder.grace (see the advice)"
			case a.Overall.cause == causeHung:
				fix = "requests hung, not because the SLA is too tight (see the advice)"
			case s != nil && s.Integer():
				fix = "no smaller load exists: relax the SLA or make the deployment faster"
			case s != nil:
				fix = "lower ladder.search.start"
			}
			out = append(out, warning(WarnHeadlineBelowFirstStep, "%s%s.", msg, fix))
		}
	case MethodNoData:
		msg := "No measured step had data: the capacity could not be determined."
		if allSimulatorLate(allSteps(a)) {
			msg = "No step is evidence (the simulator ran late in every one): the capacity could not be determined."
		}
		out = append(out, warning(WarnHeadlineNoData, "%s", msg))
	}
	if slices.ContainsFunc(a.WhatIf, func(w WhatIf) bool { return w.Projected }) {
		out = append(out, warning(WarnWhatIfProjected, "What-if rows marked 'projected' are roofline projections to other GPUs, not measurements."))
	}
	return out
}

// errorRateWarning lists the steps (of every segment and the mix) whose error rate is
// above the SLA's max_error_rate, e.g. "Error rate above 1.0% at 1 step(s): mix @ 64
// concurrency (5.0%)."; ok is false when none is, or when a segment's SLA fails on
// errors already at its lowest load (its capacity warning names the error bound).
func errorRateWarning(a *Analysis) (Warning, bool) {
	maxErr := sla.MaxErrorRate(a.Plan.SLA)
	var erroring []string
	for _, sa := range analysedSegments(a) {
		if sa.Capacity.Method == MethodBelowFirstStep && sa.Capacity.Bottleneck == RegimeErrors {
			return Warning{}, false
		}
		for i := range sa.Steps {
			if s := &sa.Steps[i]; s.ErrorRate > maxErr {
				erroring = append(erroring, fmt.Sprintf("%s (%s)", stepLabel(a, s), pctOneDecimal(s.ErrorRate)))
			}
		}
	}
	if len(erroring) == 0 {
		return Warning{}, false
	}
	return warning(WarnErrorRateAboveSLA, "Error rate above %s at %d step(s): %s.", pctOneDecimal(maxErr), len(erroring), clip(erroring, 6)), true
}

// analysedSegments are a's segments, then the mix when it ran.
func analysedSegments(a *Analysis) []SegmentAnalysis {
	out := append([]SegmentAnalysis(nil), a.Segments...)
	if a.Mix != nil {
		out = append(out, *a.Mix)
	}
	return out
}

// stepPlace opens a step's warning: "segment short, step 7 (185 users)" — the step
// numbered from 1 as the progress lines and `llmcap plan` number it, so two steps at one
// load (a capacity search that measured 185 users twice) are told apart — with its load
// ("concurrency 8", "2.50 req/s", "185 users", "trace replay").
func stepPlace(seg string, s *StepStats) string {
	load := "concurrency " + loadWords(s.Load)
	switch s.Schedule {
	case plan.ScheduleRate:
		load = loadWords(s.Load) + " req/s"
	case plan.ScheduleUsers:
		load = loadWords(s.Load) + " users"
	case plan.ScheduleTrace:
		load = "trace replay"
	}
	return fmt.Sprintf("segment %s, step %d (%s)", seg, s.Step+1, load)
}

// stepLabel names a step in a sentence: "mix @ 64 concurrency", "chat @ 2.50 req/s",
// "chat @ 200 users".
func stepLabel(a *Analysis, s *StepStats) string {
	seg := s.Segment
	if seg == "" {
		seg = plan.MixSegment
	}
	unit := "concurrency"
	switch a.Schedule {
	case plan.ScheduleRate, plan.ScheduleTrace:
		unit = "req/s"
	case plan.ScheduleUsers:
		unit = "users"
	}
	return fmt.Sprintf("%s @ %s %s", seg, loadWords(s.Load), unit)
}

// loadWords formats a load level as the report does: whole numbers with thousands
// separators, others to three significant figures or so (2.50, 12.5, 0.500).
func loadWords(v float64) string {
	switch av := math.Abs(v); {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "–"
	case v == math.Trunc(v) || av >= 100:
		return commaInt(math.RoundToEven(v))
	case av >= 10:
		return fmt.Sprintf("%.1f", v)
	case av >= 1:
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.3f", v)
}

// pctOneDecimal formats a 0..1 fraction as a percentage with one decimal ("5.0%").
func pctOneDecimal(f float64) string { return fmt.Sprintf("%.1f%%", 100*f) }

// clip joins at most n items, noting how many more there are.
func clip(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:n], ", ") + fmt.Sprintf(" and %d more", len(items)-n)
}

// sameMessage reports whether two warnings read the same (adjacent repeats are shown once).
func sameMessage(x, y Warning) bool { return x.Message == y.Message }

// allSteps are the steps of every segment and the mix.
func allSteps(a *Analysis) []StepStats {
	var out []StepStats
	for _, sa := range analysedSegments(a) {
		out = append(out, sa.Steps...)
	}
	return out
}

// duplicatesWarning says that n records.jsonl lines repeated a request already counted
// and were ignored (rundir.DuplicateFilter).
func duplicatesWarning(n int) Warning {
	lines := "lines"
	if n == 1 {
		lines = "line"
	}
	w := warning(WarnDuplicateRecords, "%s: %d duplicated record %s ignored (the same request_id in the same run and step "+
		"appeared more than once, e.g. after a replayed resume or a file pasted twice); each request is counted once",
		rundir.FileRecords, n, lines)
	w.Data = &rundir.WarningData{File: rundir.FileRecords, Count: n}
	return w
}

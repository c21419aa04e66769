package analysis

import (
	"fmt"
	"math"
	"strings"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/sla"
)

// Regime thresholds: a metric "rises" when it exceeds the unloaded reference
// (referenceOf) by these factors.
const (
	ttftRiseFactor = 1.5
	itlRiseFactor  = 1.25
	// saturationMargin: n above margin × fitted slots counts as saturated slots.
	saturationMargin = 1.05
	// minTTFTRiseMs: TTFT must also rise by at least this much (real-time ms; divided by
	// the simulator's speed-up) to count as rising.
	minTTFTRiseMs = 25
	// prefillMinShare: below this prefill share of the server's time (prefillShare,
	// an ITL inflation of 1.33×) prefill cannot bind; prompts a quarter of the output
	// (a token share of 0.2) never reach it.
	prefillMinShare = 0.25
)

// regimeContext is what labelling a segment's steps needs besides the steps: the
// fitted model, the SLA (which bound a step breaks) and the deployment (the engine's
// running limit, the simulator's speed-up).
type regimeContext struct {
	sf   segFit
	spec plan.SLA
	dep  deployment
}

// classifySteps labels each step (sorted by load) with its regime, queue limit and
// evidence. The server's scraped metrics decide where a step has them; the client's
// curves, against a reference that does not depend on the lightest step alone, decide
// otherwise.
func classifySteps(steps []StepStats, rc regimeContext) {
	if len(steps) == 0 {
		return
	}
	ref := referenceOf(steps, rc.sf)
	lim := runLimitOf(steps, rc.dep)
	var prev *StepStats
	for i := range steps {
		s := &steps[i]
		s.Regime, s.QueueLimit, s.RegimeEvidence = classify(s, prev, ref, lim, rc)
		if s.TTFTMs.N > 0 {
			prev = s
		}
	}
}

// latencyRef is the unloaded latency a step's TTFT and ITL are compared with: the
// lowest of the lightest measured step's means and the fitted model's at one request
// (when the fit's value is at least half the measured one), so that adding or dropping
// the lightest step of a ladder moves it little.
type latencyRef struct {
	ttftMs, itlMs float64
	what          string     // "load 1" or "the fitted unloaded latency"
	light         *StepStats // the lightest step with TTFT data
}

// referenceOf is the unloaded latency of a segment (latencyRef); light is nil when no
// step has TTFT data.
func referenceOf(steps []StepStats, sf segFit) latencyRef {
	var r latencyRef
	for i := range steps {
		if steps[i].TTFTMs.N > 0 {
			r.light = &steps[i]
			break
		}
	}
	if r.light == nil {
		return r
	}
	r.ttftMs, r.what = r.light.TTFTMs.Mean, "load "+fmtNum(r.light.Load)
	if r.light.ITLMs.N > 0 {
		r.itlMs = r.light.ITLMs.Mean
	}
	if !sf.ok {
		return r
	}
	m := sf.eval.m
	fitted := false
	if t := m.baseAt(1); t >= 0.5*r.ttftMs && t < r.ttftMs {
		r.ttftMs, fitted = t, true
	}
	if d := m.itlAt(1); r.itlMs > 0 && d >= 0.5*r.itlMs && d < r.itlMs {
		r.itlMs, fitted = d, true
	}
	if fitted {
		r.what = fmt.Sprintf("the unloaded latency (fitted, TTFT %.1f ms, ITL %.2f ms)", r.ttftMs, r.itlMs)
	}
	return r
}

// ratios are a step's TTFT and ITL against the reference (ITL 1 when either lacks ITL
// data); a TTFT rise smaller than minTTFTRiseMs (scaled by the speed-up) is noise.
func (r latencyRef) ratios(s *StepStats, speedUp float64) (ttftX, itlX float64) {
	ttftX, itlX = s.TTFTMs.Mean/r.ttftMs, 1
	if s.TTFTMs.Mean-r.ttftMs < minTTFTRiseMs/math.Max(speedUp, 1) {
		ttftX = math.Min(ttftX, 1)
	}
	if s.ITLMs.N > 0 && r.itlMs > 0 {
		itlX = s.ITLMs.Mean / r.itlMs
	}
	return ttftX, itlX
}

// prefillShare estimates the share of the server's time a step spends prefilling: its
// steady-state throughput (req/s) × the unloaded prefill time of one request (the
// reference TTFT less one decode step, ITL), at most the prompt tokens' share of the
// step's tokens, P / (P + L): a prompt token, computed in parallel with the others,
// never costs the server more time than an output token, which a decode step computes
// alone for its sequence (so the estimate cannot run away when the lightest step
// tested is already loaded).
func prefillShare(s *StepStats, r latencyRef) float64 {
	pre := math.Max(r.ttftMs-r.itlMs, 0)
	share := s.LittleThroughputRps * pre / 1000
	if p, l := s.PromptTokensMean, s.OutputTokensMean; p+l > 0 {
		share = math.Min(share, p/(p+l))
	}
	return math.Min(share, 1)
}

// interference splits a step's ITL rise (itlX, against the unloaded reference) into
// what prefill interference explains and the rest: with prefill taking share of the
// server's time, decode iterations stretch by prefillX = 1 / (1 − share) (share capped
// at 0.95), and decodeX = itlX / prefillX is the growth left to the batch's own decode
// work.
func interference(share, itlX float64) (prefillX, decodeX float64) {
	prefillX = 1 / (1 - math.Min(share, 0.95))
	return prefillX, itlX / prefillX
}

// prefillBinds reports whether prefill explains a step's rise: prefill takes at least
// prefillMinShare of the server's time and stretches ITL at least as much as the
// batch's decode work does.
func prefillBinds(share, itlX float64) bool {
	prefillX, decodeX := interference(share, itlX)
	return share >= prefillMinShare && prefillX >= decodeX
}

// itlRatio is s's mean ITL over ref's (1 when either lacks ITL data).
func itlRatio(s, ref *StepStats) float64 {
	if s.ITLMs.N > 0 && ref.ITLMs.N > 0 && ref.ITLMs.Mean > 0 {
		return s.ITLMs.Mean / ref.ITLMs.Mean
	}
	return 1
}

// itlFlatFactor: ITL within this factor of the previous step's counts as flat.
const itlFlatFactor = 1.15

// queueEvidence describes ITL for a queue verdict from its actual ratios against the
// reference (itlX) and the previous step: flat, risen then flat, or still rising.
func queueEvidence(s, prev *StepStats, ref latencyRef, itlX float64, why string) string {
	prevX := 1.0
	if prev != nil {
		prevX = itlRatio(s, prev)
	}
	switch {
	case itlX < itlRiseFactor:
		return "TTFT rising while ITL stays flat: " + why
	case prev != nil && prev != ref.light && prevX < itlFlatFactor && prevX > 1/itlFlatFactor:
		return fmt.Sprintf("ITL rose ×%.1f as the batch filled, then stayed flat once slots were full (×%.2f vs load %s) while TTFT rose: %s",
			itlX, prevX, fmtNum(prev.Load), why)
	case prev != nil && prevX <= 1/itlFlatFactor:
		return fmt.Sprintf("TTFT rising while ITL fell (×%.2f vs load %s, ×%.2f vs %s): %s",
			prevX, fmtNum(prev.Load), itlX, ref.what, why)
	case prev == nil:
		return fmt.Sprintf("TTFT and ITL rising: %s while the batch grows", why)
	}
	return fmt.Sprintf("TTFT rising and ITL still rising (×%.2f vs load %s): %s while the batch grows",
		prevX, fmtNum(prev.Load), why)
}

// brokenLatencies is the set of latency metrics whose SLA bound step s breaks.
func brokenLatencies(s *StepStats, spec plan.SLA) map[sla.Metric]bool {
	out := map[sla.Metric]bool{}
	for _, c := range sla.Judge(spec, stepSample(s)).Violations() {
		if c.Bound.Metric != sla.ErrorRate {
			out[c.Bound.Metric] = true
		}
	}
	return out
}

// classify decides one step's regime: from the server's running and waiting gauges
// when scraped (classifyByServer), else from the client's curves (classifyByClient).
func classify(s, prev *StepStats, ref latencyRef, lim runLimit, rc regimeContext) (Regime, QueueLimit, string) {
	if s.TTFTMs.N == 0 || ref.light == nil || ref.ttftMs <= 0 {
		return RegimeNone, QueueLimitUnknown, "no successful requests to judge"
	}
	if s.Server != nil {
		return classifyByServer(s, prev, ref, lim, rc)
	}
	r, e := classifyByClient(s, prev, ref, rc)
	return r, QueueLimitUnknown, e
}

// classifyByServer labels a step whose server metrics were scraped: an admission
// queue when requests wait with running at its limit or the KV cache full; otherwise
// prefill when prefill work dominates the server's time (or TTFT rises with slots free
// and ITL flat), decode when ITL rises with the batch or breaks its bound. The fitted
// slots play no part: the server's own gauges say whether requests queue.
func classifyByServer(s, prev *StepStats, ref latencyRef, lim runLimit, rc regimeContext) (Regime, QueueLimit, string) {
	ttftX, itlX := ref.ratios(s, rc.dep.speedUp)
	share := prefillShare(s, ref)
	broken := brokenLatencies(s, rc.spec)
	ev := []string{fmt.Sprintf("TTFT ×%.2f and ITL ×%.2f vs %s", ttftX, itlX, ref.what), serverEvidence(s.Server, lim)}
	if ql, why, ok := admissionQueue(s, lim, prefillBinds(share, itlX)); ok {
		return RegimeQueue, ql, strings.Join(append(ev, queueEvidence(s, prev, ref, itlX, why)), "; ")
	}
	ttftUp, itlUp := ttftX >= ttftRiseFactor, itlX >= itlRiseFactor
	prefillX, decodeX := interference(share, itlX)
	shareText := fmt.Sprintf("prefill takes about %.0f%% of the server's time (%.1f req/s × %.0f ms unloaded prefill), stretching ITL ×%.2f, the batch's decode work ×%.2f",
		100*share, s.LittleThroughputRps, math.Max(ref.ttftMs-ref.itlMs, 0), prefillX, decodeX)
	free := "no request waits for a slot or the KV cache"
	rising := ttftUp || itlUp || broken[sla.TTFT] || broken[sla.TTFO] || broken[sla.ITL] || broken[sla.E2E]
	switch {
	case (broken[sla.TTFT] || broken[sla.TTFO]) && !broken[sla.ITL] && transientQueue(s, lim):
		// Random arrivals queue in bursts: the mean backlog may be small, but the TTFT
		// tail that breaks the SLA is requests that waited while running was at its
		// limit — whatever share of the server's time prefill takes.
		ql := QueueBySlots
		if kvFull(s.Server) {
			ql = QueueByKVCache
		}
		return RegimeQueue, ql, strings.Join(append(ev, fmt.Sprintf(
			"requests wait in bursts: up to %.0f waiting while running reached %.0f%s, and the TTFT tail breaks the SLA",
			s.Server.WaitingMax, s.Server.RunningMax, ofLimit(lim))), "; ")
	case rising && prefillBinds(share, itlX):
		return RegimePrefill, QueueLimitUnknown, strings.Join(append(ev, shareText,
			free+": TTFT grows with the prompt tokens in flight and prefill chunks inflate ITL"), "; ")
	case itlUp || broken[sla.ITL]:
		what := "ITL rising with the batch"
		if !itlUp {
			what = "the ITL bound breaks"
		}
		return RegimeDecode, QueueLimitUnknown, strings.Join(append(ev, shareText,
			fmt.Sprintf("%s: %s with %.1f running, so decode (the work of each iteration over the batch) binds", free, what, s.Server.RunningMean)), "; ")
	case ttftUp && share >= prefillMinShare:
		return RegimePrefill, QueueLimitUnknown, strings.Join(append(ev, shareText,
			free+": TTFT rising with ITL flat and slots free, from prompt tokens in flight"), "; ")
	case ttftUp:
		return RegimeNone, QueueLimitUnknown, strings.Join(append(ev, shareText,
			free+": TTFT rising with the iteration time, with too little prefill work to bind: no saturation"), "; ")
	}
	return RegimeNone, QueueLimitUnknown, strings.Join(append(ev, "no saturation"), "; ")
}

// classifyByClient labels a step without server metrics from its curves against the
// reference, the fitted slots and the prefill share.
func classifyByClient(s, prev *StepStats, ref latencyRef, rc regimeContext) (Regime, string) {
	sf := rc.sf
	ttftX, itlX := ref.ratios(s, rc.dep.speedUp)
	n := requestsInSystem(s)
	share := prefillShare(s, ref)
	ev := []string{fmt.Sprintf("TTFT ×%.2f and ITL ×%.2f vs %s", ttftX, itlX, ref.what)}
	saturated := false
	if sf.ok && sf.eval.m.c < maxSlots/2 && n > saturationMargin*sf.eval.m.c {
		saturated = true
		ev = append(ev, fmt.Sprintf("%.1f requests in system > %.1f fitted slots", n, sf.eval.m.c))
	}
	// Prefill-bound work: where prefill interference explains the ITL rise at least as
	// well as the batch's decode work (prefillBinds), an inflated ITL is prefill
	// interference rather than decode batch growth, unless the slots are full (then the
	// queue explains TTFT); the model's
	// split of TTFT into prefill time and waiting can also decide, when prefill takes a
	// fair share of the time (the prompt-to-output ratio alone never does).
	prefill := !saturated && prefillBinds(share, itlX) && (ttftX >= ttftRiseFactor || itlX >= itlRiseFactor)
	if sf.ok && share >= prefillMinShare && ttftX >= ttftRiseFactor && itlX >= itlRiseFactor && ttftX > 1.5*itlX {
		m := sf.eval.m
		growth := m.base(s.Load, m.lout) - m.baseAt(1)
		if growth > m.wait(s.Load, m.lout) && growth > 0.5*(s.TTFTMs.Mean-ref.ttftMs) {
			prefill = true
			ev = append(ev, fmt.Sprintf("prefill interference %.0f ms of TTFT (%.1f ms per 1k prompt tokens in flight)",
				growth, m.tp*1000/math.Max(m.pmean, 1)))
		}
	}
	switch {
	case prefill:
		return RegimePrefill, strings.Join(append(ev, fmt.Sprintf("prefill takes about %.0f%% of the server's time (%.0f prompt vs %.0f output tokens): prefill interference inflates ITL and TTFT grows with prompt tokens in flight",
			100*share, s.PromptTokensMean, s.OutputTokensMean)), "; ")
	case saturated && ttftX >= ttftRiseFactor:
		return RegimeQueue, strings.Join(append(ev, queueEvidence(s, prev, ref, itlX, "requests wait for a slot")), "; ")
	case itlX >= itlRiseFactor:
		return RegimeDecode, strings.Join(append(ev, "ITL rising with batch size: decode binds"), "; ")
	case ttftX >= ttftRiseFactor:
		return RegimeQueue, strings.Join(append(ev, queueEvidence(s, prev, ref, itlX, "admission queueing")), "; ")
	}
	return RegimeNone, strings.Join(append(ev, "no saturation"), "; ")
}

// bottleneck is a segment's bottleneck verdict (Capacity.Bottleneck, QueueLimit and
// BottleneckEvidence).
type bottleneck struct {
	regime   Regime
	limit    QueueLimit
	evidence string
}

// bottleneckOf names the regime that limits capacity: the first failing step's regime,
// else the model's regime at the capacity load (its fitted slots only where the
// server's metrics do not contradict them), else one inferred from the metric of the
// binding bound (r.bound, typed by the SLA judge) and the server's waiting gauge.
func bottleneckOf(r capResult, steps []StepStats, rc regimeContext) bottleneck {
	if r.bound.Metric == sla.ErrorRate {
		i := r.fail
		if r.method == MethodBelowFirstStep || i < 0 {
			i = 0
		}
		return bottleneck{regime: RegimeErrors, evidence: errorEvidence(&steps[i])}
	}
	if r.method == MethodNoData {
		return bottleneck{regime: RegimeNone, evidence: noMeasuredEvidence(steps)}
	}
	if r.method == MethodBelowFirstStep {
		return bottleneck{regime: RegimeNone, evidence: belowFirstStepEvidence(&steps[0])}
	}
	if r.fail >= 0 && steps[r.fail].Regime != RegimeNone && steps[r.fail].Regime != "" {
		s := &steps[r.fail]
		return bottleneck{s.Regime, s.QueueLimit, fmt.Sprintf("at load %s: %s", fmtNum(s.Load), s.RegimeEvidence)}
	}
	if r.method == MethodAtLeast {
		// Every step met the SLA: no bound was reached, so none can be named as binding
		// (the model's queue at the highest load is a prediction, not a measured limit).
		return bottleneck{regime: RegimeNone, evidence: atLeastEvidence(steps)}
	}
	if b, ok := modelBottleneck(r, steps, rc); ok {
		return b
	}
	switch r.bound.Metric {
	case sla.ITL:
		return bottleneck{regime: RegimeDecode, evidence: "ITL constraint binds"}
	case sla.TTFT, sla.TTFO:
		if s := serverStepOf(r, steps); s != nil && !backlogged(s) {
			return bottleneck{regime: RegimePrefill, evidence: fmt.Sprintf("TTFT constraint binds at load %s with no backlog (%s): the time to first token is prefill time",
				fmtNum(s.Load), serverEvidence(s.Server, runLimitOf(steps, rc.dep)))}
		}
		return bottleneck{regime: RegimeQueue, evidence: "TTFT constraint binds"}
	}
	return bottleneck{regime: RegimeNone, evidence: "no bottleneck reached"}
}

// modelBottleneck is the fitted model's regime at the capacity point; ok is false
// without a fit or when the model names no regime for the binding metric.
func modelBottleneck(r capResult, steps []StepStats, rc regimeContext) (bottleneck, bool) {
	if !rc.sf.ok {
		return bottleneck{}, false
	}
	metric := r.bound.Metric
	m := rc.sf.eval.m
	// What breaks the SLA is the model's state at the first failing load (just past
	// the capacity a closed loop's mean wait is small, but its requests queue).
	x := r.value
	if r.fail >= 0 {
		x = math.Max(x, steps[r.fail].Load)
	}
	st := m.state(x, m.lout)
	queued := st.wait > m.baseAt(st.b) || (!m.open && x > m.c)
	note := ""
	if why := slotsContradicted(steps, runLimitOf(steps, rc.dep), m.c); queued && why != "" {
		queued, note = false, fmt.Sprintf(" (not a queue for the fitted slots: %s)", why)
	}
	switch {
	case !st.ok || (queued && metric != sla.ITL):
		limit := QueueLimitUnknown // the client's curves cannot tell slots from KV cache
		switch {
		case kvLimitSeen(steps):
			limit = QueueByKVCache
		case anyServer(steps):
			limit = QueueBySlots
		}
		return bottleneck{RegimeQueue, limit, fmt.Sprintf("model: %.0f ms waiting for one of %.1f slots at the capacity point", st.wait, m.c)}, true
	case metric == sla.ITL || metric == sla.E2E:
		return bottleneck{regime: RegimeDecode, evidence: fmt.Sprintf("model: ITL %.1f ms at batch %.1f (%.2f ms per sequence) binds%s", m.itlAt(st.b), st.b, m.d1, note)}, true
	case metric == sla.TTFT || metric == sla.TTFO:
		return bottleneck{regime: RegimePrefill, evidence: fmt.Sprintf("model: TTFT %.0f ms without queueing binds (prefill)%s", m.baseAt(st.b), note)}, true
	}
	return bottleneck{}, false
}

// anyServer reports whether any step has scraped server metrics.
func anyServer(steps []StepStats) bool {
	for i := range steps {
		if steps[i].Server != nil {
			return true
		}
	}
	return false
}

// serverStepOf is the step whose server metrics speak for the capacity point: the first
// failing step, else the highest; nil when it has none.
func serverStepOf(r capResult, steps []StepStats) *StepStats {
	i := r.fail
	if i < 0 {
		i = len(steps) - 1
	}
	if i < 0 || steps[i].Server == nil {
		return nil
	}
	return &steps[i]
}

// saturatedFirstStep opens the evidence of a ladder saturated at its lowest load.
const saturatedFirstStep = "the server is saturated already at the lowest load tested"

// firstStepSaturated reports whether s, the lowest load of a ladder, already saturated
// the server, so it is loaded, not nearly idle: an open loop the server could not keep
// up with (it completed less than the rate offered), or a closed loop (concurrency or
// users) whose requests queue (regime queue: TTFT grows with the wait for a slot).
func firstStepSaturated(s *StepStats) bool {
	if s.Schedule == plan.ScheduleRate {
		return s.AchievedRateRps > 0 && s.LittleThroughputRps < s.Rate
	}
	return s.Regime == RegimeQueue
}

// ladderWords are the words for a ladder's loads on schedule sched, singular and plural:
// "rate"/"rates" for an open loop, "load"/"loads" for a closed one.
func ladderWords(sched string) (one, many string) {
	if sched == plan.ScheduleRate {
		return "rate", "rates"
	}
	return "load", "loads"
}

// stepsSchedule is the schedule of a segment's steps ("" without steps).
func stepsSchedule(steps []StepStats) string {
	if len(steps) == 0 {
		return ""
	}
	return steps[0].Schedule
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
	if failCauseOf(s) == causeUndetermined {
		return undeterminedWords(s)
	}
	what := "the SLA is below the latency at the lowest load tested"
	switch {
	case firstStepSaturated(s) && s.Schedule == plan.ScheduleRate:
		what = fmt.Sprintf("%s (it completed %.2f of %.2f requests/s offered)", saturatedFirstStep,
			s.AchievedRateRps, s.sentRateRps)
	case firstStepSaturated(s):
		what = saturatedFirstStep + " (its requests queue for a free slot)"
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
	e := "no bottleneck reached within the loads tested"
	if n := len(steps); n > 0 {
		if s := &steps[n-1]; s.Regime != RegimeNone && s.Regime != "" {
			e += fmt.Sprintf("; the highest, load %s, already shows the first signs of the %s regime, the likely limit above it (%s)", fmtNum(s.Load), s.Regime, s.RegimeEvidence)
		}
	}
	return e
}

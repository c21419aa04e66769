package analysis

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/llmcap/llmcap/rundir"

	"github.com/llmcap/llmcap/plan"
)

// Analyze reads the run directory dir (run.json, records.jsonl, steps.jsonl,
// server-metrics.jsonl, profiles/) and computes its Analysis. run.json and
// records.jsonl are required; the rest is optional.
func Analyze(dir string) (*Analysis, error) { return analyzeRun(dir, nil) }

// analyzeRun is Analyze, with spec (when not nil) in place of run.json's SLA.
func analyzeRun(dir string, spec *plan.SLA) (*Analysis, error) {
	in, err := readRun(dir)
	if err != nil {
		return nil, fmt.Errorf("analyze %s: %w", dir, err)
	}
	if spec != nil {
		under := *spec
		if in.meta.Plan.Ladder.CapacityMetric() == plan.TuneUsers {
			// A users ladder's think time is its workload (the users thought that long),
			// not a bound to re-judge by.
			under.ThinkTime = in.meta.Plan.SLA.ThinkTime
		}
		in.meta.Plan.SLA = under
	}
	if len(in.records.order) == 0 {
		state := in.meta.State
		if state == "" {
			state = "unknown"
		}
		for _, d := range in.damage {
			if d.File == rundir.FileRecords && d.Any() {
				return nil, fmt.Errorf("analyze %s: %w: no record of records.jsonl could be read (%s)", dir, ErrNoSteps, d)
			}
		}
		if in.progress.dropped > 0 {
			return nil, fmt.Errorf("analyze %s: %w (%s)", dir, ErrNoSteps, in.progress.warning)
		}
		return nil, fmt.Errorf("analyze %s: %w (run state: %s)", dir, ErrNoSteps, state)
	}
	return analyzeInputs(in), nil
}

// ErrNoSteps is returned by Analyze when the run directory has no step's records (a
// failed launch): there is nothing to analyse.
var ErrNoSteps = errors.New("no step completed: nothing to analyse")

// analyzeInputs computes the Analysis of a read run directory.
func analyzeInputs(in *runInputs) *Analysis {
	p := &in.meta.Plan
	a := &Analysis{FormatVersion: FormatVersion, RunID: in.meta.RunID,
		ToolVersion: in.meta.ToolVersion, ToolCommit: in.meta.ToolCommit, Plan: *p,
		Constraints: constraintsOf(p.SLA), Warnings: []Warning{}, WhatIf: []WhatIf{}}
	for _, w := range in.meta.Warnings { // the sweep's own (e.g. a server that does not stream)
		if w.Message != "" {
			a.Warnings = append(a.Warnings, fromSweep(w))
		}
	}
	if in.meta.Target.Simulator {
		a.GroundTruth = in.meta.Target.Settings
	}
	dep := deploymentOf(in.meta, in.server)
	a.Engine, a.EngineSource, a.RunningLimit, a.RunningLimitSource = dep.engine, dep.engineSource, dep.runLimit, dep.runLimitSource()
	a.Schedule = scheduleOf(in)
	for _, d := range in.damage {
		if d.Any() {
			w := warning(WarnDamagedLines, "%s", d.String())
			w.Data = &rundir.WarningData{File: d.File, Count: d.Corrupt, Line: d.FirstCorrupt, Torn: d.Torn}
			a.Warnings = append(a.Warnings, w)
		}
	}
	if in.duplicates > 0 {
		a.Warnings = append(a.Warnings, duplicatesWarning(in.duplicates))
	}
	if in.unknown.records > 0 {
		a.Warnings = append(a.Warnings, unknownStepsWarning(in.unknown))
	}
	if rp := in.progress; rp.state != "" {
		a.RunState, a.StepsCompleted, a.StepsPlanned = rp.state, rp.done, rp.planned
		a.Warnings = append(a.Warnings, warning(WarnRunIncomplete, "%s", rp.warning))
	}
	server := serverStats(in.server, in.steps)
	gpu := gpuStats(in.server, in.steps)
	seed := seedOf(p)
	names := segmentNames(in)
	for _, name := range names {
		inputs := stepInputsFor(in, name)
		if len(inputs) == 0 {
			continue
		}
		sa := analyzeSegment(name, weightOf(p, name), inputs, in.records, a.Constraints, p, server, dep, seed)
		attachGPU(&sa, gpu)
		sa.Search = searchOf(in.meta.Searches, name, sa.Steps)
		if name == plan.MixSegment {
			a.Mix = &sa
		} else {
			a.Segments = append(a.Segments, sa)
		}
	}
	a.Warnings = append(a.Warnings, stepWarnings(a)...)
	sz := sizingOf(p) // reads the catalog override once
	if w, ok := gpuCountWarning(gpu, sz.gpusPerReplica); ok {
		a.Warnings = append(a.Warnings, w)
	}
	if w, ok := energyCoverageWarning(a); ok {
		a.Warnings = append(a.Warnings, w)
	}
	for i := range a.Segments {
		a.Segments[i].Capacity.Advice = adviceFor(a.Segments[i].Capacity, &a.Segments[i], dep, sz.gpu)
		a.Segments[i].Capacity.cause = capacityCause(a.Segments[i].Steps)
	}
	if a.Mix != nil {
		a.Mix.Capacity.Advice = adviceFor(a.Mix.Capacity, a.Mix, dep, sz.gpu)
		a.Mix.Capacity.cause = capacityCause(a.Mix.Steps)
	}
	a.Overall, a.OverallSource = overall(a)
	if a.Overall.Advice == "" { // no segment analysed
		a.Overall.Advice = adviceFor(a.Overall, &SegmentAnalysis{}, dep, sz.gpu)
	}
	var warns []string
	a.WhatIf, warns = whatIfRows(a.Overall, sz, p.Report.WhatIfGPUs)
	if a.WhatIf == nil {
		a.WhatIf = []WhatIf{}
	}
	for _, w := range warns {
		a.Warnings = append(a.Warnings, warning(WarnSizing, "%s", w))
	}
	for i := range a.Segments {
		a.Segments[i].WhatIf, _ = whatIfRows(a.Segments[i].Capacity, sz, nil)
	}
	a.Kernels = kernelsOf(in, a)
	a.Errors = errorSummaryOf(a)
	a.Drift = driftOf(in.drift, in.hasDrift, p.Drift)
	a.Warnings = append(a.Warnings, driftWarnings(a.Drift)...)
	if su := speedUpOf(in); su > 0 && su != 1 {
		a.SpeedUp = su
		a.Warnings = append([]Warning{warning(WarnSpeedUp, "%s", speedUpWarning(su))}, a.Warnings...)
	}
	a.Answer = answerSentence(a, sz) + incompleteNote(a)
	a.Headline = headlineOf(a, dep, sz)
	if n := sanitizeFloats(a); n > 0 {
		a.Warnings = append(a.Warnings, warning(WarnUndefinedNumbers, "%d undefined numbers (NaN/Inf) were written as 0", n))
	}
	a.Warnings = slices.CompactFunc(append(a.Warnings, headlineWarnings(a)...), sameMessage)
	return a
}

// segmentEval is one segment's steps judged and fitted (no bootstrap): what the
// analysis and the capacity search (Probe) share.
type segmentEval struct {
	all   []StepStats    // every step, sorted by load, with regimes
	steps []StepStats    // the evidence: steps where the simulator did not run late
	smp   []*stepSamples // the evidence's samples
	sf    segFit
	fit   *Fit
	r     capResult
	rules capRules
	rc    regimeContext
}

// evaluateSegment computes, sorts, fits and classifies a segment's steps and finds its
// capacity. ok is false when no step is evidence (all ran late): then only all is set.
func evaluateSegment(inputs []stepInput, st *store, cons []plan.Constraint, p *plan.Plan,
	server map[int]*ServerStats, dep deployment) (segmentEval, bool) {
	type pair struct {
		s  StepStats
		sm *stepSamples
	}
	pairs := make([]pair, len(inputs))
	parallelFor(len(inputs), func(i int) { // steps are independent: one per CPU
		si := inputs[i]
		s, sm := computeStep(st, si, p.SLA)
		s.Server = server[si.step]
		s.SimulatorLate = s.Server != nil && s.Server.SimLatenessP99Ms > SimLateLimitMs
		pairs[i] = pair{s, sm}
	})
	sort.SliceStable(pairs, func(i, j int) bool {
		if pairs[i].s.Load != pairs[j].s.Load {
			return pairs[i].s.Load < pairs[j].s.Load
		}
		return pairs[i].s.Step < pairs[j].s.Step
	})
	var ev segmentEval
	ev.all = make([]StepStats, len(pairs))
	for i := range pairs {
		ev.all[i] = pairs[i].s
	}
	// Steps where the simulator ran late are shown but are no evidence: the fit, the
	// capacity and its band use the others only.
	evidence := func() {
		ev.steps, ev.smp = nil, nil
		for i := range pairs {
			if !ev.all[i].SimulatorLate {
				ev.steps, ev.smp = append(ev.steps, ev.all[i]), append(ev.smp, pairs[i].sm)
			}
		}
	}
	if evidence(); len(ev.steps) == 0 {
		classifySteps(ev.all, regimeContext{spec: p.SLA, dep: dep})
		return ev, false
	}
	ev.sf = fitSteps(ev.steps, cons, nil)
	ev.rc = regimeContext{sf: ev.sf, spec: p.SLA, dep: dep}
	classifySteps(ev.all, ev.rc)
	evidence() // with their regimes
	if ev.sf.ok {
		ev.fit = buildFit(ev.steps, ev.sf)
	}
	ev.rules = capRules{project: canProject(ev.steps, ev.sf, ev.fit), interpolate: canInterpolate(ev.sf, ev.fit),
		tol: searchTolerance(p)}
	ev.r = capacityOf(ev.steps, p.SLA, ev.sf, ev.rules)
	return ev, true
}

// analyzeSegment computes the steps, fit, regimes and capacity of one segment.
func analyzeSegment(name string, weight float64, inputs []stepInput, st *store, cons []plan.Constraint,
	p *plan.Plan, server map[int]*ServerStats, dep deployment, seed uint64) SegmentAnalysis {
	sa := SegmentAnalysis{Segment: name, Weight: weight, FromMix: len(inputs) > 0 && inputs[0].share > 0}
	ev, ok := evaluateSegment(inputs, st, cons, p, server, dep)
	sa.Steps = ev.all
	if !ok { // nothing is evidence: no fit, no verdict, and say why
		sa.Capacity = Capacity{Method: MethodNoData, Bottleneck: RegimeNone, BottleneckEvidence: noMeasuredEvidence(ev.all)}
		return sa
	}
	steps, r := ev.steps, ev.r
	sa.Fit = ev.fit
	c := Capacity{Method: r.method, LimitingConstraint: r.binding, RangeKind: r.kind}
	bn := bottleneckOf(r, steps, ev.rc)
	c.Bottleneck, c.QueueLimit, c.BottleneckEvidence = bn.regime, bn.limit, bn.evidence
	c.FirstStepSaturated = saturatedBelowFirst(c, steps)
	if c.FirstStepSaturated && c.Bottleneck == RegimeNone {
		c.Bottleneck = RegimeQueue // saturated at the lowest load: requests queue
	}
	atCapacity(&c, r, steps, ev.sf, p.SLA.ThinkTime.Seconds())
	c.RangeLow, c.RangeHigh = r.lo, r.hi
	if r.pass >= 0 {
		c.PassLoad = steps[r.pass].Load
	}
	if r.fail >= 0 && r.fail != r.pass {
		c.FailLoad = steps[r.fail].Load
	}
	c.NoiseLow, c.NoiseHigh = r.value, r.value
	if ev.sf.ok {
		b := bootstrapSegment(steps, ev.smp, cons, p.SLA, ev.sf, ev.rules, seed^hashString(name))
		applyBootstrap(sa.Fit, &c, b, r)
	}
	if c.OfferedRateRps > 0 { // the range in served, not offered, requests/s
		f := c.MaxRateWithinSLA / c.OfferedRateRps
		c.RangeLow, c.RangeHigh = c.RangeLow*f, c.RangeHigh*f
		c.NoiseLow, c.NoiseHigh = c.NoiseLow*f, c.NoiseHigh*f
	}
	openBand(&c, steps)
	sa.Capacity = c
	return sa
}

// applyBootstrap copies the bootstrap's 95% intervals into the fit and the capacity's
// noise band.
func applyBootstrap(f *Fit, c *Capacity, b bootResult, r capResult) {
	f.BootstrapReps = b.reps
	if f.SlotsIdentified {
		f.SlotsCILow, f.SlotsCIHigh, f.slotsUnlocated = slotsBand(b.slots, f.Slots)
	}
	if lo, hi := ci95(b.caps); !math.IsNaN(lo) {
		c.NoiseLow, c.NoiseHigh = math.Min(lo, r.value), math.Max(hi, r.value)
	}
	loads := len(f.Curve)
	for i := 0; i < loads && i < len(b.curves); i++ {
		if lo, hi := ci95(b.curves[i]); !math.IsNaN(lo) {
			f.Curve[i].TTFTLowMs = math.Min(lo, f.Curve[i].TTFTp95Ms)
			f.Curve[i].TTFTHigh = math.Max(hi, f.Curve[i].TTFTp95Ms)
		}
	}
	for i, x := range f.Residuals {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			f.Residuals[i] = 0
		}
	}
}

// openBand sets the range of a capacity no step bounded: at_least is [highest load
// tested, open]; a model projection is its prediction interval within [highest load
// tested, the projection cap], open when the projection reached the cap.
func openBand(c *Capacity, steps []StepStats) {
	if len(steps) == 0 {
		return
	}
	last := steps[len(steps)-1].Load
	switch c.Method {
	case MethodAtLeast:
		c.RangeLow, c.RangeHigh, c.OpenEnded = loadOf(*c), 0, true
	case MethodModel:
		hi := projectMaxFactor * last
		c.RangeLow = math.Max(last, math.Min(c.RangeLow, loadOf(*c)))
		c.RangeHigh = math.Min(hi, math.Max(c.RangeHigh, loadOf(*c)))
		c.OpenEnded = loadOf(*c) >= 0.999*hi || c.RangeHigh >= 0.999*hi
	}
}

// segmentNames lists the segments to analyse: the plan's, then any others seen in the
// records, then the mix.
func segmentNames(in *runInputs) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range in.meta.Plan.Segments {
		if !seen[s.Name] {
			seen[s.Name] = true
			out = append(out, s.Name)
		}
	}
	for _, g := range in.records.order {
		if n := g.key.stepSeg; !seen[n] && n != plan.MixSegment {
			seen[n] = true
			out = append(out, n)
		}
	}
	return append(out, plan.MixSegment)
}

// stepInputsFor returns a segment's steps: its own ladder's steps, or, when it ran only
// inside the mix, the mix steps restricted to requests drawn from it.
func stepInputsFor(in *runInputs, name string) []stepInput {
	var own, mix []*group
	for _, g := range in.records.order {
		switch g.key.stepSeg {
		case name:
			own = append(own, g)
		case plan.MixSegment:
			mix = append(mix, g)
		}
	}
	var out []stepInput
	for _, g := range own {
		out = append(out, inputOf(in, g, name, g.idx, g.icl))
	}
	if len(out) > 0 || name == plan.MixSegment {
		return out
	}
	id, ok := in.records.ids[name]
	if !ok {
		return nil
	}
	for _, g := range mix {
		var idx []int32
		for _, i := range g.idx {
			if in.records.req(i).drawn == id {
				idx = append(idx, i)
			}
		}
		// A mix step that drew none of this segment's measured requests says nothing
		// about it (at low concurrency a small segment may be drawn only in warm-up).
		if share := measuredShare(in.records, g.idx, idx); share > 0 {
			si := inputOf(in, g, name, idx, nil)
			si.share, si.mixE2EMs = share, meanE2EMs(in.records, g.idx)
			out = append(out, si)
		}
	}
	return out
}

// measured reports whether a request counts in a step's statistics (measure or grace).
func measured(q *request) bool { return q.phase == phaseMeasure || q.phase == phaseGrace }

// measuredShare is the fraction of all's measured requests that are in part.
func measuredShare(st *store, all, part []int32) float64 {
	count := func(idx []int32) int {
		n := 0
		for _, i := range idx {
			if measured(st.req(i)) {
				n++
			}
		}
		return n
	}
	if n := count(all); n > 0 {
		return float64(count(part)) / float64(n)
	}
	return 0
}

// meanE2EMs is the mean E2E (ms) of the successful measured requests with output tokens
// among idx (the requests behind a step's E2E summary), with the requests cut off at the
// end of the grace period counted for their time in flight (as residenceMs); 0 when
// none succeeded.
func meanE2EMs(st *store, idx []int32) float64 {
	var sum float64
	n, okN := 0, 0
	for _, i := range idx {
		q := st.req(i)
		switch {
		case measured(q) && q.ok && q.output > 0 && !math.IsNaN(q.e2e):
			sum += q.e2e
			n++
			okN++
		case q.unfinished && q.waitedMs > 0: // unfinished: its time in flight so far (residenceMs)
			sum += float64(q.waitedMs)
			n++
		}
	}
	if okN == 0 {
		return 0
	}
	return sum / float64(n)
}

func inputOf(in *runInputs, g *group, name string, idx []int32, icl []float64) stepInput {
	si := stepInput{step: g.key.step, segment: name, schedule: g.schedule, concurrency: g.concurrency,
		rate: g.rate, users: g.users, idx: idx, icl: icl, grp: g}
	if s, ok := in.stepOf(g.key.step); ok {
		si.schedule, si.concurrency, si.rate, si.users = s.Schedule, s.Concurrency, s.Rate, s.Users
	}
	if sum, ok := in.steps[g.key.step]; ok && sum.CutByStepTimeout {
		si.cutBound = sum.Timeout
		if si.cutBound <= 0 { // a step written without its bound: the plan's derived one
			si.cutBound = in.meta.Plan.StepTimeout(sum.Step)
		}
	}
	if si.schedule == "" {
		si.schedule = plan.ScheduleConcurrency
		if si.concurrency == 0 && si.rate > 0 {
			si.schedule = plan.ScheduleRate
		}
	}
	return si
}

func scheduleOf(in *runInputs) string {
	if len(in.meta.Plan.Ladder.Rate) > 0 {
		return plan.ScheduleRate
	}
	if len(in.meta.Plan.Ladder.Users) > 0 {
		return plan.ScheduleUsers
	}
	for _, g := range in.records.order {
		if g.schedule != "" {
			return g.schedule
		}
	}
	return plan.ScheduleConcurrency
}

func weightOf(p *plan.Plan, name string) float64 {
	var total, w float64
	for _, s := range p.Segments {
		total += s.Weight
		if s.Name == name {
			w = s.Weight
		}
	}
	if name == plan.MixSegment {
		return 1
	}
	if total > 0 {
		return w / total
	}
	return 0
}

// overall picks the headline capacity: the mix's when present, else the tightest segment.
func overall(a *Analysis) (Capacity, string) {
	if a.Mix != nil {
		return a.Mix.Capacity, plan.MixSegment
	}
	best, src := Capacity{Method: MethodNoData, Bottleneck: RegimeNone}, ""
	for i, s := range a.Segments {
		v := loadOf(s.Capacity)
		if i == 0 || v < loadOf(best) {
			best, src = s.Capacity, s.Segment
		}
	}
	return best, src
}

// loadOf is a capacity's load on its ladder's axis: users for a users ladder, the rate
// for an open loop, else the concurrency.
func loadOf(c Capacity) float64 {
	if c.UsersSource == UsersMeasured {
		return c.UsersWithThinkTime
	}
	if c.MaxRateWithinSLA > 0 {
		return c.MaxRateWithinSLA
	}
	return c.MaxConcurrencyWithinSLA
}

// slotsObserved reports whether a step with at least 10 latency samples held clearly
// more requests (1.1×) than slots: the server saturated, so the slots are identified.
// Steps out of steady state count too (an open loop past saturation never settles).
func slotsObserved(steps []StepStats, slots float64) bool {
	for i := range steps {
		s := &steps[i]
		if s.E2EMs.N >= 10 && inFlightOf(s) > 1.1*slots {
			return true
		}
	}
	return false
}

// inFlightOf is a step's requests in flight: its concurrency, for a users step its
// measured throughput × mean E2E (usersInFlight), or for an open loop the rate × mean
// E2E (Little's law).
func inFlightOf(s *StepStats) float64 {
	if s.Schedule == plan.ScheduleUsers {
		return usersInFlight(s)
	}
	if s.Schedule != plan.ScheduleConcurrency {
		return servedRateOf(s) * s.E2EMs.Mean / 1000
	}
	return s.Load
}

// maxInFlight is the most requests in flight at any step with measured requests.
func maxInFlight(steps []StepStats) float64 {
	top := 0.0
	for i := range steps {
		if steps[i].E2EMs.N > 0 {
			top = math.Max(top, inFlightOf(&steps[i]))
		}
	}
	return top
}

func seedOf(p *plan.Plan) uint64 { return uint64(p.Seed) ^ 0x5eed }

func hashString(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// WriteJSON writes a as dir/analysis.json (indented), replacing it atomically, after
// removing the temporary files a killed earlier write left (rundir.RemoveTemps).
func WriteJSON(dir string, a *Analysis) error {
	b, err := json.MarshalIndent(a, "", "  ")
	if err != nil {
		return fmt.Errorf("encode analysis: %w", err)
	}
	path := filepath.Join(dir, FileAnalysis)
	if _, err := rundir.RemoveTemps(path); err != nil { // a killed earlier analyze's
		return fmt.Errorf("write analysis: %w", err)
	}
	if err := rundir.WriteFileAtomic(path, append(b, '\n')); err != nil {
		return fmt.Errorf("write analysis: %w", err)
	}
	return nil
}

// ReadJSON reads dir/analysis.json.
func ReadJSON(dir string) (*Analysis, error) {
	b, err := os.ReadFile(filepath.Join(dir, FileAnalysis))
	if err != nil {
		return nil, fmt.Errorf("read analysis: %w", err)
	}
	var a Analysis
	if err := json.Unmarshal(b, &a); err != nil {
		return nil, fmt.Errorf("parse %s: %w", FileAnalysis, err)
	}
	return &a, nil
}

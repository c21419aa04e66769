package analysis

import (
	"fmt"

	"github.com/llmcap/llmcap/capsearch"
	"github.com/llmcap/llmcap/sla"
)

// Probe judges and fits the steps of segment (or plan.MixSegment) recorded so far in
// the run directory dir, as Analyze does but without the bootstrap, and predicts the
// capacity between lo and hi (concurrency or users: whole loads). It is the capacity
// search's view of the run (the sweep calls it after every step, through sweep.Options.Probe), so the search and the
// final answer use one SLA judge and one model; it is a capsearch.Prober. Errors are
// those of reading dir.
func Probe(dir, segment string, lo, hi float64) (capsearch.Probe, error) {
	out := capsearch.Probe{Verdicts: map[int]capsearch.Trial{}}
	in, err := readRun(dir)
	if err != nil {
		return out, fmt.Errorf("probe %s: %w", dir, err)
	}
	p := &in.meta.Plan
	inputs := stepInputsFor(in, segment)
	if len(inputs) == 0 {
		return out, nil
	}
	cons := constraintsOf(p.SLA)
	ev, ok := evaluateSegment(inputs, in.records, cons, p, serverStats(in.server, in.steps), deploymentOf(in.meta, in.server))
	for i := range ev.all {
		s := &ev.all[i]
		v := sla.Judge(p.SLA, stepSample(s))
		out.Verdicts[s.Step] = capsearch.Trial{Load: s.Load, Pass: v.Pass, Unreliable: s.SimulatorLate, Ratio: v.WorstRatio()}
	}
	if !ok || !ev.sf.ok || ev.fit == nil || ev.fit.Underdetermined {
		return out, nil // no model identified: the search grows or bisects blind
	}
	integer := integerLoads(ev.steps)
	if s := p.Ladder.Search; s != nil {
		integer = s.Integer()
	}
	e := ev.sf.eval
	if !ev.fit.SlotsIdentified {
		// No step saturated the slots: the fitted slot count is arbitrary, so guide
		// only by what the model knows without a queue (prefill and decode growth).
		e.m.c = maxSlots
	}
	if v, _, _, ok := e.predictedCapacity(lo, hi, integer); ok && v < hi {
		out.Guide = capsearch.Guide{OK: true, Capacity: v}
	}
	return out, nil
}

package compare

import (
	"fmt"
	"math"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
	"github.com/llmcap/llmcap/sla"
)

// req is what the delta table needs of one measured request (measure or grace phase):
// its TTFT and ITL in ms (NaN when undefined: failed, unfinished, no output), its
// output tokens (0 unless it succeeded), whether it met every SLA latency bound
// (sla.RequestGoodness; never for an unfinished or failed request) and its time in flight.
type req struct {
	ttft, itl float64
	out       int32
	good      bool
	// e2e is its E2E in ms, or its wait so far when unfinished (its time in flight,
	// as the analysis's Little's law counts it); NaN when unknown.
	e2e float64
}

// stepRef names one step's requests in records.jsonl: the step index, the segment
// whose step it is (the mix's for a segment analysed from the mix) and, for such a
// segment, the segment its requests must be drawn from.
type stepRef struct {
	step    int
	stepSeg string
	drawn   string
}

// stepRefOf is the records behind segment sa's step s.
func stepRefOf(sa *segmentView, step int) stepRef {
	if sa.fromMix {
		return stepRef{step: step, stepSeg: plan.MixSegment, drawn: sa.name}
	}
	return stepRef{step: step, stepSeg: sa.name}
}

// readSteps reads dir's records.jsonl once and returns the measured requests of each
// wanted step, judged under spec. Repeated lines are read once (rundir.DuplicateFilter),
// as the analysis reads them. Errors: records.jsonl missing or unreadable (naming dir).
func readSteps(dir string, want []stepRef, spec plan.SLA) (map[stepRef][]req, error) {
	bounds := sla.Bounds(spec)
	byStep := map[int][]stepRef{}
	out := map[stepRef][]req{}
	for _, w := range want {
		byStep[w.step] = append(byStep[w.step], w)
		out[w] = nil
	}
	var dups rundir.DuplicateFilter
	_, err := rundir.EachRecord(dir, func(r *rundir.Record) error {
		refs, ok := byStep[r.Step]
		if !ok || (r.Phase != rundir.PhaseMeasure && r.Phase != rundir.PhaseGrace) || dups.Repeat(r) {
			return nil
		}
		stepSeg := r.StepSegment
		if stepSeg == "" {
			stepSeg = r.Segment
		}
		for _, ref := range refs {
			if ref.stepSeg == stepSeg && (ref.drawn == "" || ref.drawn == r.Segment) {
				out[ref] = append(out[ref], reqOf(r, bounds))
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("compare %s: read %s: %w", dir, rundir.FileRecords, err)
	}
	return out, nil
}

// reqOf is record r as the delta table counts it (as the analysis's step statistics
// do: latencies of successful requests with output tokens).
func reqOf(r *rundir.Record, bounds []sla.Bound) req {
	q := req{ttft: math.NaN(), itl: math.NaN(), e2e: math.NaN()}
	jr := sla.RecordRequest(r)
	if jr.Unfinished && jr.WaitedMs > 0 {
		q.e2e = jr.WaitedMs
	}
	if jr.Unfinished || !jr.OK {
		return q
	}
	if r.E2EMs != nil && r.OutputTokens > 0 {
		q.e2e = *r.E2EMs
	}
	q.out = int32(r.OutputTokens)
	q.good = sla.RequestGoodness(bounds, jr) == sla.Good
	if r.OutputTokens > 0 {
		if r.TTFTMs != nil {
			q.ttft = *r.TTFTMs
		}
		if r.ITLMs != nil {
			q.itl = *r.ITLMs
		}
	}
	return q
}

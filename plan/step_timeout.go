package plan

import "time"

// The derived step wall-time bound (Plan.StepTimeout).
const (
	// StepTimeoutMargin is added to a step's time-bounded parts (warm-up duration,
	// window duration, grace).
	StepTimeoutMargin = 2 * time.Minute
	// StepTimeoutFactor multiplies the step's estimated wall time (EstimateStep), for
	// windows bounded by a request count.
	StepTimeoutFactor = 4
	// StepTimeoutFloor is the least derived bound.
	StepTimeoutFloor = 5 * time.Minute
)

// StepTimeout is step s's wall-time bound: ladder.step_timeout when set (> 0), else the
// largest of the step's time-bounded parts (warm-up duration + window duration + grace)
// plus StepTimeoutMargin, StepTimeoutFactor × its estimated wall time (s.Estimated, or
// EstimateStep when 0: what a request-bounded window or warm-up should take), and
// StepTimeoutFloor. A healthy step ends long before it; a step whose requests hang
// (e.g. ladder.requests with no duration, waiting for a reply that never comes) is cut
// there, its requests still in flight recorded as unfinished.
func (p *Plan) StepTimeout(s Step) time.Duration {
	if p.Ladder.StepTimeout > 0 {
		return p.Ladder.StepTimeout
	}
	est := s.Estimated
	if est <= 0 {
		est = p.EstimateStep(s)
	}
	fixed := addDur(s.Warmup.Duration, s.Duration, s.Grace, StepTimeoutMargin)
	return max(fixed, satDur(StepTimeoutFactor*float64(est)), StepTimeoutFloor)
}

// StepOverhead is the allowance StepBound adds to each step for the sweep's own work
// around it: starting the workers, writing the step's records and summary and, in a
// search, analysing the steps so far to choose the next load.
const StepOverhead = time.Second

// StepBound is the most wall time step s takes by the plan's own schedule: a warm-up
// bounded by its duration (no warm-up requests), a window bounded by ladder.duration,
// the whole ladder.grace (not only the E2E that EstimateStep counts) and StepOverhead,
// or a trace step's time-scaled span (cut at ladder.duration) and grace; a step that
// waits for a request count instead is bounded by its wall-time bound (Timeout, or
// StepTimeout when 0), where the sweep cuts every step. The cool-down follows. Sums
// saturate at math.MaxInt64 ns.
func (p *Plan) StepBound(s Step) time.Duration {
	limit := s.Timeout
	if limit <= 0 {
		limit = p.StepTimeout(s)
	}
	switch {
	case s.Schedule == ScheduleTrace:
		if span, ok := p.traceSpan(s.Segment); ok {
			if s.Duration > 0 {
				span = min(span, s.Duration)
			}
			limit = min(limit, addDur(span, s.Grace, StepOverhead))
		}
	case s.Duration > 0 && s.Warmup.Requests == 0:
		limit = min(limit, addDur(s.Warmup.Duration, s.Duration, s.Grace, StepOverhead))
	}
	return addDur(limit, s.Cooldown)
}

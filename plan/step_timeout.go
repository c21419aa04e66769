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

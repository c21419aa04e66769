package plan

import "time"

// MinStepTimeout is the least ladder.step_timeout a plan may set: the step's warm-up
// duration + window duration (ladder.warmup.duration + ladder.duration; the same for
// every step). A bound below it would cut every step before its window closed, so no
// step could ever be measured whole; 0 when neither is time-bounded.
func (p *Plan) MinStepTimeout() time.Duration {
	return p.Ladder.Warmup.Duration + p.Ladder.Duration
}

// checkStepTimeout requires a set ladder.step_timeout (> 0) to be at least
// MinStepTimeout.
func (p *Plan) checkStepTimeout(ps *problems) {
	if st, least := p.Ladder.StepTimeout, p.MinStepTimeout(); st > 0 && st < least {
		ps.add("ladder.step_timeout", st, "must be at least the step's warm-up duration + window duration (%s), or 0 to derive it", least)
	}
}

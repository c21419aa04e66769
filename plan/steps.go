package plan

import "time"

// Steps expands the plan into its ordered steps: for each segment (when the ladder runs
// per segment) and then the mix (when Ladder.Mix), one step per ladder level. Trace
// segments get a single trace step. Index numbers them 0..n-1 in run order.
func (p *Plan) Steps() []Step {
	var names []string
	if p.Ladder.PerSegment == nil || *p.Ladder.PerSegment {
		for _, s := range p.Segments {
			names = append(names, s.Name)
		}
	}
	if p.Ladder.Mix {
		names = append(names, MixSegment)
	}
	var steps []Step
	for _, name := range names {
		if seg := p.segment(name); seg != nil && seg.Trace != nil {
			steps = append(steps, p.newStep(len(steps), name, ScheduleTrace, 0, 0))
			continue
		}
		for _, c := range p.Ladder.Concurrency {
			steps = append(steps, p.newStep(len(steps), name, ScheduleConcurrency, c, 0))
		}
		for _, r := range p.Ladder.Rate {
			steps = append(steps, p.newStep(len(steps), name, ScheduleRate, 0, r))
		}
	}
	return steps
}

func (p *Plan) segment(name string) *Segment {
	for i := range p.Segments {
		if p.Segments[i].Name == name {
			return &p.Segments[i]
		}
	}
	return nil
}

func (p *Plan) newStep(i int, seg, sched string, c int, r float64) Step {
	l := p.Ladder
	s := Step{Index: i, Segment: seg, Schedule: sched, Concurrency: c, Rate: r,
		Warmup: l.Warmup, Duration: l.Duration, Requests: l.Requests, Grace: l.Grace, Cooldown: l.Cooldown}
	s.Estimated = l.Warmup.Duration + l.Duration + l.Grace + l.Cooldown
	if s.Estimated == 0 {
		s.Estimated = 10 * time.Second
	}
	return s
}

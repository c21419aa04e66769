package plan

import (
	"math"
	"time"
)

// Steps expands the plan into its ordered steps: for each segment (when the ladder runs
// per segment) and then the mix (when Ladder.Mix), one step per ladder level. Trace
// segments get a single trace step. Index numbers them 0..n-1 in run order. Each step
// carries its Estimated wall time (see EstimateStep). A search plan (Ladder.Search)
// has one opening step per segment and the mix instead (searchOpeners): the sweep
// chooses the others.
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
	if p.Ladder.Search != nil {
		return p.searchOpeners(names)
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
		for _, u := range p.Ladder.Users {
			steps = append(steps, p.newUsersStep(len(steps), name, u))
		}
	}
	return steps
}

// TotalEstimate is the sum of the steps' estimated wall times (saturating at
// math.MaxInt64 ns).
func TotalEstimate(steps []Step) time.Duration {
	var d time.Duration
	for _, s := range steps {
		d = addDur(d, s.Estimated)
	}
	return d
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
	s.Estimated = p.EstimateStep(s)
	s.Timeout = p.StepTimeout(s)
	return s
}

// newUsersStep is the users step of segment seg with u users.
func (p *Plan) newUsersStep(i int, seg string, u int) Step {
	s := p.newStep(i, seg, ScheduleUsers, 0, 0)
	s.Users = u
	s.Estimated = p.EstimateStep(s)
	s.Timeout = p.StepTimeout(s)
	return s
}

// Rough latency model behind the estimates: a request takes
// estTTFT + prompt tokens × estPrefillPerToken + output tokens × estITL.
// For the embedded simulator the times are divided by its speed_up.
const (
	estTTFT            = 50 * time.Millisecond
	estPrefillPerToken = 50 * time.Microsecond
	estITLSimulator    = 12 * time.Millisecond
	estITLServer       = 20 * time.Millisecond
	estTraceStep       = time.Minute // a trace step without ladder.duration
	estFallbackTokens  = 256         // mean tokens of an empirical distribution
)

// EstimateStep estimates s's wall time: warm-up + measurement window + grace + cool-down.
// A trace step replays its trace (warm-up requests included) over the trace's span
// after time_scale and the row window, cut at Duration when that is shorter, when its
// trace can be read; else it takes Duration (one minute when 0).
// The window is Duration, or the time Requests take (requests / rate for open loops;
// requests × E2E / in-flight slots for closed loops, slots capped by the simulator's
// max_num_seqs; requests / throughput for users steps, where each of the N users sends
// one request every E2E + think time, X = N / (E2E + Z), at most slots / E2E),
// whichever ends first. Warm-up takes the longer of its duration and its
// requests' time; grace is at most one request's E2E (scaled by concurrency / slots when
// a closed loop queues on the simulator). The latency model is deliberately
// rough (tens of ms per request plus ~12–20 ms per output token): it sizes a plan, it is
// not a prediction. Every sum and product saturates at math.MaxInt64 ns instead of
// wrapping.
func (p *Plan) EstimateStep(s Step) time.Duration {
	e2e := p.estimateE2E(s.Segment)
	reqTime := func(n int) time.Duration {
		if n <= 0 {
			return 0
		}
		switch s.Schedule {
		case ScheduleRate:
			if s.Rate > 0 {
				return satDur(float64(n) / s.Rate * float64(time.Second))
			}
		case ScheduleUsers:
			if x := p.usersThroughput(s, e2e); x > 0 {
				return satDur(float64(n) / x * float64(time.Second))
			}
		case ScheduleConcurrency:
			slots := s.Concurrency
			if p.Target.IsSimulator() && p.Target.Simulator.MaxNumSeqs > 0 {
				slots = min(slots, p.Target.Simulator.MaxNumSeqs)
			}
			if slots > 0 {
				waves := math.Ceil(float64(n) / float64(slots))
				return satDur(waves * float64(e2e))
			}
		}
		return 0
	}
	if s.Schedule == ScheduleTrace {
		if span, ok := p.traceSpan(s.Segment); ok {
			window := span
			if s.Duration > 0 {
				window = min(window, s.Duration)
			}
			return addDur(window, min(s.Grace, e2e), s.Cooldown)
		}
	}
	window := s.Duration
	switch {
	case s.Schedule == ScheduleTrace && window == 0:
		window = estTraceStep
	case s.Requests > 0 && (window == 0 || reqTime(s.Requests) < window):
		window = reqTime(s.Requests)
	}
	warm := max(s.Warmup.Duration, reqTime(s.Warmup.Requests))
	// Requests in flight when the window closes need about one E2E, longer when a closed
	// loop queues past the simulator's slots.
	inFlight := e2e
	if slots := p.Target.Simulator.MaxNumSeqs; s.Schedule == ScheduleConcurrency && p.Target.IsSimulator() &&
		slots > 0 && s.Concurrency > slots {
		inFlight = satDur(float64(e2e) * float64(s.Concurrency) / float64(slots))
	}
	grace := min(s.Grace, inFlight)
	return addDur(warm, window, grace, s.Cooldown)
}

// usersThroughput is a users step's rough throughput in req/s: each user sends a
// request every E2E + think time, X = users / (E2E + Z), and the simulator serves at
// most max_num_seqs / E2E.
func (p *Plan) usersThroughput(s Step, e2e time.Duration) float64 {
	cycle := (e2e + p.SLA.ThinkTime).Seconds()
	if s.Users <= 0 || cycle <= 0 {
		return 0
	}
	x := float64(s.Users) / cycle
	if slots := p.Target.Simulator.MaxNumSeqs; p.Target.IsSimulator() && slots > 0 && e2e > 0 {
		x = math.Min(x, float64(slots)/e2e.Seconds())
	}
	return x
}

// traceSpan is the span of segment name's trace; ok is false for a segment without a
// trace, or when reading the trace fails (plan and run report that error themselves).
func (p *Plan) traceSpan(name string) (time.Duration, bool) {
	seg := p.segment(name)
	if seg == nil || seg.Trace == nil {
		return 0, false
	}
	_, span, err := seg.Trace.Span()
	return span, err == nil
}

// estimateE2E is the rough end-to-end latency of one request of segment name ("mix"
// weights every segment by its weight).
func (p *Plan) estimateE2E(name string) time.Duration {
	itl := estITLServer
	speed := 1.0
	if p.Target.IsSimulator() {
		itl = estITLSimulator
		if p.Target.Simulator.SpeedUp > 0 {
			speed = p.Target.Simulator.SpeedUp
		}
	}
	one := func(s Segment) float64 {
		in := s.PromptTokens.ExpectedMean(estFallbackTokens)
		out := s.OutputTokens.ExpectedMean(estFallbackTokens)
		if t := s.Trace; t != nil {
			in, out = estFallbackTokens*t.PromptScale, estFallbackTokens*t.OutputScale
		}
		return float64(estTTFT) + in*float64(estPrefillPerToken) + out*float64(itl)
	}
	var d float64
	if seg := p.segment(name); seg != nil {
		d = one(*seg)
	} else {
		var wsum float64
		for _, s := range p.Segments {
			if s.Weight > 0 {
				d += s.Weight * one(s)
				wsum += s.Weight
			}
		}
		if wsum > 0 {
			d /= wsum
		}
	}
	return satDur(d / speed)
}

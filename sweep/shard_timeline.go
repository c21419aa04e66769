package sweep

import (
	"context"
	"time"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
)

// timeline is a shard's view of the common timeline: step k starts at origin +
// offsets[k] (this shard's clock), where origin is ShardInfo.StartAt read in this
// clock (StartAt + Clock.OffsetNs) and offsets[k] sums the plan's StepBound of every
// step before k — the most wall time each takes by the plan's schedule, cool-down
// included — so a step never starts before every shard's previous one ended.
type timeline struct {
	origin  time.Time
	offsets map[int]time.Duration
}

// newTimeline is the timeline of info over the run's steps (every shard's steps are
// the plan's, so every shard computes the same offsets).
func newTimeline(p *plan.Plan, info *rundir.ShardInfo, steps []plan.Step) *timeline {
	t := &timeline{origin: info.StartAt.Add(time.Duration(info.Clock.OffsetNs)), offsets: map[int]time.Duration{}}
	var at time.Duration
	for _, st := range steps {
		t.offsets[st.Index] = at
		at = addSat(at, p.StepBound(st))
	}
	return t
}

// addSat is a + b, saturating at the largest duration.
func addSat(a, b time.Duration) time.Duration {
	if s := a + b; s >= a {
		return s
	}
	return time.Duration(1<<63 - 1)
}

// wait blocks until step st's planned start and returns it; late reports a start more
// than rundir.ShardLateAfter after it (the shard is behind the timeline, and starts
// at once). A cancelled ctx returns ErrInterrupted.
func (t *timeline) wait(ctx context.Context, st plan.Step) (planned time.Time, late bool, err error) {
	planned = t.origin.Add(t.offsets[st.Index])
	d := time.Until(planned)
	if d < -rundir.ShardLateAfter {
		return planned, true, nil
	}
	if d <= 0 {
		return planned, false, nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return planned, false, nil
	case <-ctx.Done():
		return planned, false, ErrInterrupted
	}
}

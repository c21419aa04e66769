package sweep

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
)

// setupShard (prepare) sets rn.shard: Options.Shard, or for a resume run.json's shard
// (a --shard given then must name the same one). It refuses what checkShard refuses.
func (rn *runner) setupShard(p *plan.Plan) error {
	sh := rn.opts.Shard
	if rn.opts.Resume {
		info := rn.meta.Shard
		switch {
		case info == nil && sh != nil:
			return fmt.Errorf("sweep: resume %s as shard %d/%d: its run.json is not a shard's (it was not swept with --shard)", rn.dir, sh.Index, sh.Count)
		case info == nil:
			return nil
		case sh != nil && (sh.Index != info.Index || sh.Count != info.Count):
			return fmt.Errorf("sweep: resume %s as shard %d/%d: it holds %s", rn.dir, sh.Index, sh.Count, info.Label())
		}
		rn.shard = &Shard{Index: info.Index, Count: info.Count}
		return checkShard(rn.shard, p, true)
	}
	if sh == nil {
		return nil
	}
	if sh.Rendezvous != "" && !sh.StartAt.IsZero() {
		return errors.New("sweep: shard: give --start-at or --rendezvous, not both (the rendezvous fixes the start)")
	}
	if err := checkShard(sh, p, false); err != nil {
		return err
	}
	rn.shard = sh
	return nil
}

// syncShard (drive, after the preflight) fixes a fresh shard's common start and clock
// (shard 0 of a rendezvous serves it and is the reference; the others join it; with
// --start-at the clock is read from the target's Date header) into run.json's shard,
// and builds the timeline. A resumed shard keeps run.json's start and clock.
func (rn *runner) syncShard(ctx context.Context) error {
	sh := rn.shard
	if sh == nil {
		return nil
	}
	if rn.meta.Shard == nil {
		info := &rundir.ShardInfo{Index: sh.Index, Count: sh.Count, PlanHash: rn.plan.Hash()}
		var err error
		switch {
		case sh.Rendezvous != "" && sh.Index == 0:
			err = rn.serveRendezvous(ctx, info)
		case sh.Rendezvous != "":
			wctx, cancel := context.WithTimeout(ctx, rn.rendezvousTimeout())
			info.StartAt, info.Clock, err = joinRendezvous(wctx, sh.Rendezvous, sh, info.PlanHash, rn.log)
			cancel()
		default:
			info.StartAt = sh.StartAt
			hc := &http.Client{Timeout: 5 * time.Second}
			info.Clock = dateOffset(ctx, hc, rn.baseURL)
			hc.CloseIdleConnections()
		}
		if err != nil {
			if ctx.Err() != nil {
				return ErrInterrupted
			}
			return fmt.Errorf("sweep: %s: %w", info.Label(), err)
		}
		info.StartAt = info.StartAt.UTC()
		rn.meta.Shard = info
	}
	info := rn.meta.Shard
	rn.timeline = newTimeline(rn.plan, info, rn.meta.Steps)
	rn.log.Info("shard on the common timeline", "shard", info.Label(), "start_at", info.StartAt.Format(time.RFC3339Nano),
		"starts_in", time.Until(rn.timeline.origin).Round(time.Millisecond), "clock", info.Clock.Reference,
		"clock_offset", time.Duration(info.Clock.OffsetNs), "clock_uncertainty", time.Duration(info.Clock.UncertaintyNs))
	if rn.plan.Ladder.EarlyStop.Enabled {
		rn.log.Info("early stop is off in a sharded sweep: each shard sees only its share, so every shard runs the whole ladder")
	}
	return nil
}

// serveRendezvous starts shard 0's rendezvous endpoint (kept up until the sweep ends,
// for shards that come late) and waits for every shard.
func (rn *runner) serveRendezvous(ctx context.Context, info *rundir.ShardInfo) error {
	r, err := startRendezvous(rn.shard.Rendezvous, rn.shard.Count, info.PlanHash, rn.log)
	if err != nil {
		return err
	}
	rn.rendezvous = r
	wctx, cancel := context.WithTimeout(ctx, rn.rendezvousTimeout())
	defer cancel()
	if info.StartAt, err = r.wait(wctx); err != nil {
		return err
	}
	info.Clock = rundir.ClockSync{Reference: rundir.ClockSelf, MeasuredAt: time.Now().UTC()}
	return nil
}

func (rn *runner) rendezvousTimeout() time.Duration {
	if d := rn.shard.RendezvousTimeout; d > 0 {
		return d
	}
	return DefaultRendezvousTimeout
}

// shardStep waits for step st's slot on the timeline and returns the shard's share of
// st and its part (Late when the shard is behind the timeline, Resumed when this is a
// resumed invocation). Unsharded, st as it is.
func (rn *runner) shardStep(ctx context.Context, st plan.Step) (plan.Step, *rundir.ShardStep, time.Time, error) {
	if rn.shard == nil {
		return st, nil, time.Time{}, nil
	}
	planned, late, err := rn.timeline.wait(ctx, st)
	if err != nil {
		return st, nil, time.Time{}, err
	}
	share, part := shareOf(st, rn.shard)
	part.PlannedStartNs, part.Late, part.Resumed = planned.UnixNano(), late, late && rn.opts.Resume
	if late {
		rn.log.Warn("shard behind the common timeline: the step starts now, off it", "step", st.Index+1,
			"behind", time.Since(planned).Round(time.Millisecond))
		planned = time.Time{}
	}
	return share, &part, planned, nil
}

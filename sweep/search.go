package sweep

import (
	"context"
	"fmt"

	"github.com/llmcap/llmcap/capsearch"
	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
)

// runSearches drives a ladder.search plan: for each opener (plan.Steps: one per
// segment, then the mix) it runs the capacity search, choosing each next load with
// capsearch.Next from the analysis's verdicts and model (Options.Probe) after every
// step, until the search stops. Each chosen step is appended to RunMeta.Steps and its
// search's log (RunMeta.Searches) before it runs, so a resumed run finishes the step
// it was in and then continues the same search.
func (rn *runner) runSearches(ctx context.Context, done map[int]rundir.StepSummary) error {
	for _, op := range rn.plan.Steps() {
		if op.Schedule == plan.ScheduleTrace {
			if err := rn.runTraceOpener(ctx, op, done); err != nil {
				return err
			}
			continue
		}
		if err := rn.search(ctx, op.Segment, done); err != nil {
			return err
		}
	}
	return nil
}

// runTraceOpener runs a trace segment's single step of a search plan once.
func (rn *runner) runTraceOpener(ctx context.Context, op plan.Step, done map[int]rundir.StepSummary) error {
	for _, st := range rn.meta.Steps {
		if st.Segment == op.Segment && st.Schedule == plan.ScheduleTrace {
			if _, ok := done[st.Index]; ok {
				rn.progress.endStep()
				return nil
			}
			return rn.runSearchStep(ctx, st)
		}
	}
	op.Index = len(rn.meta.Steps)
	rn.meta.Steps = append(rn.meta.Steps, op)
	if err := rn.out.WriteMeta(rn.meta); err != nil {
		return fmt.Errorf("sweep: %w", err)
	}
	return rn.runSearchStep(ctx, op)
}

// searchLog returns the search log of segment, adding an empty one when absent.
func (rn *runner) searchLog(segment string) *rundir.SearchLog {
	for i := range rn.meta.Searches {
		if rn.meta.Searches[i].Segment == segment {
			return &rn.meta.Searches[i]
		}
	}
	rn.meta.Searches = append(rn.meta.Searches, rundir.SearchLog{Segment: segment, Over: rn.plan.Ladder.Search.Over})
	return &rn.meta.Searches[len(rn.meta.Searches)-1]
}

// search runs one segment's capacity search to its end.
func (rn *runner) search(ctx context.Context, segment string, done map[int]rundir.StepSummary) error {
	cfg := *rn.plan.Ladder.Search
	for {
		lg := rn.searchLog(segment)
		if lg.Stop != "" {
			for range lg.Steps {
				rn.progress.endStep()
			}
			return nil
		}
		if n := len(lg.Steps); n > 0 {
			if _, ok := done[lg.Steps[n-1].Index]; !ok { // chosen but not finished (resume)
				if err := rn.runSearchStep(ctx, rn.meta.Steps[lg.Steps[n-1].Index]); err != nil {
					return err
				}
				done[lg.Steps[n-1].Index] = rundir.StepSummary{}
				continue
			}
		}
		if ctx.Err() != nil {
			return ErrInterrupted
		}
		probe, err := rn.opts.Probe(rn.dir, segment, cfg.MinLoad(), cfg.Max)
		if err != nil && len(lg.Steps) > 0 {
			return fmt.Errorf("sweep: search %s: %w", segment, err)
		}
		trials := make([]capsearch.Trial, 0, len(lg.Steps))
		for i := range lg.Steps {
			ss := &lg.Steps[i]
			v := probe.Verdicts[ss.Index]
			ss.Judged, ss.Pass, ss.Unreliable = true, v.Pass, v.Unreliable
			trials = append(trials, capsearch.Trial{Load: ss.Load, Pass: v.Pass, Unreliable: v.Unreliable,
				Guided: ss.Guided, Predicted: ss.PredictedLoad, Ratio: v.Ratio})
		}
		d := capsearch.Next(cfg, trials, probe.Guide)
		if d.Stop != capsearch.StopNone {
			lg.Stop, lg.PassLoad, lg.FailLoad = string(d.Stop), d.Pass, d.Fail
			rn.log.Info("search done: "+d.Stop.Describe(), "segment", segment, "steps", len(lg.Steps),
				"pass", d.Pass, "fail", d.Fail)
			if err := rn.out.WriteMeta(rn.meta); err != nil {
				return fmt.Errorf("sweep: %w", err)
			}
			return nil
		}
		st := rn.plan.StepAt(len(rn.meta.Steps), segment, d.Load)
		ss := rundir.SearchStep{Index: st.Index, Load: st.Load(), Guided: d.Guided}
		if d.Guided {
			ss.PredictedLoad = probe.Guide.Capacity
		}
		rn.meta.Steps = append(rn.meta.Steps, st)
		lg.Steps = append(lg.Steps, ss)
		lg.PassLoad, lg.FailLoad = d.Pass, d.Fail
		if err := rn.out.WriteMeta(rn.meta); err != nil {
			return fmt.Errorf("sweep: %w", err)
		}
		rn.log.Debug("search: next load", "segment", segment, "load", st.Load(), "guided", d.Guided,
			"predicted", probe.Guide.Capacity, "pass", d.Pass, "fail", d.Fail)
		if err := rn.runSearchStep(ctx, st); err != nil {
			return err
		}
		done[st.Index] = rundir.StepSummary{}
	}
}

// runSearchStep runs one chosen step and its cool-down.
func (rn *runner) runSearchStep(ctx context.Context, st plan.Step) error {
	if ctx.Err() != nil {
		return ErrInterrupted
	}
	if _, err := rn.runStep(ctx, st, map[string]int{}); err != nil {
		return err
	}
	return rn.cooldown(ctx, st.Cooldown)
}

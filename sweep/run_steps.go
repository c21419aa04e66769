package sweep

import (
	"context"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
	"github.com/llmcap/llmcap/sla"
)

// runSteps runs every step not yet finished, in order, applying the early-stop rule.
func (rn *runner) runSteps(ctx context.Context, done map[int]rundir.StepSummary) error {
	stopped := map[string]bool{} // segments whose ladder was early-stopped
	streak := map[string]int{}   // consecutive SLA-violating steps per segment
	prev := make([]rundir.StepSummary, 0, len(done))
	for _, s := range done {
		prev = append(prev, s)
	}
	sort.Slice(prev, func(i, j int) bool { return prev[i].Index < prev[j].Index })
	for _, s := range prev {
		rn.progress.endStep()
		streak[s.Segment] = nextStreak(streak[s.Segment], s.SLAViolation)
		if s.EarlyStopped {
			stopped[s.Segment] = true
		}
	}
	for _, st := range rn.meta.Steps {
		if _, ok := done[st.Index]; ok {
			continue
		}
		if stopped[st.Segment] {
			rn.progress.endStep()
			continue
		}
		if ctx.Err() != nil {
			return ErrInterrupted
		}
		sum, err := rn.runStep(ctx, st, streak)
		if err != nil {
			return err
		}
		if sum.EarlyStopped {
			stopped[st.Segment] = true
			rn.log.Info("early stop: ladder ended", "segment", st.Segment, "step", st.Index+1, "reason", sum.SLAViolation)
		}
		if err := rn.cooldown(ctx, st.Cooldown); err != nil {
			return err
		}
	}
	return nil
}

func nextStreak(n int, violation string) int {
	if violation == "" {
		return 0
	}
	return n + 1
}

// runStep runs one step and writes its records (always, even when interrupted) and, when
// it finished, its summary: a step is finished once its steps.jsonl line is on disk.
func (rn *runner) runStep(ctx context.Context, st plan.Step, streak map[string]int) (rundir.StepSummary, error) {
	wl, trace, err := rn.workloadFor(st)
	if err != nil {
		return rundir.StepSummary{}, err
	}
	if trace != nil {
		rows := trace.trace.rows
		for _, n := range traceStepNotes(st, len(rows), rows[len(rows)-1].Offset) {
			rn.log.Warn("trace step: "+n.Message, "step", st.Index+1, "segment", st.Segment)
			n.Message = fmt.Sprintf("step %d (%s): %s", st.Index+1, st.Segment, n.Message)
			rn.meta.Warnings = appendNew(rn.meta.Warnings, n)
		}
	}
	share, part, planned, err := rn.shardStep(ctx, st)
	if err != nil {
		return rundir.StepSummary{}, err
	}
	rn.progress.beginStep(rn.labelOf(st))
	rn.log.Debug("step start", "step", st.Index+1, "segment", st.Segment, "schedule", st.Schedule, "load", st.Load())
	s := newStepRun(rn, st, wl, trace)
	s.st, s.shard, s.planned = share, rn.shard, planned
	sum, results, runErr := s.run(ctx)
	sum.Shard = part
	if err := rn.out.AppendRecords(recordsOf(results)); err != nil {
		return sum, fmt.Errorf("sweep step %d: %w", st.Index+1, err)
	}
	if runErr != nil {
		return sum, runErr
	}
	rn.noteStoppedEarly(st, sum)
	es := rn.plan.Ladder.EarlyStop
	if es.Enabled && rn.plan.Ladder.Search == nil && rn.shard == nil { // a search stops by itself; a shard sees only its share
		factor := es.Factor
		if factor <= 0 {
			factor = 1
		}
		_, sum.SLAViolation = slaViolation(rn.plan.SLA, results, factor)
		streak[st.Segment] = nextStreak(streak[st.Segment], sum.SLAViolation)
		sum.EarlyStopped = streak[st.Segment] >= max(es.Consecutive, 1)
	}
	if err := rn.out.AppendStep(&sum); err != nil {
		return sum, fmt.Errorf("sweep step %d: %w", st.Index+1, err)
	}
	if err := rn.out.SyncMetrics(); err != nil {
		rn.log.Warn("sync server metrics", "err", err)
	}
	rn.progress.endStep()
	rn.progress.clear()
	rn.logStepDone(st, results)
	return sum, nil
}

// logStepDone logs one concise line per finished step (always, at info, so a
// non-terminal stderr shows progress too): segment, load, requests, errors, unfinished,
// TTFT p50/p95 of the finished requests, elapsed and the remaining estimate (etaAfter),
// counted as the SLA judge and the analysis count them (logSample).
func (rn *runner) logStepDone(st plan.Step, results []stepResult) {
	c := logSample(results)
	left := rn.etaAfter(st)
	args := []any{"segment", st.Segment, st.Schedule, st.Load(), "requests", c.Requests, "errors", c.Errors}
	if c.CutOff > 0 {
		args = append(args, "unfinished", c.CutOff)
	}
	args = append(args, "ttft_p50_ms", msText(c.TTFT, sla.P50), "ttft_p95_ms", msText(c.TTFT, sla.P95),
		"elapsed", time.Since(rn.started).Round(time.Second), "eta", left.Round(time.Second))
	rn.log.Info(fmt.Sprintf("step %s done", rn.stepOf(st)), args...)
}

// logSample is stepSample with the unfinished requests counted in CutOff only: the
// step-done line's latencies are the finished requests' (the judge's own summaries
// also hold the unfinished ones' waits, as lower bounds).
func logSample(results []stepResult) sla.Sample {
	var c sla.Collector
	cut := 0
	for _, r := range results {
		if r.rec.Phase == rundir.PhaseWarmup {
			continue
		}
		if q := sla.RecordRequest(r.rec); q.Unfinished {
			cut++
		} else {
			c.Add(q)
		}
	}
	s := c.Sample()
	s.CutOff = cut
	return s
}

// stepOf numbers a step for the console: "3/16", or "3 (capacity search)" when a
// search chooses the steps as it goes.
func (rn *runner) stepOf(st plan.Step) string { return rn.labelOf(st).of() }

// labelOf names a step on the progress bar.
func (rn *runner) labelOf(st plan.Step) stepLabel {
	l := stepLabel{segment: st.Segment, index: st.Index + 1, total: len(rn.meta.Steps), schedule: st.Schedule, load: st.Load()}
	if rn.plan.Ladder.Search != nil {
		l.total = 0
	}
	return l
}

// msText renders statistic stat of a latency summary in ms for the log: "–" when the
// summary is empty.
func msText(s sla.Summary, stat sla.Statistic) string {
	ms, ok := s.Value(stat)
	if !ok || math.IsNaN(ms) || math.IsInf(ms, 0) {
		return "–"
	}
	return fmt.Sprintf("%.0f", ms)
}

// workloadFor returns the step's workload and, for a trace step, its trace segment.
func (rn *runner) workloadFor(st plan.Step) (*workload, *segmentGen, error) {
	segs := rn.segs
	if st.Segment != plan.MixSegment {
		segs = nil
		for _, g := range rn.segs {
			if g.name == st.Segment {
				segs = []*segmentGen{g}
			}
		}
	}
	if len(segs) == 0 {
		return nil, nil, fmt.Errorf("sweep step %d: unknown segment %q", st.Index+1, st.Segment)
	}
	var trace *segmentGen
	if st.Schedule == plan.ScheduleTrace {
		if trace = segs[0]; trace.trace == nil {
			return nil, nil, fmt.Errorf("sweep step %d: segment %q has no trace", st.Index+1, st.Segment)
		}
	}
	wl := newWorkload(rn.plan, st.Index, segs)
	wl.shard = rn.shard
	return wl, trace, nil
}

// cooldown pauses between steps; a cancelled ctx ends it with ErrInterrupted.
func (rn *runner) cooldown(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ErrInterrupted
	}
}

// recordsOf returns the records of a step's results, in order.
func recordsOf(results []stepResult) []*rundir.Record {
	recs := make([]*rundir.Record, len(results))
	for i, r := range results {
		recs[i] = r.rec
	}
	return recs
}

// etaAfter is the estimated wall time left after step st: the later steps' estimates,
// or in a search plan (whose later steps are not chosen yet) the steps each search may
// still take — max_steps less the steps it took, none once it stopped, max_steps for a
// search not begun — at st's estimate each (its opener's for a search not begun; a trace opener not run
// yet counts its own).
func (rn *runner) etaAfter(st plan.Step) time.Duration {
	var left time.Duration
	s := rn.plan.Ladder.Search
	if s == nil {
		for _, o := range rn.meta.Steps {
			if o.Index > st.Index {
				left += o.Estimated
			}
		}
		return left
	}
	taken := map[string]int{}
	stopped := map[string]bool{}
	for _, lg := range rn.meta.Searches {
		taken[lg.Segment], stopped[lg.Segment] = len(lg.Steps), lg.Stop != ""
	}
	ran := map[string]bool{}
	for _, o := range rn.meta.Steps {
		if o.Schedule == plan.ScheduleTrace {
			ran[o.Segment] = true
		}
	}
	for _, op := range rn.plan.Steps() {
		switch {
		case op.Schedule == plan.ScheduleTrace:
			if !ran[op.Segment] {
				left += op.Estimated
			}
		case !stopped[op.Segment]:
			per := op.Estimated // a search not begun: its opener's estimate
			if op.Segment == st.Segment {
				per = st.Estimated
			}
			left += time.Duration(max(s.MaxSteps-taken[op.Segment], 0)) * per
		}
	}
	return left
}

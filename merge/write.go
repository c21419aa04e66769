package merge

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/llmcap/llmcap/rundir"
)

// recordBatch is how many records the merge appends at a time.
const recordBatch = 4096

// write writes the merged run of set to o.Out.
func write(set *shardSet, o Options) (*Result, error) {
	w, err := rundir.OpenWriter(o.Out)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	meta := set.meta()
	res := &Result{Dir: o.Out, Shards: len(set.shards), Steps: len(meta.Steps), Warnings: set.warnings, AlignNs: set.alignNs}
	for i, s := range set.shards {
		n, err := appendRecords(w, s, meta.RunID)
		if err != nil {
			return nil, fmt.Errorf("%s (%s): %w", s.dir, s.info.Label(), err)
		}
		meta.Merged.Shards[i].Records = n
		res.Records += n
	}
	for _, st := range meta.Steps {
		sum := set.step(st.Index, meta.RunID)
		if err := w.AppendStep(&sum); err != nil {
			return nil, err
		}
	}
	if err := set.appendMetrics(w); err != nil {
		return nil, err
	}
	if err := w.WriteMeta(meta); err != nil {
		return nil, err
	}
	return res, w.Close()
}

// meta is the merged run.json: the first shard's, with a new run id, the earliest
// start and latest finish, every shard's warnings once and the merge's own, and
// Merged instead of Shard.
func (set *shardSet) meta() *rundir.RunMeta {
	first := set.shards[0].meta
	m := *first
	m.Shard = nil
	m.State = rundir.StateComplete
	m.RunID = mergedRunID(first.Plan.Name)
	m.Warnings = nil
	m.Merged = &rundir.MergeInfo{Count: len(set.shards), AlignNs: set.alignNs}
	var finished time.Time
	for _, s := range set.shards {
		if s.meta.StartedAt.Before(m.StartedAt) {
			m.StartedAt = s.meta.StartedAt
		}
		if f := s.meta.FinishedAt; f != nil && f.After(finished) {
			finished = *f
		}
		for _, wn := range s.meta.Warnings {
			if !slices.ContainsFunc(m.Warnings, wn.Same) {
				m.Warnings = append(m.Warnings, wn)
			}
		}
		m.Merged.Shards = append(m.Merged.Shards, rundir.MergedShard{Index: s.info.Index, Dir: s.dir, RunID: s.meta.RunID,
			Host: s.meta.Host, Clock: s.info.Clock})
	}
	if !finished.IsZero() {
		m.FinishedAt = &finished
	}
	m.Warnings = append(m.Warnings, set.warnings...)
	return &m
}

// mergedRunID is "<name>-merged-<UTC time>".
func mergedRunID(name string) string {
	id := "merged-" + time.Now().UTC().Format("20060102T150405Z")
	if name != "" {
		id = strings.NewReplacer("/", "-", " ", "-", `\`, "-").Replace(name) + "-" + id
	}
	return id
}

// appendRecords appends every record of s, re-based onto the reference clock and
// given the merged run id; it returns how many.
func appendRecords(w *rundir.Writer, s *shard, runID string) (int, error) {
	batch := make([]*rundir.Record, 0, recordBatch)
	n := 0
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		err := w.AppendRecords(batch)
		batch = batch[:0]
		return err
	}
	_, err := rundir.EachRecord(s.dir, func(r *rundir.Record) error {
		rec := *r
		rec.RunID = runID
		rec.ScheduledNs, rec.SentNs = s.rebase(rec.ScheduledNs), s.rebase(rec.SentNs)
		rec.FirstTokenNs, rec.EndNs = s.rebase(rec.FirstTokenNs), s.rebase(rec.EndNs)
		batch = append(batch, &rec)
		n++
		if len(batch) == recordBatch {
			return flush()
		}
		return nil
	})
	if err != nil {
		return n, err
	}
	return n, flush()
}

// step combines the shards' summaries of step index: the whole step's load, windows
// as the mean of the shards' (reference clock; the on-timeline shards' when any), the
// step's span from the first start to the last end, counts and in-flight peaks summed,
// token means weighted by measured requests, flags set when any shard's is, steady
// only when every shard's is; Shards lists each shard's part.
func (set *shardSet) step(index int, runID string) rundir.StepSummary {
	var out rundir.StepSummary
	var winStart, winEnd, nWin int64
	var promptI, promptA float64
	for k, s := range set.shards {
		sum := s.steps[index]
		if k == 0 {
			out = sum
			out.Shard, out.Shards, out.RunID = nil, nil, runID
			out.StartNs, out.EndNs = s.rebase(sum.StartNs), s.rebase(sum.EndNs)
			out.WarmupRequests, out.MeasureRequests, out.GraceRequests = 0, 0, 0
			out.Errors, out.Cancelled, out.Unfinished, out.OverMaxTokens, out.MaxInFlight, out.StoppedAfter = 0, 0, 0, 0, 0, 0
			if !out.SteadyState {
				out.SteadyStateReason = s.info.Label() + ": " + sum.SteadyStateReason
			}
		}
		out.StartNs, out.EndNs = min(out.StartNs, s.rebase(sum.StartNs)), max(out.EndNs, s.rebase(sum.EndNs))
		if sum.Shard == nil || !sum.Shard.Late || nWin == 0 && k == len(set.shards)-1 {
			winStart += s.rebase(sum.MeasureStartNs)
			winEnd += s.rebase(sum.MeasureEndNs)
			nWin++
		}
		out.WarmupRequests += sum.WarmupRequests
		out.MeasureRequests += sum.MeasureRequests
		out.GraceRequests += sum.GraceRequests
		out.Errors += sum.Errors
		out.Cancelled += sum.Cancelled
		out.Unfinished += sum.Unfinished
		out.OverMaxTokens += sum.OverMaxTokens
		out.MaxInFlight += sum.MaxInFlight
		out.StoppedAfter += sum.StoppedAfter
		out.CutByStepTimeout = out.CutByStepTimeout || sum.CutByStepTimeout
		if out.StoppedEarly == "" {
			out.StoppedEarly, out.StoppedErrorRate = sum.StoppedEarly, sum.StoppedErrorRate
		}
		if !sum.SteadyState && out.SteadyState {
			out.SteadyState, out.SteadyStateReason = false, s.info.Label()+": "+sum.SteadyStateReason
		}
		promptI += sum.IntendedPromptTokensMean * float64(sum.MeasureRequests)
		promptA += sum.AchievedPromptTokensMean * float64(sum.MeasureRequests)
		if sum.Shard != nil {
			part := *sum.Shard
			part.PlannedStartNs = s.rebase(part.PlannedStartNs)
			out.Shards = append(out.Shards, part)
		}
	}
	if nWin > 0 {
		out.MeasureStartNs, out.MeasureEndNs = winStart/nWin, winEnd/nWin
	}
	if out.MeasureRequests > 0 {
		out.IntendedPromptTokensMean = promptI / float64(out.MeasureRequests)
		out.AchievedPromptTokensMean = promptA / float64(out.MeasureRequests)
	}
	return out
}

// appendMetrics appends, for each scraped endpoint, the samples of the lowest-index
// shard that scraped it (every shard scrapes the same server: one scraper's series per
// endpoint, not N interleaved), re-based onto the reference clock.
func (set *shardSet) appendMetrics(w *rundir.Writer) error {
	owner := map[string]int{}
	for k, s := range set.shards {
		if _, err := rundir.EachMetric(s.dir, func(m *rundir.MetricSample) error {
			if _, ok := owner[m.URL]; !ok {
				owner[m.URL] = k
			}
			return nil
		}); err != nil {
			return fmt.Errorf("%s: %w", s.dir, err)
		}
	}
	for k, s := range set.shards {
		if _, err := rundir.EachMetric(s.dir, func(m *rundir.MetricSample) error {
			if owner[m.URL] != k {
				return nil
			}
			c := *m
			c.TimeNs = s.rebase(c.TimeNs)
			return w.AppendMetric(&c)
		}); err != nil {
			return fmt.Errorf("%s: %w", s.dir, err)
		}
	}
	return nil
}

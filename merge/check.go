package merge

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
)

// shard is one shard's run directory, read.
type shard struct {
	dir   string
	meta  *rundir.RunMeta
	info  rundir.ShardInfo
	steps map[int]rundir.StepSummary
	// cut counts the records of steps without a summary (a step cut mid-way).
	cut map[int]int
}

// shardSet is the checked shards, by index, and the warnings the merge adds.
type shardSet struct {
	shards   []*shard
	warnings []rundir.Warning
	alignNs  int64
}

// rebase turns a time of shard s's clock into the reference clock (0 stays 0).
func (s *shard) rebase(ns int64) int64 {
	if ns == 0 {
		return 0
	}
	return ns - s.info.Clock.OffsetNs
}

// Check reads and checks the shards of o.Dirs: each is a shard's run directory, all of
// one plan and shard count, every index present once, every step finished (a shard cut
// mid-step names the step and the records it kept), every clock measured within
// o.MaxClockUncertainty, and each step's shard starts (reference clock) within
// o.AlignTolerance plus the clocks' uncertainty, but for shards behind the timeline
// (rundir.ShardStep.Late: a resumed shard), which become a WarnShardOffTimeline
// warning. It returns Problems naming every problem found.
func Check(o Options) (*shardSet, error) {
	var probs Problems
	var all []*shard
	for _, d := range o.Dirs {
		s, err := readShard(d)
		if err != nil {
			probs = append(probs, err.Error())
			continue
		}
		all = append(all, s)
	}
	if len(all) == 0 {
		return nil, probs
	}
	set := &shardSet{}
	probs = append(probs, set.index(all)...)
	if len(probs) > 0 {
		return nil, probs
	}
	for _, s := range set.shards {
		probs = append(probs, completeness(s)...)
		probs = append(probs, set.clock(s, o.maxUncertainty())...)
	}
	if len(probs) > 0 {
		return nil, probs
	}
	if probs = set.align(o.align()); len(probs) > 0 {
		return nil, probs
	}
	return set, nil
}

// readShard reads dir's run.json, steps and the records of its unfinished steps.
func readShard(dir string) (*shard, error) {
	m, err := rundir.ReadMeta(dir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	if m.Shard == nil {
		return nil, fmt.Errorf("%s: not a shard's run directory (run.json has no shard: it was not swept with --shard I/N)", dir)
	}
	s := &shard{dir: dir, meta: m, info: *m.Shard, steps: map[int]rundir.StepSummary{}, cut: map[int]int{}}
	sums, _, err := rundir.ReadSteps(dir)
	if err != nil {
		return nil, fmt.Errorf("%s (%s): %w", dir, s.info.Label(), err)
	}
	for _, sum := range sums {
		s.steps[sum.Index] = sum
	}
	if len(s.steps) < len(m.Steps) {
		if _, err := rundir.EachRecord(dir, func(r *rundir.Record) error {
			if _, ok := s.steps[r.Step]; !ok {
				s.cut[r.Step]++
			}
			return nil
		}); err != nil {
			return nil, fmt.Errorf("%s (%s): %w", dir, s.info.Label(), err)
		}
	}
	return s, nil
}

// index orders all by shard index, refusing other counts or plans, repeated and
// missing indices.
func (set *shardSet) index(all []*shard) Problems {
	var probs Problems
	ref := all[0]
	byIndex := map[int][]*shard{}
	for _, s := range all {
		switch {
		case s.info.Count != ref.info.Count:
			probs = append(probs, fmt.Sprintf("%s is %s, %s is %s: shards of one sweep share the count", s.dir, s.info.Label(), ref.dir, ref.info.Label()))
		case s.info.PlanHash != ref.info.PlanHash:
			probs = append(probs, fmt.Sprintf("%s (%s) ran another plan than %s (%s): plan hash %.12s against %.12s",
				s.dir, s.info.Label(), ref.dir, ref.info.Label(), s.info.PlanHash, ref.info.PlanHash))
		case !s.info.StartAt.Equal(ref.info.StartAt):
			probs = append(probs, fmt.Sprintf("%s (%s) started its timeline at %s, %s (%s) at %s: shards of one sweep share one start",
				s.dir, s.info.Label(), s.info.StartAt.Format(time.RFC3339Nano), ref.dir, ref.info.Label(), ref.info.StartAt.Format(time.RFC3339Nano)))
		default:
			byIndex[s.info.Index] = append(byIndex[s.info.Index], s)
		}
	}
	if len(probs) > 0 {
		return probs
	}
	var missing []string
	for i := range ref.info.Count {
		switch got := byIndex[i]; len(got) {
		case 0:
			missing = append(missing, fmt.Sprint(i))
		case 1:
			set.shards = append(set.shards, got[0])
		default:
			var dirs []string
			for _, s := range got {
				dirs = append(dirs, s.dir)
			}
			probs = append(probs, fmt.Sprintf("shard %d/%d given %d times: %s", i, ref.info.Count, len(got), strings.Join(dirs, ", ")))
		}
	}
	if len(missing) > 0 {
		probs = append(probs, fmt.Sprintf("shard%s %s of %d missing: give every shard's run directory", plural(len(missing)),
			strings.Join(missing, ", "), ref.info.Count))
	}
	return probs
}

// completeness names s's steps without a summary: the first is incomplete (the step
// in progress, or next, when the sweep stopped: cut mid-step with the records it kept,
// or killed before it wrote any, as a sweep writes a step's records at its end), the
// rest not run.
func completeness(s *shard) Problems {
	var cut, notRun []string
	for _, st := range s.meta.Steps {
		if _, ok := s.steps[st.Index]; ok {
			continue
		}
		name := stepName(st)
		switch n := s.cut[st.Index]; {
		case n > 0:
			cut = append(cut, fmt.Sprintf("%s, cut mid-step with %d record%s kept", name, n, plural(n)))
		case len(cut) == 0:
			cut = append(cut, fmt.Sprintf("%s, in progress or next when the sweep stopped, no records kept", name))
		default:
			notRun = append(notRun, name)
		}
	}
	if len(cut)+len(notRun) == 0 {
		return nil
	}
	var parts []string
	if len(cut) > 0 {
		parts = append(parts, "incomplete: "+strings.Join(cut, ", "))
	}
	if len(notRun) > 0 {
		parts = append(parts, "not run: "+strings.Join(notRun, ", "))
	}
	state := s.meta.State
	if state == rundir.StateRunning && rundir.SweepGone(s.dir) {
		state = "running, but its sweep is gone (killed)"
	}
	return Problems{fmt.Sprintf("%s (%s, run.json %s): %s; resume it with llmcap sweep --resume %s, then merge again",
		s.info.Label(), s.dir, state, strings.Join(parts, "; "), s.dir)}
}

// stepName is "step 3 (chat c=64)".
func stepName(st plan.Step) string {
	load := fmt.Sprintf("r=%g/s", st.Rate)
	switch st.Schedule {
	case plan.ScheduleConcurrency:
		load = fmt.Sprintf("c=%d", st.Concurrency)
	case plan.ScheduleUsers:
		load = fmt.Sprintf("u=%d", st.Users)
	case plan.ScheduleTrace:
		load = "trace"
	}
	return fmt.Sprintf("step %d (%s %s)", st.Index+1, st.Segment, load)
}

// clock checks s's clock measurement against the bound; an unmeasured clock (the
// server sent no Date header) is a warning: the host clocks are trusted as they are.
func (set *shardSet) clock(s *shard, bound time.Duration) Problems {
	c := s.info.Clock
	switch {
	case c.Reference == rundir.ClockUnmeasured || c.UncertaintyNs < 0:
		set.warnings = append(set.warnings, rundir.Warning{Kind: rundir.WarnShardOffTimeline, Step: rundir.RunWide,
			Message: fmt.Sprintf("%s's clock was not measured (the target sent no Date header): its records are merged on its own clock, trusted as NTP keeps it", s.info.Label()),
			Data:    &rundir.WarningData{Steps: []string{s.info.Label()}}})
	case time.Duration(c.UncertaintyNs) > bound:
		return Problems{fmt.Sprintf("%s (%s): clock offset %v known only within ±%v (%s), over the bound ±%v: re-run it nearer the reference, or raise --max-clock-uncertainty",
			s.info.Label(), s.dir, time.Duration(c.OffsetNs), time.Duration(c.UncertaintyNs), c.Reference, bound)}
	}
	return nil
}

// align checks every step's shard starts, in the reference clock: the on-timeline
// shards within tol plus their clocks' uncertainty; a shard behind the timeline is a
// warning.
func (set *shardSet) align(tol time.Duration) Problems {
	var probs Problems
	for _, st := range set.shards[0].meta.Steps {
		var starts []int64
		var late, labels []string
		var slack int64
		for _, s := range set.shards {
			sum := s.steps[st.Index]
			if sum.Shard != nil && sum.Shard.Late {
				late = append(late, s.info.Label())
				continue
			}
			starts = append(starts, s.rebase(sum.StartNs))
			labels = append(labels, fmt.Sprintf("%s %s", s.info.Label(), time.Unix(0, s.rebase(sum.StartNs)).UTC().Format("15:04:05.000")))
			slack = max(slack, max(s.info.Clock.UncertaintyNs, 0))
		}
		if len(late) > 0 {
			set.warnings = append(set.warnings, offTimeline(st, late))
		}
		if len(starts) < 2 {
			continue
		}
		spread := slices.Max(starts) - slices.Min(starts)
		if spread > int64(tol)+2*slack {
			probs = append(probs, fmt.Sprintf("%s: the shards started %v apart (%s), over the tolerance %v: their steps did not overlap; check the clocks, or raise --align-tolerance",
				stepName(st), time.Duration(spread).Round(time.Millisecond), strings.Join(labels, ", "), tol))
			continue
		}
		set.alignNs = max(set.alignNs, spread)
	}
	return probs
}

// offTimeline is the warning of step st run off the timeline by the shards late.
func offTimeline(st plan.Step, late []string) rundir.Warning {
	sort.Strings(late)
	return rundir.Warning{Kind: rundir.WarnShardOffTimeline, Segment: st.Segment, Step: st.Index,
		Message: fmt.Sprintf("%s: %s ran it off the common timeline (resumed, or behind after an earlier step), so the shards' loads did not overlap through its whole window: "+
			"its latency was measured under part of the load; re-run every shard of it for a faithful step", stepName(st), strings.Join(late, ", ")),
		Data: &rundir.WarningData{Steps: late, Count: len(late)}}
}

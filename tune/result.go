package tune

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/redact"
	"github.com/llmcap/llmcap/rundir"
	"github.com/llmcap/llmcap/tune/nsga2"
)

// planObjective is a plan objective (plan.TuneObjective).
type planObjective = plan.TuneObjective

// result builds the tune's result over the recorded trials and writes tune-result.json.
func (t *Tuner) result(stop string) (*rundir.TuneResult, error) {
	r := Summarize(t.plan.Tune.Objectives, t.trials, stop, t.space)
	if rec := trialByNumber(t.trials, r.Recommended); rec != nil && len(rec.Point) == len(t.space.params) {
		// The trial ran on a random free port; the recommendation keeps {port} for yours.
		r.Command, r.Env = t.recommendedCommand(rec.Point)
	}
	if err := rundir.WriteTuneResult(t.opts.Dir, r); err != nil {
		return nil, fmt.Errorf("tune: %w", err)
	}
	return r, nil
}

// Summarize is the result of trials: the Pareto front of the OK trials on the
// objectives, the recommended trial (the best main objective, ties broken by the next
// objectives in order), the baseline, the gain over it, the answer sentence and the
// notes. sp names the parameters in the answer (nil: the trials' Params in name order)
// and bounds them for the note on a recommendation at the space's edge (edgeNote).
func Summarize(objs []planObjective, trials []rundir.Trial, stop string, sp *space) *rundir.TuneResult {
	r := &rundir.TuneResult{Objectives: objs, Trials: len(trials), Recommended: -1, Baseline: -1, Stop: stop}
	dirs := directions(objs)
	var okIdx []int
	var vecs [][]float64
	for i := range trials {
		tr := &trials[i]
		if tr.Baseline && tr.OK() {
			r.Baseline = tr.Trial
		}
		v, ok := objectiveVector(objs, tr)
		if !ok {
			continue
		}
		r.OK++
		okIdx, vecs = append(okIdx, i), append(vecs, v)
	}
	if len(okIdx) > 0 {
		for _, j := range nsga2.NonDominatedSort(vecs, dirs)[0] {
			r.Front = append(r.Front, trials[okIdx[j]].Trial)
		}
		best := okIdx[0]
		for k, i := range okIdx {
			if better(vecs[k], objVec(objs, &trials[best]), dirs) {
				best = i
			}
		}
		r.Recommended = trials[best].Trial
		r.Command, r.Env = trials[best].Command, trials[best].Env
		sort.SliceStable(r.Front, func(a, b int) bool {
			return better(objVec(objs, trialByNumber(trials, r.Front[a])), objVec(objs, trialByNumber(trials, r.Front[b])), dirs)
		})
	}
	rec, base := trialByNumber(trials, r.Recommended), trialByNumber(trials, r.Baseline)
	if rec != nil && base != nil && base.Capacity > 0 {
		r.GainOverBaseline = rec.Capacity/base.Capacity - 1
	}
	r.Answer = answer(objs, trials, r, rec, base, sp)
	r.Notes = notes(trials, rec)
	if n := edgeNote(objs, trials, rec, sp); n != "" {
		r.Notes = append(r.Notes, n)
	}
	return r
}

// objectiveVector is tr's objective values in objs' order; ok is false for a trial
// that did not measure, or lacks one of them.
func objectiveVector(objs []planObjective, tr *rundir.Trial) ([]float64, bool) {
	if !tr.OK() {
		return nil, false
	}
	v := make([]float64, len(objs))
	for i, o := range objs {
		x, ok := tr.Objectives[o.Metric]
		if !ok {
			return nil, false
		}
		v[i] = x
	}
	return v, true
}

func objVec(objs []planObjective, tr *rundir.Trial) []float64 {
	v, _ := objectiveVector(objs, tr)
	return v
}

// better reports whether a beats b lexicographically: on the first objective where
// they differ (by more than 1e-9 relative), in its direction.
func better(a, b []float64, dirs []nsga2.Direction) bool {
	for i := range dirs {
		if math.Abs(a[i]-b[i]) <= 1e-9*math.Max(1, math.Abs(b[i])) {
			continue
		}
		if dirs[i] == nsga2.Maximize {
			return a[i] > b[i]
		}
		return a[i] < b[i]
	}
	return false
}

func trialByNumber(trials []rundir.Trial, n int) *rundir.Trial {
	for i := range trials {
		if trials[i].Trial == n {
			return &trials[i]
		}
	}
	return nil
}

// answer is the recommendation in one sentence.
func answer(objs []planObjective, trials []rundir.Trial, r *rundir.TuneResult, rec, base *rundir.Trial, sp *space) string {
	if rec == nil {
		if len(trials) == 0 {
			return "No trial has been run yet."
		}
		if len(trials) == 1 {
			return "No configuration could be measured: the one trial failed (trials.jsonl has its reason and its server's last lines)."
		}
		return fmt.Sprintf("No configuration could be measured: all %d trials failed (trials.jsonl has each one's reason and its server's last lines).", len(trials))
	}
	main := objs[0].Metric
	var b strings.Builder
	fmt.Fprintf(&b, "Run the server with %s: it keeps %s within the SLA", paramsOf(rec, sp), formatObjective(main, rec.Capacity))
	switch {
	case base != nil && base.Trial == rec.Trial:
		b.WriteString(", and no other setting tried did better than the starting configuration")
	case base != nil && r.GainOverBaseline > 0:
		fmt.Fprintf(&b, ", %.0f%% more than the starting configuration (%s)", 100*r.GainOverBaseline, formatObjective(main, base.Capacity))
	case base != nil:
		fmt.Fprintf(&b, ", as many as the starting configuration (%s)", formatObjective(main, base.Capacity))
	}
	fmt.Fprintf(&b, " — the best of %s.", plural(len(trials), "trial"))
	return b.String()
}

// paramsOf is "max_num_seqs=64, max_num_batched_tokens=4096" for tr, in the space's
// order (or by name without one).
func paramsOf(tr *rundir.Trial, sp *space) string {
	if sp != nil && len(tr.Point) == len(sp.params) {
		parts := make([]string, len(sp.params))
		for i, p := range sp.params {
			parts[i] = p.Name + "=" + sp.text(i, tr.Point[i])
		}
		return strings.Join(parts, ", ")
	}
	names := make([]string, 0, len(tr.Params))
	for k := range tr.Params {
		names = append(names, k)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, k := range names {
		parts[i] = fmt.Sprintf("%s=%v", k, tr.Params[k])
	}
	return strings.Join(parts, ", ")
}

// notes are the result's caveats: failed trials by class, searches that never found
// the limit (and what to raise), a recommended capacity that is not measured directly.
func notes(trials []rundir.Trial, rec *rundir.Trial) []string {
	var out []string
	failed := map[string]int{}
	nFailed, abandoned := 0, 0
	atLeast := map[string]int{} // by what ended the search
	for _, tr := range trials {
		switch {
		case !tr.OK():
			failed[tr.FailClass]++
			nFailed++
		case tr.Abandoned:
			abandoned++
		case tr.CapacityMethod == "at_least":
			atLeast[tr.SearchStop]++
		}
	}
	if nFailed > 0 {
		classes := make([]string, 0, len(failed))
		for c, n := range failed {
			classes = append(classes, fmt.Sprintf("%d %s", n, c))
		}
		sort.Strings(classes)
		out = append(out, fmt.Sprintf("%d of %s failed (%s); trials.jsonl has each one's reason and its server's last lines.",
			nFailed, plural(len(trials), "trial"), strings.Join(classes, ", ")))
	}
	if abandoned > 0 {
		out = append(out, fmt.Sprintf("%s broke the SLA at the search's lowest load and stopped there (capacity 0).", plural(abandoned, "trial")))
	}
	for _, stop := range sortedKeys(atLeast) {
		raise := "ladder.search.max"
		if stop == "max_steps" {
			raise = "ladder.search.max_steps"
		}
		out = append(out, fmt.Sprintf("%s met the SLA at every load tried: a lower bound of the capacity (raise %s).", plural(atLeast[stop], "trial"), raise))
	}
	if rec != nil && rec.CapacityMethod != "" && rec.CapacityMethod != "measured" {
		out = append(out, fmt.Sprintf("The recommended configuration's capacity is %s, not measured at that exact load (%s).", rec.CapacityMethod, rangeText(rec)))
	}
	return out
}

// rangeText is a trial's capacity range: "range 48–54", or "at least 48" open-ended.
func rangeText(tr *rundir.Trial) string {
	if tr.RangeHigh <= 0 {
		return fmt.Sprintf("at least %g", tr.RangeLow)
	}
	return fmt.Sprintf("range %g–%g", tr.RangeLow, tr.RangeHigh)
}

func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// recommendedCommand is the launch template at pt with {port} kept for the user's port
// and secrets masked.
func (t *Tuner) recommendedCommand(pt nsga2.Point) (argv, env []string) {
	argv, env, _ = t.rendered(pt, -1)
	argv, _ = redact.Argv(argv)
	env, _ = redact.Env(env)
	return argv, env
}

// plural is "1 trial", "3 trials".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

package compare

import (
	"errors"
	"fmt"
	"strings"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
)

// Options are a comparison's settings.
type Options struct {
	// SLAOverridden: the analyses were computed under one SLA given for the comparison
	// (analysis.AnalyzeUnder with ResolveSLA's), not the runs' own (Comparison's
	// SLAOverridden).
	SLAOverridden bool
}

// ErrTooFewRuns is returned by Compare for fewer than two runs.
var ErrTooFewRuns = errors.New("compare needs at least two runs")

// Compare compares the runs in (the first the baseline): each run's plan from its
// run.json (rundir.ReadMeta) for the plan diff, its answer from its Analysis, and the
// delta table at the loads every run measured, from its records.jsonl (read once per
// run through rundir.EachRecord, judged under the analyses' SLA) with BootstrapReps
// resamples per run and step, and, when at least two runs have the output-drift
// probe, their drift.jsonl outputs compared (driftOf). The result is deterministic.
// Errors: fewer than two runs (ErrTooFewRuns), an empty or repeated label or a missing
// analysis, runs on different schedules (*ScheduleMismatchError), analyses under
// different SLAs (*SLAMismatchError), or a run file that
// cannot be read (naming its directory).
func Compare(in []Input, opts Options) (*Comparison, error) {
	labels, err := checkInputs(in)
	if err != nil {
		return nil, err
	}
	slas := make([]plan.SLA, len(in))
	plans := make([]*plan.Plan, len(in))
	for i := range in {
		slas[i] = in[i].Analysis.Plan.SLA
		meta, err := rundir.ReadMeta(in[i].Dir)
		if err != nil {
			return nil, fmt.Errorf("compare %s: %w", in[i].Dir, err)
		}
		plans[i] = &meta.Plan
	}
	if err := CheckSchedules(labels, dirsOf(in), schedulesOf(in)); err != nil {
		return nil, err
	}
	if err := CheckSLA(labels, slas); err != nil {
		return nil, err
	}
	c := &Comparison{FormatVersion: FormatVersion, Baseline: labels[0], Labels: labels, PlanDiff: planDiff(plans),
		SLA: slas[0], Constraints: in[0].Analysis.Constraints, SLAOverridden: opts.SLAOverridden,
		Bootstrap: Bootstrap{Reps: BootstrapReps, Seed: BootstrapSeed, Level: 0.95}}
	views := make([][]segmentView, len(in))
	for i := range in {
		c.Runs = append(c.Runs, summaryOf(in[i]))
		views[i] = segmentsOf(in[i].Analysis)
	}
	c.Notes = incompleteNotes(in)
	var notes []string
	c.Loads, notes = commonLoads(labels, views)
	c.Notes = append(c.Notes, notes...)
	c.Curves = curvesOf(labels, views)
	if c.Deltas, err = deltas(in, views, c.Loads, slas[0]); err != nil {
		return nil, err
	}
	if c.Drift, err = driftOf(in); err != nil {
		return nil, err
	}
	c.Verdict = verdictOf(c.Runs)
	return c, nil
}

// checkInputs returns the labels, or why the inputs cannot be compared.
func checkInputs(in []Input) ([]string, error) {
	if len(in) < 2 {
		return nil, fmt.Errorf("%w (got %d)", ErrTooFewRuns, len(in))
	}
	labels := make([]string, len(in))
	seen := map[string]bool{}
	for i, r := range in {
		switch {
		case r.Label == "":
			return nil, fmt.Errorf("compare: run %d (%s) has no label", i+1, r.Dir)
		case seen[r.Label]:
			return nil, fmt.Errorf("compare: label %q is given to two runs; labels must differ: pass one label per run, e.g. --labels %s",
				r.Label, exampleLabels(len(in)))
		case r.Analysis == nil:
			return nil, fmt.Errorf("compare: run %s (%s) has no analysis", r.Label, r.Dir)
		}
		seen[r.Label] = true
		labels[i] = r.Label
	}
	return labels, nil
}

// incompleteNotes name the runs that did not complete: only their finished steps are
// compared.
func incompleteNotes(in []Input) []string {
	var out []string
	for _, r := range in {
		if a := r.Analysis; a.RunState != "" {
			out = append(out, fmt.Sprintf("run %s is %s (%d of %d steps finished): only its finished steps are compared",
				r.Label, a.RunState, a.StepsCompleted, a.StepsPlanned))
		}
	}
	return out
}

// exampleLabels is an example --labels value for n runs ("a,b,c").
func exampleLabels(n int) string {
	l := make([]string, n)
	for i := range l {
		l[i] = string(rune('a' + i%26))
	}
	return strings.Join(l, ",")
}

// ScheduleMismatchError is returned by Compare (and CheckSchedules) for runs whose
// ladders are of different kinds (a concurrency ladder, a request-rate ladder, a users
// ladder): their loads share no axis, so neither their capacities nor their deltas can
// be compared.
type ScheduleMismatchError struct {
	Labels    []string
	Dirs      []string
	Schedules []string
}

func (e *ScheduleMismatchError) Error() string {
	parts := make([]string, len(e.Labels))
	for i := range e.Labels {
		parts[i] = fmt.Sprintf("%s (%s) is %s", e.Labels[i], e.Dirs[i], scheduleWords(e.Schedules[i]))
	}
	return "compare: the runs have different schedules and share no load axis: " + strings.Join(parts, ", ") +
		"; compare runs of one kind (all concurrency, all request-rate or all users ladders)"
}

// scheduleWords names a schedule's ladder ("a concurrency ladder").
func scheduleWords(s string) string {
	switch s {
	case plan.ScheduleRate:
		return "a request-rate ladder"
	case plan.ScheduleUsers:
		return "a users ladder (think time)"
	case plan.ScheduleConcurrency:
		return "a concurrency ladder"
	case "":
		return "of no schedule"
	}
	return "a " + s + " schedule"
}

// CheckSchedules returns a *ScheduleMismatchError unless every run's schedule is the
// same.
func CheckSchedules(labels, dirs, schedules []string) error {
	for _, s := range schedules[1:] {
		if s != schedules[0] {
			return &ScheduleMismatchError{Labels: labels, Dirs: dirs, Schedules: schedules}
		}
	}
	return nil
}

func dirsOf(in []Input) []string {
	out := make([]string, len(in))
	for i, r := range in {
		out[i] = r.Dir
	}
	return out
}

func schedulesOf(in []Input) []string {
	out := make([]string, len(in))
	for i, r := range in {
		out[i] = r.Analysis.Schedule
	}
	return out
}

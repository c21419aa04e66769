package analysis

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
)

// ErrNoDrift is returned by CompareDrift when a run has no drift probe (no drift.jsonl).
var ErrNoDrift = errors.New("no drift probe (no drift.jsonl: add a drift section to the plan)")

// CompareDrift compares a, the analysis of the run directory runDir, with the baseline
// run directory dir, prompt by prompt:
// each prompt's first output before the ladder against the baseline's (prompts whose text
// differs between the runs are counted apart, not compared). It sets a.Drift.Baseline,
// and adds a WarnDriftBaseline warning when outputs changed. Errors (naming the
// directory): a has no drift section, or dir's run.json or either drift.jsonl is missing
// or unreadable (ErrNoDrift for a run without the probe).
func CompareDrift(a *Analysis, runDir, dir string) error {
	if a.Drift == nil {
		return fmt.Errorf("drift baseline: this run has %w", ErrNoDrift)
	}
	meta, err := rundir.ReadMeta(dir)
	if err != nil {
		return fmt.Errorf("drift baseline %s: %w", dir, err)
	}
	recs, _, ok, err := rundir.ReadDrift(dir)
	if err != nil {
		return fmt.Errorf("drift baseline %s: %w", dir, err)
	}
	if !ok {
		return fmt.Errorf("drift baseline %s: %w", dir, ErrNoDrift)
	}
	mine, _, _, err := rundir.ReadDrift(runDir)
	if err != nil {
		return fmt.Errorf("drift baseline: read this run's %s: %w", rundir.FileDrift, err)
	}
	b := &DriftBaseline{Mismatch: probeMismatch(a.Drift, meta.Plan.Drift)}
	if b.Mismatch == "" {
		b = baselineOf(references(mine), references(recs))
	}
	b.Dir, b.RunID = dir, meta.RunID
	b.Text = baselineText(b)
	a.Drift.Baseline = b
	a.Warnings = slices.DeleteFunc(a.Warnings, func(w Warning) bool { return w.Kind == WarnDriftBaseline })
	a.Warnings = append(a.Warnings, driftWarnings(&Drift{Baseline: b})...)
	return nil
}

// references are the successful first outputs before the ladder, by prompt.
func references(recs []rundir.DriftRecord) map[int]*rundir.DriftRecord {
	out := map[int]*rundir.DriftRecord{}
	for i := range recs {
		if r := &recs[i]; r.OK() && r.Phase == rundir.DriftBefore && r.Repeat == 0 {
			out[r.Prompt] = r
		}
	}
	return out
}

// baselineOf compares this run's references with the baseline's, in prompt order.
func baselineOf(mine, base map[int]*rundir.DriftRecord) *DriftBaseline {
	b := &DriftBaseline{}
	for _, p := range slices.Sorted(maps.Keys(mine)) {
		ref, ok := base[p]
		switch {
		case !ok:
		case ref.PromptSHA256 != mine[p].PromptSHA256:
			b.OtherPrompts++
		case ref.SHA256 == mine[p].SHA256:
			b.Compared++
			b.Identical++
		default:
			b.Compared++
			o := *mine[p]
			o.DiffersAt = nil // its differs_at is against this run's own reference
			b.Changed = append(b.Changed, changeOf(ref, &o))
		}
	}
	return b
}

// baselineText is the baseline comparison's sentence.
func baselineText(b *DriftBaseline) string {
	if b.Mismatch != "" {
		return fmt.Sprintf("Not compared with the baseline run %s: the probes differ in %s, so their outputs differ whatever the server does.", b.RunID, b.Mismatch)
	}
	other := ""
	if b.OtherPrompts > 0 {
		other = fmt.Sprintf(" (%s differ between the runs and were not compared)", plural(b.OtherPrompts, "prompt"))
	}
	switch {
	case b.Compared == 0:
		return fmt.Sprintf("No output could be compared with the baseline run %s%s.", b.RunID, other)
	case len(b.Changed) > 0:
		return fmt.Sprintf("%d of %d outputs changed against the baseline run %s at temperature 0%s.", len(b.Changed), b.Compared, b.RunID, other)
	}
	return fmt.Sprintf("All %d outputs were identical to the baseline run %s%s.", b.Compared, b.RunID, other)
}

// probeMismatch names the request settings of the probe that differ between this run
// (d) and the baseline's plan (base): seed and max_tokens change the outputs themselves.
// "" when they agree or the baseline's plan has no drift section (an older run).
func probeMismatch(d *Drift, base *plan.Drift) string {
	if base == nil {
		return ""
	}
	var diffs []string
	if d.Seed != base.Seed {
		diffs = append(diffs, fmt.Sprintf("drift.seed (%d against the baseline's %d)", d.Seed, base.Seed))
	}
	if d.MaxTokens != base.MaxTokens {
		diffs = append(diffs, fmt.Sprintf("drift.max_tokens (%d against the baseline's %d)", d.MaxTokens, base.MaxTokens))
	}
	return strings.Join(diffs, " and ")
}

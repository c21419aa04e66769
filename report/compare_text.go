package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/llmcap/llmcap/analysis"
	"github.com/llmcap/llmcap/compare"
	"github.com/llmcap/llmcap/plan"
)

// The comparison report's words and tables (`llmcap compare`), shared by its
// Markdown, HTML and printed summary: the plan diff, the runs' answers side by side
// and the delta table at the common loads.

const (
	cmpTitle      = "Comparison"
	cmpHeadPlan   = "What differs"
	cmpHeadRuns   = "Capacity within the SLA"
	cmpHeadDeltas = "At the same load"
	cmpNoPlanDiff = "The runs' resolved plans are the same."
)

// cmpPlanIntro introduces the plan diff.
const cmpPlanIntro = "The fields of the runs' resolved plans (run.json) whose values differ; every other field is the same."

// cmpDeltaIntro explains the delta table for c.
func cmpDeltaIntro(c *compare.Comparison) string {
	return fmt.Sprintf("Each run at the loads every run measured. Δ is the run's value minus %s's (the baseline), ratio the run's ÷ the baseline's; "+
		"95%% CI is the difference's interval from %s bootstrap resamples of each run's requests at the step (drawn independently, seed %#x). "+
		"A difference is significant when its interval excludes 0 and it is at least %g%% of the baseline's value, negligible when the interval excludes 0 but it is smaller, else noise. Latencies in ms (lower is better), throughputs per second (higher is better).",
		c.Baseline, num(float64(c.Bootstrap.Reps), 0), c.Bootstrap.Seed, 100*compare.MinEffect)
}

// cmpSLAText is the SLA the runs are judged under, in words.
func cmpSLAText(c *compare.Comparison) string {
	s := "SLA: " + constraintsText(c.Constraints)
	if c.SLA.MaxErrorRate > 0 {
		s += ", error rate ≤ " + pct(c.SLA.MaxErrorRate)
	}
	if c.SLAOverridden {
		s += " (given with --sla: every run re-judged under it)"
	}
	return s + "."
}

// cmpTable is a table's header and rows of text.
type cmpTable struct {
	head []string
	rows [][]string
}

// cmpPlanTable is the plan diff: a row per differing field, a column per run.
func cmpPlanTable(c *compare.Comparison) cmpTable {
	head := append([]string{"field"}, c.Labels...)
	rows := make([][]string, 0, len(c.PlanDiff))
	for _, f := range c.PlanDiff {
		rows = append(rows, append([]string{f.Path}, f.Values...))
	}
	return cmpTable{head, rows}
}

// cmpRunsTable is each run's answer, a column per run.
func cmpRunsTable(c *compare.Comparison) cmpTable {
	head := append([]string{""}, c.Labels...)
	line := func(name string, f func(r compare.RunSummary) string) []string {
		row := []string{name}
		for _, r := range c.Runs {
			row = append(row, f(r))
		}
		return row
	}
	rows := [][]string{
		line("capacity within the SLA", cmpCapacityText),
		line("range", func(r compare.RunSummary) string { return compare.RangeText(r) + cmpRangeKind(r.RangeKind) }),
		line("basis", func(r compare.RunSummary) string { return string(r.Basis) }),
		line("method", func(r compare.RunSummary) string { return methodText(r.Method) }),
		line("bottleneck", cmpBottleneck),
		line("binding constraint", func(r compare.RunSummary) string { return orDash(r.Limiting) }),
		line("users", cmpUsersText),
		line("output tok/s at capacity", func(r compare.RunSummary) string { return auto(r.OutputTokensPerS) }),
	}
	for _, k := range cmpTargets(c) {
		rows = append(rows, line(fmt.Sprintf("for %s users", num(float64(k), 0)), func(r compare.RunSummary) string { return cmpSizingText(r, k) }))
	}
	rows = append(rows, line("cost per 1M output tokens", func(r compare.RunSummary) string { return costPerM(r.CostPerMOutputUSD()) }))
	return cmpTable{head, rows}
}

// cmpTargets are the target users any run sizes for, ascending.
func cmpTargets(c *compare.Comparison) []int {
	var out []int
	for _, r := range c.Runs {
		for _, w := range r.Sizing {
			if !slices.Contains(out, w.TargetUsers) {
				out = append(out, w.TargetUsers)
			}
		}
	}
	slices.Sort(out)
	return out
}

// cmpCapacityText is a run's capacity with its unit ("32 concurrent requests").
func cmpCapacityText(r compare.RunSummary) string {
	if r.Basis == compare.BasisNone {
		return "none (" + methodText(r.Method) + ")"
	}
	unit := "concurrent requests"
	switch r.Schedule {
	case plan.ScheduleRate:
		unit = "req/s"
	case plan.ScheduleUsers:
		unit = "users"
	}
	pre := ""
	if r.OpenEnded {
		pre = "≥ "
	}
	return pre + loadText(r.Capacity) + " " + unit + cmpBoundText(r.Bound)
}

// cmpBoundText says why a capacity is a lower bound ("" when it is not).
func cmpBoundText(b compare.Bound) string {
	switch b {
	case compare.BoundLadder:
		return " (no limit within the ladder)"
	case compare.BoundModelCap:
		return " (model projection, capped at 2× the highest load tested)"
	case compare.BoundInterrupted:
		return " (run interrupted: a lower bound)"
	}
	return ""
}

func cmpRangeKind(k analysis.RangeKind) string {
	switch k {
	case analysis.RangeBracket:
		return " (bracket)"
	case analysis.RangePrediction:
		return " (prediction interval)"
	}
	return ""
}

func cmpBottleneck(r compare.RunSummary) string {
	s := string(r.Bottleneck)
	if r.QueueLimit != "" {
		s += " (" + string(r.QueueLimit) + ")"
	}
	return orDash(s)
}

// cmpUsersText is a run's users with their think time and source ("64 users, 5 s think
// time, estimate").
func cmpUsersText(r compare.RunSummary) string {
	if r.Users <= 0 {
		return "–"
	}
	s := num(float64(r.Users), 0) + " users"
	if r.Users == 1 {
		s = "1 user"
	}
	if r.ThinkTimeS > 0 {
		s += ", " + auto(r.ThinkTimeS) + " s think time"
	}
	if r.UsersSource == analysis.UsersConverted {
		s += " (estimate)"
	}
	return s
}

// cmpSizingText is a run's replicas, GPUs and cost per month for target users.
func cmpSizingText(r compare.RunSummary, target int) string {
	for _, w := range r.Sizing {
		if w.TargetUsers == target {
			s := fmt.Sprintf("%s replicas, %s GPUs", num(float64(w.Replicas), 0), num(float64(w.GPUs), 0))
			if w.CostPerMonthUSD > 0 {
				s += ", " + usd(w.CostPerMonthUSD) + "/month"
			}
			return s
		}
	}
	return "–"
}

// cmpMetricText names a delta metric with its unit.
func cmpMetricText(m compare.Metric) string {
	switch m {
	case compare.TTFTP50:
		return "TTFT p50 (ms)"
	case compare.TTFTP95:
		return "TTFT p95 (ms)"
	case compare.ITLP95:
		return "ITL p95 (ms)"
	case compare.OutputTP:
		return "output tok/s"
	case compare.Goodput:
		return "goodput (req/s)"
	}
	return string(m)
}

// cmpDeltaTable is the delta table: per segment, load and metric, each run's value,
// then each later run's Δ, ratio, 95% CI and whether it is significant.
func cmpDeltaTable(c *compare.Comparison) cmpTable {
	head := []string{"segment", "load", "metric"}
	head = append(head, c.Labels...)
	for _, l := range c.Labels[1:] {
		head = append(head, "Δ "+l, "ratio "+l, "95% CI "+l, l+" vs "+c.Baseline)
	}
	var rows [][]string
	for _, d := range c.Deltas {
		for _, md := range d.Metrics {
			row := []string{d.Segment, loadText(d.Load), cmpMetricText(md.Metric)}
			for i, v := range md.Values {
				row = append(row, cmpValue(v, md.N[i]))
			}
			for _, df := range md.Diffs {
				row = append(row, cmpDiffCells(df)...)
			}
			rows = append(rows, row)
		}
	}
	return cmpTable{head, rows}
}

func cmpValue(v float64, n int) string {
	if n == 0 {
		return "–"
	}
	return auto(v)
}

// cmpDiffCells are one difference's Δ, ratio, interval and significance.
func cmpDiffCells(d compare.Diff) []string {
	if d.Significance == compare.NoData {
		return []string{"–", "–", "–", "no data"}
	}
	ratio := "–"
	if d.Ratio > 0 {
		ratio = cmpRatioText(d.Ratio) + "×"
	}
	if d.Ratio > 0 && d.Ratio < 0.5 { // a large drop reads better as its inverse
		ratio += " (1/" + cmpRatioText(1/d.Ratio) + ")"
	}
	return []string{signed(d.Diff), ratio, "[" + signed(d.Low) + ", " + signed(d.High) + "]", cmpSignificance(d)}
}

// cmpRatioText is a ratio in the delta table's one format: two decimals ("1.00",
// "0.95", "12.40"), whole from 100, so a column of ratios reads alike.
func cmpRatioText(r float64) string {
	if r >= 100 {
		return num(r, 0)
	}
	return num(r, 2)
}

// cmpSignificance is "significant, better", "significant, worse", "negligible (< 5%)"
// or "noise".
func cmpSignificance(d compare.Diff) string {
	switch d.Significance {
	case compare.Negligible:
		return fmt.Sprintf("negligible (< %g%%)", 100*compare.MinEffect)
	case compare.Significant:
	default:
		return string(d.Significance)
	}
	if d.Better {
		return "significant, better"
	}
	return "significant, worse"
}

// signed is v with its sign ("+12.5", "-3.20", "0").
func signed(v float64) string {
	if v > 0 {
		return "+" + auto(v)
	}
	if v == 0 {
		return "0"
	}
	return auto(v)
}

// cmpRunsLine names the runs and their directories.
func cmpRunsLine(c *compare.Comparison) string {
	parts := make([]string, len(c.Runs))
	for i, r := range c.Runs {
		parts[i] = fmt.Sprintf("%s = %s", r.Label, r.Dir)
	}
	return "Runs: " + strings.Join(parts, "; ") + " (baseline " + c.Baseline + ")."
}

// The drift section's words (compare.DriftSection): how many of the probe's outputs
// each run shares with the reference run, which differed and where, and each run's
// own repeatability.

const cmpHeadDrift = "Output drift (temperature 0)"

// cmpDriftClip is how much of a changed output the tables show (the workbook and
// compare.json hold the texts as drift.jsonl kept them).
const cmpDriftClip = 80

// cmpDriftIntro explains the drift section.
func cmpDriftIntro(d *compare.DriftSection) string {
	return "The output-drift probe (docs/drift.md) sends the same prompts at temperature 0 with a fixed seed. Each run's outputs are compared with " +
		d.Reference + "'s prompt by prompt (each prompt's first answer before the ladder; the character where two outputs first differ counts from 0), " +
		"and each run's outputs with its own repeats."
}

// cmpDriftSentences are the drift section's findings, one sentence each: per run
// compared with the reference, k of N identical and where the others differed; per run
// whose own repeats changed, that temperature 0 was not deterministic on it.
func cmpDriftSentences(d *compare.DriftSection) []string {
	var out []string
	for _, r := range d.Runs {
		if b := r.VsReference; b != nil {
			out = append(out, cmpDriftAgainstSentence(d.Reference, r.Label, b))
		}
	}
	for _, r := range d.Runs {
		if o := r.Own; o != nil && o.Verdict == analysis.DriftNondeterministic {
			out = append(out, fmt.Sprintf("Temperature 0 was not deterministic on %s: %d of %d outputs changed between its own repeats (%s).",
				r.Label, len(o.Changed), o.Compared, cmpDriftChangesText(o.Changed)))
		}
	}
	return out
}

// cmpDriftAgainstSentence is one run's outputs against the reference run's.
func cmpDriftAgainstSentence(ref, label string, b *analysis.DriftBaseline) string {
	other := ""
	if b.OtherPrompts > 0 {
		other = fmt.Sprintf(" (%s differ between the runs and were not compared)", plural(b.OtherPrompts, "prompt"))
	}
	switch {
	case b.Mismatch != "":
		return fmt.Sprintf("%s: not compared with %s's outputs: the probes differ in %s.", label, ref, b.Mismatch)
	case b.Compared == 0:
		return fmt.Sprintf("%s: no probe output could be compared with %s's%s.", label, ref, other)
	case len(b.Changed) == 0:
		return fmt.Sprintf("%s: all %d of %d probe outputs were identical to %s's%s.", label, b.Identical, b.Compared, ref, other)
	}
	return fmt.Sprintf("%s: %d of %d probe outputs were identical to %s's; %s differed (%s)%s.", label, b.Identical, b.Compared, ref,
		plural(len(b.Changed), "output"), cmpDriftChangesText(b.Changed), other)
}

// cmpDriftChangesText names changed outputs: "prompt 3 at character 12, prompt 17 at
// character 0".
func cmpDriftChangesText(ch []analysis.DriftChange) string {
	parts := make([]string, len(ch))
	for i, c := range ch {
		parts[i] = fmt.Sprintf("prompt %d at character %d", c.Prompt, c.DiffersAt)
	}
	return strings.Join(parts, ", ")
}

// cmpDriftTable is a row per run: its outputs identical to the reference's (k of N),
// those that differed and where, and its own repeatability.
func cmpDriftTable(d *compare.DriftSection) cmpTable {
	head := []string{"run", "identical to " + d.Reference, "differed from " + d.Reference, "own repeats"}
	var rows [][]string
	for _, r := range d.Runs {
		row := []string{r.Label, "–", "–", cmpDriftOwnText(r)}
		switch b := r.VsReference; {
		case r.Label == d.Reference:
			row[1], row[2] = "reference", "reference"
		case b != nil && b.Mismatch != "":
			row[1], row[2] = "not compared", "the probes differ in "+b.Mismatch
		case b != nil:
			row[1] = fmt.Sprintf("%d of %d", b.Identical, b.Compared)
			if len(b.Changed) > 0 {
				row[2] = cmpDriftChangesText(b.Changed)
			}
		}
		rows = append(rows, row)
	}
	return cmpTable{head, rows}
}

// cmpDriftOwnText is a run's own repeatability in a few words.
func cmpDriftOwnText(r compare.RunDrift) string {
	o := r.Own
	switch {
	case !r.Probe || o == nil:
		return "no drift probe"
	case o.Verdict == analysis.DriftNondeterministic:
		return fmt.Sprintf("not deterministic: %d of %d changed (%s)", len(o.Changed), o.Compared, cmpDriftChangesText(o.Changed))
	case o.Verdict == analysis.DriftDeterministic:
		return fmt.Sprintf("deterministic: %d of %d identical", o.Identical, o.Compared)
	}
	return "untested (one pass, nothing to repeat)"
}

// cmpDriftChangeTable is a row per output that differed from the reference run's: the
// run, the prompt, the first differing character and both texts from there on, cut to
// cmpDriftClip characters.
func cmpDriftChangeTable(d *compare.DriftSection) cmpTable {
	head := []string{"run", "prompt", "at character", d.Reference + "'s output", "this run's output"}
	var rows [][]string
	for _, r := range d.Runs {
		if r.VsReference == nil {
			continue
		}
		for _, c := range r.VsReference.Changed {
			rows = append(rows, []string{r.Label, fmt.Sprint(c.Prompt), fmt.Sprint(c.DiffersAt),
				cmpDriftExcerpt(c.Reference, c.DiffersAt), cmpDriftExcerpt(c.Text, c.DiffersAt)})
		}
	}
	return cmpTable{head, rows}
}

// cmpDriftExcerpt is text from a little before character at, cut to cmpDriftClip
// characters, its line breaks and runs of spaces as one space, with "…" where it was
// cut.
func cmpDriftExcerpt(text string, at int) string {
	r := []rune(text)
	from := max(0, min(at, len(r))-20)
	s := strings.Join(strings.Fields(string(r[from:])), " ")
	if from > 0 {
		s = "…" + s
	}
	return clipRunes(s, cmpDriftClip)
}

// cmpDeltaPairTable is the delta table of later run i (1-based in c.Runs) against the
// baseline alone: per segment, load and metric, both values, Δ, ratio, 95% CI and
// significance (the PDF's, one table per later run so that any number of runs fits
// the page).
func cmpDeltaPairTable(c *compare.Comparison, i int) cmpTable {
	label := c.Labels[i]
	head := []string{"segment", "load", "metric", c.Baseline, label, "Δ", "ratio", "95% CI", "significance"}
	var rows [][]string
	for _, d := range c.Deltas {
		for _, md := range d.Metrics {
			row := []string{d.Segment, loadText(d.Load), cmpMetricText(md.Metric), cmpValue(md.Values[0], md.N[0]), cmpValue(md.Values[i], md.N[i])}
			rows = append(rows, append(row, cmpDiffCells(md.Diffs[i-1])...))
		}
	}
	return cmpTable{head, rows}
}

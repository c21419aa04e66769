package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
)

// The tune report's tables, as headers and rows of cell texts, shared by the PDF and
// the HTML report (the workbook writes the same facts as typed cells).

// tuneMarkLetters are the marks column's letters in the PDF (its note explains them).
var tuneMarkLetters = map[string]string{"baseline": "B", "recommended": "R", "front": "F"}

// tuneMarksNote explains the PDF's mark letters.
const tuneMarksNote = "Marks: B the starting configuration (baseline), R the recommended trial, F on the Pareto front."

// tuneResultsTable is every trial's settings and results: trial, generation, marks,
// each parameter, each objective, the capacity (when no objective is it), its method
// and the status. letters writes the marks as letters (the PDF), else as words.
func tuneResultsTable(in *tuneInput, letters bool) ([]string, [][]string) {
	hdr := []string{"trial", "gen", "marks"}
	hdr = append(hdr, in.params...)
	for _, o := range in.objectives {
		hdr = append(hdr, tuneMetricHeader(in, o.Metric))
	}
	withCapacity := !in.capacityIsObjective()
	if withCapacity {
		hdr = append(hdr, tuneMetricHeader(in, in.capacityMetric()))
	}
	hdr = append(hdr, "capacity method", "status")
	var rows [][]string
	for i := range in.trials {
		t := &in.trials[i]
		r := []string{strconv.Itoa(t.Trial), strconv.Itoa(t.Generation), tuneMarksText(in, t, letters)}
		for _, p := range in.params {
			r = append(r, tuneParamCell(t, p))
		}
		for _, o := range in.objectives {
			r = append(r, tuneObjectiveCell(t, o.Metric))
		}
		if withCapacity {
			r = append(r, tuneCapacityText(t))
		}
		rows = append(rows, append(r, tuneMethodText(t), t.Status))
	}
	return hdr, rows
}

// capacityIsObjective reports whether an objective is the capacity itself.
func (in *tuneInput) capacityIsObjective() bool {
	for _, o := range in.objectives {
		if o.Metric == in.capacityMetric() {
			return true
		}
	}
	return false
}

// tuneMarksText is a trial's marks: letters ("R F") or words ("recommended, front").
func tuneMarksText(in *tuneInput, t *rundir.Trial, letters bool) string {
	marks := tuneMarks(in, t)
	if !letters {
		return strings.Join(marks, ", ")
	}
	for i, m := range marks {
		marks[i] = tuneMarkLetters[m]
	}
	return strings.Join(marks, " ")
}

// tuneParamCell is trial t's value of parameter p (tuneNone when it has none).
func tuneParamCell(t *rundir.Trial, p string) string {
	if v, ok := t.Params[p]; ok {
		return tuneParamText(v)
	}
	return tuneNone
}

// tuneObjectiveCell is trial t's value of metric (tuneNone when it has none).
func tuneObjectiveCell(t *rundir.Trial, metric string) string {
	if v, ok := tuneObjective(t, metric); ok {
		return tuneMetricText(metric, v)
	}
	return tuneNone
}

// tuneResourceHeaders are the resources table's headers (tuneResourcesTable).
var tuneResourceHeaders = []string{"trial", "status", "cold start (s)", "peak RSS (MiB)", "GPU memory (MiB, source)",
	"steps", "wall time (s)", "fail class", "fail reason"}

// tuneResourcesTable is every trial's resources and, for a failed one, why it failed;
// reasons longer than reasonRunes are cut (0: whole).
func tuneResourcesTable(in *tuneInput, reasonRunes int) ([]string, [][]string) {
	var rows [][]string
	for i := range in.trials {
		t := &in.trials[i]
		reason := t.FailReason
		if reasonRunes > 0 {
			reason = clipRunes(reason, reasonRunes)
		}
		rows = append(rows, []string{strconv.Itoa(t.Trial), t.Status, num(t.ColdStartS, 1), tuneMiBText(t.PeakRSSMiB),
			tuneGPUMemoryText(t), strconv.Itoa(t.SearchSteps), num(t.WallS, 0), tuneOr(t.FailClass), tuneOr(reason)})
	}
	return tuneResourceHeaders, rows
}

// tuneMiBText formats a memory size in MiB (tuneNone for 0: not measured).
func tuneMiBText(v float64) string {
	if !(v > 0) {
		return tuneNone
	}
	return num(v, 0)
}

// tuneFailed are the failed trials, in order.
func tuneFailed(in *tuneInput) []*rundir.Trial {
	var out []*rundir.Trial
	for i := range in.trials {
		if !in.trials[i].OK() {
			out = append(out, &in.trials[i])
		}
	}
	return out
}

// tuneFailedHeading is a failed trial's heading ("Trial 3: not_ready").
func tuneFailedHeading(t *rundir.Trial) string {
	return fmt.Sprintf("Trial %d (generation %d): %s", t.Trial, t.Generation, tuneOr(t.FailClass))
}

// tuneSpaceHeaders are the search space table's headers (tuneSpaceTable).
var tuneSpaceHeaders = []string{"parameter", "type", "range or values", "step", "scale", "baseline"}

// tuneSpaceTable is the searched space: each parameter's type, range (or values), step,
// scale and baseline value.
func tuneSpaceTable(in *tuneInput) ([]string, [][]string) {
	var rows [][]string
	for _, sp := range in.tune.Space {
		rng := tuneParamText(sp.Min) + " to " + tuneParamText(sp.Max)
		if len(sp.Values) > 0 {
			vals := make([]string, len(sp.Values))
			for i, v := range sp.Values {
				vals[i] = tuneParamText(v)
			}
			rng = strings.Join(vals, ", ")
		}
		step, scale := tuneNone, "linear"
		if sp.Step > 0 {
			step = tuneParamText(sp.Step)
		}
		if sp.Log {
			scale = "log"
		}
		if len(sp.Values) > 0 || sp.Type == plan.TuneCategorical {
			scale = "values"
		}
		base := tuneNone
		if v, ok := in.tune.Baseline[sp.Name]; ok {
			base = tuneParamText(v)
		}
		rows = append(rows, []string{sp.Name, sp.Type, rng, step, scale, base})
	}
	return tuneSpaceHeaders, rows
}

// tunePlanFacts are the search's settings in words: algorithm, objectives, budget,
// seed, constraints, target load and the launch template.
func tunePlanFacts(in *tuneInput) []keyValue {
	t := in.tune
	budget := "the algorithm's own count"
	if t.Budget.Trials > 0 {
		budget = plural(t.Budget.Trials, "trial")
	}
	if t.Budget.WallTime > 0 {
		budget += ", at most " + t.Budget.WallTime.String() + " of wall time"
	}
	out := []keyValue{
		{"Algorithm", tuneAlgorithmText(in)},
		{"Objectives", tuneObjectivesText(in)},
		{"Budget", budget},
		{"Seed", strconv.FormatInt(t.Seed, 10)},
		{"Constraints", tuneOr(strings.Join(t.Constraints, "; "))},
	}
	if t.TargetLoad > 0 {
		out = append(out, keyValue{"Target load", fmt.Sprintf("%d %s (for %s)", t.TargetLoad, in.capacityMetric(), plan.TuneTTFTAtTargetMs)})
	}
	return append(out,
		keyValue{"Launch template", tuneCommandText(t.Launch.Command, t.Launch.Env)},
		keyValue{"Target URL", tuneOr(t.Launch.URL)},
		keyValue{"Ready timeout", t.Launch.ReadyTimeout.String()},
		keyValue{"Started", dateText(in.meta.StartedAt)},
		keyValue{"Host", tuneOr(in.meta.Host)},
		keyValue{"Tool", tuneToolText(in.meta)})
}

// tuneToolText is the llmcap that ran the search (as toolText says it for a run).
func tuneToolText(m *rundir.TuneMeta) string {
	c := m.ToolCommit.String()
	if c == "" || strings.Contains(m.ToolVersion, strings.TrimSuffix(c, "-dirty")) {
		return "llmcap " + m.ToolVersion
	}
	return "llmcap " + m.ToolVersion + " (" + c + ")"
}

// tuneLogLines is the last n lines of a server log tail, each cut to width runes.
func tuneLogLines(tail string, n, width int) []string {
	lines := strings.Split(strings.TrimRight(strings.ReplaceAll(tail, "\r\n", "\n"), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	for i, l := range lines {
		lines[i] = clipRunes(strings.ReplaceAll(l, "\t", "    "), width)
	}
	return lines
}

package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/llmcap/llmcap/analysis"
	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
	"github.com/llmcap/llmcap/shellword"
)

// The tune report's words and tables, shared by its PDF, HTML, workbook and JSON so
// that every format says the same. The answer sentence is the tune package's
// (TuneResult.Answer), shown as written; the rest describes what the files hold.

// Section headings of the tune report.
const (
	headTuneSummary = "Tuning summary"
	headTuneFront   = "The Pareto front"
	headTuneTrials  = "Every trial"
	headTuneFailed  = "Failed trials"
	headTunePlan    = "The search"
)

// tuneNone is a value the tune report does not have (a failed trial's objective, no
// GPU memory found).
const tuneNone = "—"

// tuneOr is s, or tuneNone when s is empty.
func tuneOr(s string) string {
	if strings.TrimSpace(s) == "" {
		return tuneNone
	}
	return s
}

// tuneTitle is the tune report's title.
func tuneTitle(in *tuneInput) string {
	if n := in.meta.Plan.Name; n != "" {
		return "Tuning report: " + n
	}
	return "LLM server tuning report"
}

// tuneMetricLabel names an objective's metric in words ("users within the SLA",
// "TTFT p95 at 32 users").
func tuneMetricLabel(in *tuneInput, metric string) string {
	switch metric {
	case plan.TuneUsers:
		return "users within the SLA"
	case plan.TuneConcurrency:
		return "concurrency within the SLA"
	case plan.TuneCostPerUser:
		return "cost per user"
	case plan.TunePeakRSSMiB:
		return "server peak RSS"
	case plan.TuneGPUMemoryMiB:
		return "GPU memory in use"
	case plan.TuneTTFTAtTargetMs:
		if in.tune.TargetLoad > 0 {
			return fmt.Sprintf("TTFT p95 at %d %s", in.tune.TargetLoad, in.capacityMetric())
		}
		return "TTFT p95 at the target load"
	}
	return strings.ReplaceAll(metric, "_", " ")
}

// tuneMetricUnit is the unit of a metric, from its name: users, concurrency,
// $ / user / month, MiB, ms or s ("" when the name says none).
func tuneMetricUnit(metric string) string {
	switch {
	case metric == plan.TuneUsers:
		return "users"
	case metric == plan.TuneConcurrency:
		return "concurrency"
	case metric == plan.TuneCostPerUser:
		return "$ / user / month"
	case strings.HasSuffix(metric, "_mib"):
		return "MiB"
	case strings.HasSuffix(metric, "_ms"):
		return "ms"
	case strings.HasSuffix(metric, "_s"):
		return "s"
	}
	return ""
}

// tuneMetricHeader is a metric's label with its unit, for a table column or an axis
// ("TTFT p95 at 32 users (ms)").
func tuneMetricHeader(in *tuneInput, metric string) string {
	if u := tuneMetricUnit(metric); u != "" {
		return tuneMetricLabel(in, metric) + " (" + u + ")"
	}
	return tuneMetricLabel(in, metric)
}

// tuneAxisLabel is an objective's axis label: its header and which way is better.
func tuneAxisLabel(in *tuneInput, o plan.TuneObjective) string {
	if o.Maximizes() {
		return tuneMetricHeader(in, o.Metric) + ", more is better"
	}
	return tuneMetricHeader(in, o.Metric) + ", less is better"
}

// tuneMetricText formats a metric's value for a table ("186", "$1.25", "412 ms").
func tuneMetricText(metric string, v float64) string {
	switch tuneMetricUnit(metric) {
	case "users", "concurrency":
		return loadText(v)
	case "$ / user / month":
		return usdCents(v)
	case "MiB":
		return num(v, 0)
	case "ms":
		return ms(v)
	}
	return auto(v)
}

// tuneObjective is trial t's value of an objective's metric; ok is false when the
// trial has none (a failed trial, or a figure it could not measure).
func tuneObjective(t *rundir.Trial, metric string) (v float64, ok bool) {
	v, ok = t.Objectives[metric]
	return v, ok && finite(v)
}

// tuneParamText formats a parameter value as the trial holds it: a whole number
// without decimals, another number as its shortest decimal, anything else as given.
func tuneParamText(v any) string {
	switch x := v.(type) {
	case nil:
		return tuneNone
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1e15 {
			return strconv.FormatFloat(x, 'f', 0, 64)
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	case int64:
		return strconv.FormatInt(x, 10)
	case int:
		return strconv.Itoa(x)
	}
	return fmt.Sprint(v)
}

// tuneSettingsText is a trial's parameters in words ("max_num_seqs 128,
// gpu_memory_utilization 0.9").
func tuneSettingsText(in *tuneInput, t *rundir.Trial) string {
	var parts []string
	for _, p := range in.params {
		if v, ok := t.Params[p]; ok {
			parts = append(parts, p+" "+tuneParamText(v))
		}
	}
	return strings.Join(parts, ", ")
}

// shellWord quotes s as one shell word (shellword.Quote).
func shellWord(s string) string { return shellword.Quote(s) }

// tuneCommandText is a launch command as one line a shell runs: the environment
// entries as KEY=VALUE assignments, then the shell-quoted argv ("—" without argv).
func tuneCommandText(argv, env []string) string {
	if len(argv) == 0 {
		return tuneNone
	}
	words := make([]string, 0, len(env)+len(argv))
	for _, e := range env {
		if k, v, ok := strings.Cut(e, "="); ok && k != "" && shellWord(k) == k {
			words = append(words, k+"="+shellWord(v))
			continue
		}
		words = append(words, shellWord(e))
	}
	for _, a := range argv {
		words = append(words, shellWord(a))
	}
	return strings.Join(words, " ")
}

// capacityNoun is what the capacity counts, for the gain sentence.
func capacityNoun(metric string) string {
	if metric == plan.TuneConcurrency {
		return "concurrency within the SLA"
	}
	return "users"
}

// tuneGainText is the gain over the baseline in words: "+38% users over the starting
// configuration", or why there is none.
func tuneGainText(in *tuneInput) string {
	r := in.result
	base := in.baselineTrial()
	switch {
	case base != nil && !base.OK():
		return fmt.Sprintf("no gain to state: the starting configuration (trial %d) failed", base.Trial)
	case r.Recommended < 0:
		return "no gain to state: no trial measured its configuration"
	case (r.Baseline < 0 || base == nil) && in.tune.Baseline != nil:
		return "no gain to state: the starting configuration (tune.baseline) was not measured"
	case r.Baseline < 0 || base == nil:
		return "no gain to state: the search had no starting configuration (tune.baseline)"
	case r.Recommended == r.Baseline:
		return "+0%: the starting configuration is already the best found"
	}
	return tuneGainPct(r.GainOverBaseline) + " " + capacityNoun(in.capacityMetric()) + " over the starting configuration"
}

// tuneGainPct formats a gain (0.38) as a signed percentage ("+38%"; one decimal under
// 10%).
func tuneGainPct(g float64) string {
	prec := 0
	if math.Abs(g) < 0.1 {
		prec = 1
	}
	s := num(100*g, prec) + "%"
	if g >= 0 {
		s = "+" + s
	}
	return s
}

// baselineTrial is the baseline trial: the result's, else the trial marked Baseline
// (a failed one), else nil.
func (in *tuneInput) baselineTrial() *rundir.Trial {
	if in.result.Baseline >= 0 {
		if t := in.trial(in.result.Baseline); t != nil {
			return t
		}
	}
	for i := range in.trials {
		if in.trials[i].Baseline {
			return &in.trials[i]
		}
	}
	return nil
}

// tuneCountsText is how many trials ran and how they ended.
func tuneCountsText(in *tuneInput) string {
	r := in.result
	return fmt.Sprintf("%s: %d measured %s configuration, %d failed", plural(r.Trials, "trial"), r.OK,
		map[bool]string{true: "its", false: "their"}[r.OK == 1], r.Trials-r.OK)
}

// tuneStopText says why the search stopped.
func tuneStopText(in *tuneInput) string {
	t := in.tune
	switch in.result.Stop {
	case "budget_trials":
		return fmt.Sprintf("the trial budget was used up (tune.budget.trials = %d)", t.Budget.Trials)
	case "budget_wall_time":
		return fmt.Sprintf("the wall-time budget ran out (tune.budget.wall_time = %s): no trial starts after it", t.Budget.WallTime)
	case "done":
		return "the search ran its full course (" + tuneAlgorithmText(in) + ")"
	case "interrupted":
		return "it was interrupted before its budget was used up: the figures are those of the trials run so far"
	case "running":
		return "it is still running: this report shows the trials finished so far"
	case "":
		return "not recorded"
	}
	return in.result.Stop
}

// tuneAlgorithmText names the search algorithm and its size.
func tuneAlgorithmText(in *tuneInput) string {
	t := in.tune
	switch t.Algorithm {
	case plan.TuneNSGA2:
		return "NSGA-II, " + t.NSGA2Size()
	case plan.TuneGrid:
		return "grid: every setting of the space, in order"
	case plan.TuneRandom:
		return fmt.Sprintf("random: %d random settings", t.Budget.Trials)
	}
	return tuneOr(t.Algorithm)
}

// tuneObjectivesText lists the objectives in order with their directions.
func tuneObjectivesText(in *tuneInput) string {
	var parts []string
	for i, o := range in.objectives {
		dir := "minimised"
		if o.Maximizes() {
			dir = "maximised"
		}
		s := tuneMetricHeader(in, o.Metric) + ", " + dir
		if i == 0 {
			s += " (the main objective)"
		}
		parts = append(parts, s)
	}
	if len(parts) == 0 {
		return tuneNone
	}
	return strings.Join(parts, "; ")
}

// tuneTrialRef names a trial with its settings: "trial 7 (generation 2): max_num_seqs 128".
func tuneTrialRef(in *tuneInput, n int) string {
	t := in.trial(n)
	if n < 0 || t == nil {
		return tuneNone
	}
	s := fmt.Sprintf("trial %d (generation %d)", t.Trial, t.Generation)
	if set := tuneSettingsText(in, t); set != "" {
		s += ": " + set
	}
	return s
}

// tuneSummaryFacts are page 1's facts under the answer, the gain and the command.
func tuneSummaryFacts(in *tuneInput) []keyValue {
	r := in.result
	return []keyValue{
		{"Trials", tuneCountsText(in)},
		{"Why it stopped", tuneStopText(in)},
		{"Recommended", tuneTrialRef(in, r.Recommended)},
		{"Starting configuration", tuneTrialRef(in, r.Baseline)},
		{"Pareto front", tuneFrontText(in)},
		{"Objectives", tuneObjectivesText(in)},
		{"Search", tuneAlgorithmText(in)},
	}
}

// tuneFrontText lists the front's trials ("3 trials: 7, 4, 2"), best main objective
// first.
func tuneFrontText(in *tuneInput) string {
	f := in.result.Front
	if len(f) == 0 {
		return tuneNone
	}
	nums := make([]string, len(f))
	for i, n := range f {
		nums[i] = strconv.Itoa(n)
	}
	return plural(len(f), "trial") + ": " + strings.Join(nums, ", ")
}

// tuneNotes are the result's notes, then what reading the directory found: damaged
// lines of trials.jsonl, or more trials there than the result counts.
func tuneNotes(in *tuneInput) []string {
	out := append([]string(nil), in.result.Notes...)
	if in.damage.Any() {
		out = append(out, in.damage.String()+".")
	}
	if n := len(in.trials); n > in.result.Trials {
		out = append(out, fmt.Sprintf("%s holds %d trials, %s counts %d: the last finished after the result was written.",
			rundir.FileTrials, n, rundir.FileTuneResult, in.result.Trials))
	}
	return out
}

// tuneMarks are trial t's marks in words: baseline, recommended, front.
func tuneMarks(in *tuneInput, t *rundir.Trial) []string {
	var out []string
	if t.Baseline || t.Trial == in.result.Baseline {
		out = append(out, "baseline")
	}
	if t.Trial == in.result.Recommended {
		out = append(out, "recommended")
	}
	if in.front[t.Trial] {
		out = append(out, "front")
	}
	return out
}

// tuneCapacityText is a trial's capacity as the table shows it: "≥ 64" for a lower
// bound, "—" for a failed trial.
func tuneCapacityText(t *rundir.Trial) string {
	if !t.OK() {
		return tuneNone
	}
	s := loadText(t.Capacity)
	if t.CapacityMethod == string(analysis.MethodAtLeast) {
		s = "≥ " + s
	}
	return s
}

// tuneMethodText is a trial's capacity method as the table shows it.
func tuneMethodText(t *rundir.Trial) string {
	switch {
	case !t.OK():
		return tuneNone
	case t.Abandoned:
		return tuneOr(t.CapacityMethod) + " (abandoned)"
	}
	return tuneOr(t.CapacityMethod)
}

// tuneGPUMemoryText is a trial's GPU memory with its source, or "—" when none was found.
func tuneGPUMemoryText(t *rundir.Trial) string {
	if t.GPUMemorySource == "" || !(t.GPUMemoryMiB > 0) {
		return tuneNone
	}
	return num(t.GPUMemoryMiB, 0) + " (" + t.GPUMemorySource + ")"
}

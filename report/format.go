package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/llmcap/llmcap/analysis"
	"github.com/llmcap/llmcap/plan"
)

// hoursPerMonth converts a GPU-hour price to a monthly cost (365·24/12).
const hoursPerMonth = 730

// allSegments returns the per-segment analyses followed by the mix (when present).
func allSegments(a *analysis.Analysis) []analysis.SegmentAnalysis {
	out := append([]analysis.SegmentAnalysis(nil), a.Segments...)
	if a.Mix != nil {
		m := *a.Mix
		if m.Segment == "" {
			m.Segment = plan.MixSegment
		}
		out = append(out, m)
	}
	return out
}

// isRate reports whether the run's ladder x axis is a request rate (open loop).
func isRate(a *analysis.Analysis) bool {
	return a.Schedule == plan.ScheduleRate || a.Schedule == plan.ScheduleTrace
}

// isUsers reports whether the run's ladder x axis is users (a users ladder: closed
// populations with think time).
func isUsers(a *analysis.Analysis) bool { return a.Schedule == plan.ScheduleUsers }

// loadLabel is the x-axis label of a ladder: "concurrency", "request rate (req/s)" or
// "users (with think time)".
func loadLabel(a *analysis.Analysis) string {
	switch {
	case isRate(a):
		return "request rate (req/s)"
	case isUsers(a):
		return "users (each thinking " + num(a.Plan.SLA.ThinkTime.Seconds(), 1) + " s between requests)"
	}
	return "concurrency (requests in flight)"
}

// loadName is the short name of the load unit, for sentences and table headers.
func loadName(a *analysis.Analysis) string {
	switch {
	case isRate(a):
		return "req/s"
	case isUsers(a):
		return "users"
	}
	return "concurrency"
}

// capacityLoad is a capacity's load level on the ladder's axis (NaN when unknown):
// users for a users ladder, the rate for an open loop, else the concurrency.
func capacityLoad(a *analysis.Analysis, c analysis.Capacity) float64 {
	v := c.MaxConcurrencyWithinSLA
	switch {
	case c.UsersSource == analysis.UsersMeasured:
		v = c.UsersWithThinkTime
	case isRate(a) && c.MaxRateWithinSLA > 0:
		v = c.MaxRateWithinSLA
	}
	if !finite(v) || v <= 0 {
		return math.NaN()
	}
	return v
}

// finite reports whether v is neither NaN nor ±Inf.
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// num formats v with prec decimals and thousands separators; "–" for NaN/Inf; from
// 10^15 in size, 3 significant digits ("-7.27e+153": a failed fit's R², never a long
// row of digits).
func num(v float64, prec int) string {
	if !finite(v) {
		return "–"
	}
	if math.Abs(v) >= 1e15 {
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
	s := strconv.FormatFloat(math.Abs(v), 'f', prec, 64)
	intPart, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	if v < 0 && strings.Trim(s, "0.") != "" {
		b.WriteByte('-')
	}
	for i, r := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if frac != "" {
		b.WriteByte('.')
		b.WriteString(frac)
	}
	return b.String()
}

// auto formats v with a precision suited to its magnitude (3 significant-ish digits).
func auto(v float64) string {
	av := math.Abs(v)
	switch {
	case !finite(v):
		return "–"
	case av >= 100:
		return num(v, 0)
	case av >= 10:
		return num(v, 1)
	case av >= 1:
		return num(v, 2)
	default:
		return num(v, 3)
	}
}

// loadText formats a load level: whole numbers without decimals.
func loadText(v float64) string {
	if finite(v) && v == math.Trunc(v) && math.Abs(v) < 1e12 {
		return num(v, 0)
	}
	return auto(v)
}

// ms formats a latency in ms, switching to seconds from 10 s.
func ms(v float64) string {
	if finite(v) && v >= 10000 {
		return num(v/1000, 1) + " s"
	}
	return auto(v) + " ms"
}

// pct formats a 0..1 fraction as a percentage.
func pct(v float64) string {
	if !finite(v) {
		return "–"
	}
	return num(100*v, 1) + "%"
}

// usd formats a dollar amount.
func usd(v float64) string {
	if !finite(v) || v == 0 {
		return "–"
	}
	return "$" + num(v, 0)
}

// constraintText renders an SLA constraint as "TTFT p95 ≤ 500 ms".
func constraintText(c plan.Constraint) string {
	return fmt.Sprintf("%s %s ≤ %s", strings.ToUpper(c.Metric), c.Stat, ms(c.ThresholdMs))
}

// constraintsText joins all constraints, or "none" when the SLA is empty.
func constraintsText(cs []plan.Constraint) string {
	if len(cs) == 0 {
		return "none"
	}
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = constraintText(c)
	}
	return strings.Join(parts, ", ")
}

// statOf picks a statistic ("p50", "p95", "mean"…) out of a Summary (NaN if unknown).
func statOf(s analysis.Summary, stat string) float64 {
	switch strings.ToLower(stat) {
	case "p50", "median":
		return s.P50
	case "p90":
		return s.P90
	case "p95":
		return s.P95
	case "p99":
		return s.P99
	case "mean", "avg":
		return s.Mean
	case "max":
		return s.Max
	case "min":
		return s.Min
	}
	return math.NaN()
}

// stepNumber is a step as every table and text a person reads shows it (the XLSX
// sheets, steps.csv, the PDF and Markdown): its zero-based index (rundir.Record.Step,
// analysis.StepStats.Step, the JSON files' "step") counted from 1, as `llmcap plan` and
// the progress lines count (docs/metrics.md, "Step numbers").
func stepNumber(index int) int { return index + 1 }

// bottleneckVerdict is the plain-words verdict for a regime name: the regime's long
// name, then what it means in parentheses.
func bottleneckVerdict(regime analysis.Regime) string {
	switch regime {
	case analysis.RegimeQueue:
		return "queue/admission-bound (requests wait for a free slot or KV cache space; TTFT rises while ITL stays flat)"
	case analysis.RegimePrefill:
		return "prefill-bound (long prompts dominate; TTFT grows with prompt tokens in flight and ITL is inflated)"
	case analysis.RegimeDecode:
		return "decode-bound (ITL rises with the batch size: memory-bandwidth bound)"
	case analysis.RegimeErrors:
		return "errors (requests fail before any latency limit is reached: the error rate breaks the SLA)"
	case analysis.RegimeNone, "":
		return "none (no saturation observed within the ladder)"
	}
	return string(regime)
}

// wholeUsers is a users-per-replica figure as whole users, rounded down (a replica
// cannot serve a fraction of a user); the same figure everywhere in the report.
func wholeUsers(v float64) int {
	if !finite(v) || v <= 0 {
		return 0
	}
	return int(math.Floor(v + 1e-6))
}

// capacityUsers is a capacity's users per replica as whole users: the analysis's
// Users, else UsersWithThinkTime rounded down (older analysis files).
func capacityUsers(c analysis.Capacity) int {
	if c.Users > 0 {
		return c.Users
	}
	return wholeUsers(c.UsersWithThinkTime)
}

// capacityUsersText formats capacityUsers ("–" when zero).
func capacityUsersText(c analysis.Capacity) string {
	if u := capacityUsers(c); u > 0 {
		return num(float64(u), 0)
	}
	return "–"
}

// usersText formats a users-per-replica figure as whole users ("–" when unknown).
func usersText(v float64) string {
	if !finite(v) || v <= 0 {
		return "–"
	}
	return num(float64(wholeUsers(v)), 0)
}

// weightShares maps mix weights to shares of their sum (0..1); weights that do not
// sum to a positive number are returned as they are.
func weightShares(ws []float64) []float64 {
	sum := 0.0
	for _, w := range ws {
		if finite(w) && w > 0 {
			sum += w
		}
	}
	out := make([]float64, len(ws))
	for i, w := range ws {
		out[i] = w
		if sum > 0 {
			out[i] = w / sum
		}
	}
	return out
}

// segmentShares are the analysed segments' mix weights as shares of their sum, in
// a.Segments order.
func segmentShares(a *analysis.Analysis) []float64 {
	ws := make([]float64, len(a.Segments))
	for i, s := range a.Segments {
		ws[i] = s.Weight
	}
	return weightShares(ws)
}

// shareOf is one segment's share of the mix (NaN for the mix itself or an unknown
// segment).
func shareOf(a *analysis.Analysis, segment string) float64 {
	shares := segmentShares(a)
	for i, s := range a.Segments {
		if s.Segment == segment {
			return shares[i]
		}
	}
	return math.NaN()
}

// shareText formats a 0..1 share as a whole percentage ("70%"), one decimal when it
// is not whole.
func shareText(v float64) string {
	if !finite(v) {
		return "–"
	}
	p := 100 * v
	if math.Abs(p-math.Round(p)) < 0.05 {
		return num(math.Round(p), 0) + "%"
	}
	return num(p, 1) + "%"
}

// headlineTarget is the largest target user count of the plan (what the answer's
// sizing names), else the largest what-if target, else 1,000.
func headlineTarget(a *analysis.Analysis) int {
	t := 0
	for _, v := range a.Plan.Report.TargetUsers {
		t = max(t, v)
	}
	if t <= 0 {
		for _, w := range a.WhatIf {
			t = max(t, w.TargetUsers)
		}
	}
	if t <= 0 {
		return 1000
	}
	return t
}

// deploymentGPU is the GPU the deployment runs on, for sentences ("" when unknown).
func deploymentGPU(a *analysis.Analysis) string {
	if a.Plan.Report.GPU != "" {
		return a.Plan.Report.GPU
	}
	return a.Plan.Target.Simulator.GPU
}

// gpusPerReplica is the number of GPUs one replica uses (plan, else tensor parallel, else 1).
func gpusPerReplica(a *analysis.Analysis) int {
	if a.Plan.Report.GPUsPerReplica > 0 {
		return a.Plan.Report.GPUsPerReplica
	}
	if tp := a.Plan.Target.Simulator.TensorParallel; tp > 0 && a.Plan.Target.IsSimulator() {
		return tp
	}
	for _, w := range a.WhatIf {
		if !w.Projected && w.Replicas > 0 && w.GPUs > 0 {
			return max(1, w.GPUs/w.Replicas)
		}
	}
	return 1
}

// gpuHourUSD is the GPU-hour price (plan, else derived from a what-if row, else 0).
func gpuHourUSD(a *analysis.Analysis) float64 {
	if a.Plan.Report.GPUHourUSD > 0 {
		return a.Plan.Report.GPUHourUSD
	}
	for _, w := range a.WhatIf {
		if !w.Projected && w.GPUs > 0 && w.CostPerMonthUSD > 0 {
			return w.CostPerMonthUSD / float64(w.GPUs) / hoursPerMonth
		}
	}
	return 0
}

// headroom is the spare-capacity fraction kept per replica (plan value; 0.2 by default).
func headroom(a *analysis.Analysis) float64 {
	h := a.Plan.Report.Headroom
	if !finite(h) || h < 0 || h >= 1 {
		return 0.2
	}
	return h
}

// title is the report's title (plan report.title, else derived from the plan name).
func title(a *analysis.Analysis) string {
	if a.Plan.Report.Title != "" {
		return a.Plan.Report.Title
	}
	if a.Plan.Name != "" {
		return "Capacity report: " + a.Plan.Name
	}
	return "LLM capacity report"
}

// nanValue is a NaN for "no value".
var nanValue = math.NaN()

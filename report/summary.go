package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/llmcap/llmcap/analysis"
	"github.com/llmcap/llmcap/plan"
)

// keyValue is one labelled number of the executive summary.
type keyValue struct{ Key, Value string }

// keyNumbers lists the headline figures for page 1, the Markdown and the workbook.
func keyNumbers(a *analysis.Analysis) []keyValue {
	c := a.Overall
	src := a.OverallSource
	if src == "" {
		src = "–"
	}
	kv := []keyValue{
		{"Capacity per replica (" + loadName(a) + ")", capacityText(a, c)},
		{"Range (" + rangeKindText(c) + ")", rangeText(c)},
		{"Resampling noise (bootstrap, 95%)", noiseText(c)},
		{"Method", methodText(c.Method)},
		{"Binding constraint", analysis.BindingText(c)},
		{"Bottleneck", orDash(c.Bottleneck)},
		{"Throughput at capacity (" + throughputSource(a, c) + ")", throughputText(c)},
		{usersLabel(c), capacityUsersText(c)},
		{"Headline source", src},
		{"SLA", constraintsText(a.Constraints)},
	}
	return kv
}

// usersLabel labels the users-per-replica figure with where it comes from: "Users per
// replica (measured, think time 10 s)" or "(estimated: X · (R + Z), think time 10 s)".
func usersLabel(c analysis.Capacity) string {
	z := "think time " + num(c.ThinkTimeS, 1) + " s"
	switch c.UsersSource {
	case analysis.UsersMeasured:
		return "Users per replica (measured, " + z + ")"
	case analysis.UsersConverted:
		return "Users per replica (estimated: X · (R + Z), " + z + ")"
	}
	return "Users per replica (" + z + ")"
}

// throughputText is the throughput at capacity in req/s and output tokens/s ("–"
// when there is no capacity point).
func throughputText(c analysis.Capacity) string {
	if !(c.ThroughputAtCapacity > 0) {
		return "–"
	}
	return fmt.Sprintf("%s req/s, %s output tokens/s", auto(c.ThroughputAtCapacity), auto(c.OutputTokensPerSAtCapacity))
}

// capacityText is the capacity load with its unit, or "below the first step".
func capacityText(a *analysis.Analysis, c analysis.Capacity) string {
	x := capacityLoad(a, c)
	if !finite(x) {
		if c.Method == methodBelowFirstStep {
			return "below the first step"
		}
		return "–"
	}
	s := loadText(x) + " " + loadName(a)
	if c.Method == methodAtLeast {
		s = "≥ " + s
	}
	if isRate(a) && c.OfferedRateRps > 0 {
		s += fmt.Sprintf(" served (%s req/s offered)", auto(c.OfferedRateRps))
	}
	return s
}

// warningScope says whether the warnings touch the headline: the headline comes from
// the ladder named by OverallSource, and warnings about other segments' own ladders
// do not change it. A warning's Segment says which ladder it concerns ("" the whole
// run or the headline). Empty when there are no warnings.
func warningScope(a *analysis.Analysis, ws []analysis.Warning) string {
	if len(ws) == 0 {
		return ""
	}
	src := a.OverallSource
	if src == "" {
		return ""
	}
	var others []string
	for _, w := range ws {
		if w.Segment == "" || w.Segment == src {
			return fmt.Sprintf("Some warnings concern the headline itself (the %s ladder or the whole run): read them before using the numbers.", src)
		}
		if !slices.Contains(others, w.Segment) {
			others = append(others, w.Segment)
		}
	}
	what := "the " + src + " ladder"
	if src == plan.MixSegment {
		what = "the weighted-mix ladder"
	}
	return fmt.Sprintf("These warnings concern only the per-segment ladders (%s); the headline comes from %s and is not affected by them.",
		strings.Join(others, ", "), what)
}

// orDash returns s, or "–" when it is empty.
func orDash[S ~string](s S) string {
	if strings.TrimSpace(string(s)) == "" {
		return "–"
	}
	return string(s)
}

// plainNumbers are page 1's key numbers in a manager's words: the users one replica
// serves, the requests in flight and the request rate there, and the SLA with what it
// means. Loads show whole numbers without decimals. The technical figures (range kind,
// bootstrap noise, method, regime, where the throughput comes from) are keyNumbers, in
// the Evidence section.
func plainNumbers(a *analysis.Analysis) []keyValue {
	c := a.Overall
	per := unitNoun(a)
	if g := gpusPerReplica(a); g > 1 {
		per = fmt.Sprintf("replica (%d GPUs)", g)
	}
	kv := []keyValue{}
	if u := capacityUsers(c); u > 0 && c.ThinkTimeS > 0 {
		q := boundWord(c)
		if q == "" && c.UsersSource == analysis.UsersConverted { // an estimate, as the answer says
			q = "about "
		}
		kv = append(kv, keyValue{"Users per " + per + " within SLA", q + num(float64(u), 0) +
			" (who pause " + num(c.ThinkTimeS, 0) + " s between requests)"})
	}
	if x := c.MaxConcurrencyWithinSLA; finite(x) && x > 0 {
		kv = append(kv, keyValue{"Requests in flight at once", boundWord(c) + loadText(x)})
	}
	if t := throughputText(c); t != "–" {
		kv = append(kv, keyValue{"Requests per second at that load", throughputWord(a, c) + t})
	}
	return append(kv, keyValue{"SLA (what counts as fast enough)", slaWords(a.Constraints)})
}

// throughputWord qualifies the throughput at capacity for page 1: "at least " for a
// lower bound, "about " where the queueing model or Little's law (requests in flight ÷
// answer time) gives it rather than a served rate, else "".
func throughputWord(a *analysis.Analysis, c analysis.Capacity) string {
	if w := boundWord(c); w != "" {
		return w
	}
	if isRate(a) {
		return ""
	}
	return "about "
}

// throughputSource says where the throughput at capacity comes from, for the Evidence
// section's label: a rate ladder's served rate, a users ladder's completion rate, or
// the steady state requests in flight ÷ mean E2E (Little's law); the queueing model's
// where the capacity is modelled.
func throughputSource(a *analysis.Analysis, c analysis.Capacity) string {
	var s string
	switch {
	case c.UsersSource == analysis.UsersMeasured:
		s = "the users' completion rate"
	case isRate(a):
		s = "the rate served, at most the rate offered"
	default:
		s = "steady state: requests in flight ÷ mean E2E"
	}
	switch c.Method {
	case methodInterpolated:
		s += ", interpolated"
	case methodModel:
		s += ", modelled"
	case methodAtLeast:
		s += ", at the highest load"
	}
	return s
}

// boundWord qualifies a capacity figure: "at least " for a lower bound, "about " for a
// modelled one, else "".
func boundWord(c analysis.Capacity) string {
	switch c.Method {
	case methodAtLeast:
		return "at least "
	case methodInterpolated, methodModel:
		return "about "
	}
	return ""
}

// unitNoun is what one replica runs on in the sizing rows: "GPU", or "machine" for a
// CPU-only server (report.gpu naming a CPU).
func unitNoun(a *analysis.Analysis) string {
	if len(a.WhatIf) > 0 {
		return analysis.DeviceNoun(a.WhatIf[0].GPU)
	}
	return analysis.DeviceNoun(a.Plan.Report.GPU)
}

// basisText is a sizing row's basis in short words (analysis.SizingBasis, which the
// console summary uses too).
func basisText(a *analysis.Analysis, w analysis.WhatIf) string { return analysis.SizingBasis(a, w) }

// noPrice is what a sizing cell shows for a price or cost that is 0 or unknown.
const noPrice = "—"

// sizingUSD is a sizing row's cost in whole dollars, or noPrice.
func sizingUSD(v float64) string {
	if !finite(v) || v <= 0 {
		return noPrice
	}
	return "$" + num(v, 0)
}

// sizingUSDCents is a sizing row's price or cost per million tokens with cents, or
// noPrice; below $0.10 (an energy cost per million output tokens, $0.0158) to two
// significant digits ("$0.016"), which cents would round to "$0.02" or "$0.00".
func sizingUSDCents(v float64) string {
	if !finite(v) || v <= 0 {
		return noPrice
	}
	return "$" + num(v, usdDecimals(v))
}

// usdDecimals is the decimals a price of v USD shows with: 2 (cents) from $0.10 up,
// else those of two significant digits (3 for $0.0158, 4 for $0.0042).
func usdDecimals(v float64) int {
	if v >= 0.1 {
		return 2
	}
	return 1 - int(math.Floor(math.Log10(v)))
}

// usdSmallNumFmt is the spreadsheet number format of usdDecimals: cents from $0.10,
// two significant digits below (to $0.0010).
const usdSmallNumFmt = `[<0.01]"$"0.0000;[<0.1]"$"0.000;"$"#,##0.00`

// sizingPrice is a sizing row's $/GPU-hour with "*" when the price is assumed.
func sizingPrice(w analysis.WhatIf) string {
	s := sizingUSDCents(w.GPUHourUSD)
	if w.SamePriceAssumed && s != noPrice {
		s += "*"
	}
	return s
}

// sizingHeaders are the sizing table's headings, in GPUs or machines.
func sizingHeaders(a *analysis.Analysis) []string {
	u := unitNoun(a)
	return []string{u, "basis", "users / replica", "target users", "replicas", u + "s", "$ / " + u + "-hour", "cost / month", "$ / M output tokens"}
}

// warningsLine is page 1's one line about the warnings: how many, how many concern the
// headline's own ladder, and where the list is ("" when there are none).
func warningsLine(a *analysis.Analysis, where string) string {
	ws := a.Warnings
	if len(ws) == 0 {
		return ""
	}
	head := 0
	for _, w := range ws {
		if w.Segment == "" || w.Segment == a.OverallSource {
			head++
		}
	}
	s := plural(len(ws), "warning")
	switch {
	case head == len(ws) && head > 1:
		s += ", all about the measurements behind this answer"
	case head == len(ws):
		s += ", about the measurements behind this answer"
	case head > 0:
		s += fmt.Sprintf(" (%d about the measurements behind this answer)", head)
	default:
		s += " (none about the measurements behind this answer)"
	}
	return s + " — see " + where + "."
}

// plural is "1 warning" or "18 warnings".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return num(float64(n), 0) + " " + word + "s"
}

// glossaryTerms explain the Evidence section's jargon once, in plain words.
var glossaryTerms = []keyValue{
	{"TTFT", "time to first token: how long a user waits before the answer starts"},
	{"ITL", "inter-token latency: the gap between streamed tokens (words) of an answer"},
	{"E2E", "end-to-end latency: from sending the request to the answer's last token"},
	{"p95", "the value 95% of requests stay at or under"},
	{"SLA", "the latency targets (and error-rate bound) every load is judged against"},
	{"concurrency, requests in flight", "requests the server holds at once (sent, not yet fully answered)"},
	{"users with think time", "people who send a request, read the answer and pause (the think time) before the next; many users keep few requests in flight"},
	{"queue-bound", "requests wait for a free slot or for KV-cache space; TTFT rises while ITL stays flat"},
	{"prefill-bound", "reading long prompts takes the GPU's time; TTFT grows with the prompt tokens in flight"},
	{"decode-bound", "ITL grows with the batch: each generated token waits for memory bandwidth"},
	{"slots, max_num_seqs", "the number of requests the engine runs at once (vLLM's max_num_seqs; other engines name it otherwise)"},
	{"KV cache", "the GPU memory holding each running request's attention state; when full, requests wait or are preempted"},
	{"bootstrap", "resampling the measured requests to see how much the verdicts could move by chance"},
	{"goodput", "requests per second that met the SLA"},
	{"lower bound", "\"at least\": no load tested broke the SLA, so the true capacity is higher; replicas are then \"at most\""},
	{"range", "where the true capacity lies: between the largest load measured to meet the SLA and the smallest measured to break it, or the queueing model's prediction interval where the model filled in between steps"},
	{"headroom", "the spare share of its users each replica keeps (report.headroom)"},
}

// slaWords is page 1's SLA: the constraints as written ("TTFT p95 ≤ 500 ms, ITL p95 ≤
// 50.0 ms"), then what they mean in plain words ("first word within 500 ms, then
// words every 50 ms or faster, for 95% of requests"); "none" for an empty SLA.
func slaWords(cs []plan.Constraint) string {
	if len(cs) == 0 {
		return constraintsText(cs)
	}
	var parts []string
	same := true
	for i, c := range cs {
		same = same && strings.EqualFold(c.Stat, cs[0].Stat)
		parts = append(parts, constraintWords(c, i > 0))
	}
	if same {
		if w := statWords(cs[0].Stat); w != "" {
			return constraintsText(cs) + ": " + strings.Join(parts, ", ") + ", " + w
		}
		return constraintsText(cs) + ": " + strings.Join(parts, ", ")
	}
	for i, c := range cs {
		if w := statWords(c.Stat); w != "" {
			parts[i] += " (" + w + ")"
		}
	}
	return constraintsText(cs) + ": " + strings.Join(parts, ", ")
}

// constraintWords is one SLA constraint's limit in plain words ("first word within 500
// ms"); then is true after the first constraint ("then words every 50 ms or faster").
func constraintWords(c plan.Constraint, then bool) string {
	t := loadText(c.ThresholdMs) + " ms"
	if c.ThresholdMs >= 10000 {
		t = ms(c.ThresholdMs)
	}
	switch strings.ToLower(c.Metric) {
	case "ttft":
		return "first word within " + t
	case "ttfo":
		return "first output within " + t
	case "itl", "tpot":
		if then {
			return "then words every " + t + " or faster"
		}
		return "words every " + t + " or faster"
	case "e2e":
		return "whole answer within " + t
	}
	return strings.ToUpper(c.Metric) + " within " + t
}

// statWords says which requests a statistic covers: "for 95% of requests", "on
// average", "for half of requests"; "" when it has no plain reading.
func statWords(stat string) string {
	s := strings.ToLower(stat)
	switch {
	case s == "mean" || s == "avg":
		return "on average"
	case s == "p50" || s == "median":
		return "for half of requests"
	case s == "max":
		return "for every request"
	case strings.HasPrefix(s, "p"):
		if n, err := strconv.ParseFloat(s[1:], 64); err == nil && n > 0 && n < 100 {
			return "for " + loadText(n) + "% of requests"
		}
	}
	return ""
}

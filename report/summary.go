package report

import (
	"fmt"
	"slices"
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
		{"Throughput at capacity", throughputText(c)},
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
	s := auto(x) + " " + loadName(a)
	if c.Method == methodAtLeast {
		s = "≥ " + s
	}
	if isRate(a) && c.OfferedRateRps > 0 {
		s += fmt.Sprintf(" served (%s req/s offered)", auto(c.OfferedRateRps))
	}
	return s
}

// glossary explains the report's jargon once, in plain words.
const glossary = "TTFT = time to first token (how long a user waits before the answer starts); " +
	"ITL = inter-token latency (the gap between streamed tokens); p95 = the value 95% of requests stay at or under; " +
	"concurrency = requests in flight at once. The range is where the true capacity lies: between the largest load measured " +
	"to meet the SLA and the smallest measured to break it, or the queueing model's prediction interval where the model " +
	"filled in between steps; the resampling noise (bootstrap of the measured requests) is shown apart."

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

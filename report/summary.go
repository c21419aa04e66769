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

// answer is the one-sentence answer: the analysis's own, else one built from Overall.
func answer(a *analysis.Analysis) string {
	if s := strings.TrimSpace(a.Answer); s != "" {
		return s
	}
	c := a.Overall
	x := capacityLoad(a, c)
	if !finite(x) {
		return "No load level of the ladder met the SLA (" + constraintsText(a.Constraints) + ")."
	}
	gpu := deploymentGPU(a)
	if gpu == "" {
		gpu = "replica"
	}
	atLeast := ""
	if c.Method == methodAtLeast {
		atLeast = "at least "
	}
	return fmt.Sprintf("One %s handles %s%s %s within %s.", gpu, atLeast, auto(x), loadName(a), constraintsText(a.Constraints))
}

// keyNumbers lists the headline figures for page 1, the Markdown and the workbook.
func keyNumbers(a *analysis.Analysis) []keyValue {
	c := a.Overall
	src := a.OverallSource
	if src == "" {
		src = "–"
	}
	kv := []keyValue{
		{"Capacity per replica (" + loadName(a) + ")", capacityText(a, c)},
		{"95% confidence band (resampled requests)", bandText(c)},
		{"Method", methodText(c.Method)},
		{"Binding constraint", orDash(c.LimitingConstraint)},
		{"Bottleneck", orDash(c.Bottleneck)},
		{"Throughput at capacity", throughputText(c)},
		{"Users per replica (think time " + num(c.ThinkTimeS, 1) + " s)", capacityUsersText(c)},
		{"Headline source", src},
		{"SLA", constraintsText(a.Constraints)},
	}
	return kv
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
	"concurrency = requests in flight at once. The 95% confidence band comes from resampling the measured requests (bootstrap)."

// warningScope says whether the warnings touch the headline: the headline comes from
// the ladder named by OverallSource, and warnings about other segments' own ladders
// do not change it. Empty when there are no warnings.
func warningScope(a *analysis.Analysis, ws []string) string {
	if len(ws) == 0 {
		return ""
	}
	src := a.OverallSource
	if src == "" {
		return ""
	}
	var others []string
	for _, w := range ws {
		seg, ok := warningSegment(w)
		if !ok || seg == src {
			return fmt.Sprintf("Some warnings concern the headline itself (the %s ladder or the whole run): read them before using the numbers.", src)
		}
		if !slices.Contains(others, seg) {
			others = append(others, seg)
		}
	}
	what := "the " + src + " ladder"
	if src == plan.MixSegment {
		what = "the weighted-mix ladder"
	}
	return fmt.Sprintf("These warnings concern only the per-segment ladders (%s); the headline comes from %s and is not affected by them.",
		strings.Join(others, ", "), what)
}

// warningSegment extracts the segment a warning is about ("segment NAME, …" or
// "segment NAME: …"); ok is false for run-wide warnings.
func warningSegment(w string) (string, bool) {
	rest, ok := strings.CutPrefix(w, "segment ")
	if !ok {
		return "", false
	}
	end := strings.IndexAny(rest, ",: ")
	if end <= 0 {
		return "", false
	}
	return rest[:end], true
}

// orDash returns s, or "–" when it is empty.
func orDash(s string) string {
	if strings.TrimSpace(s) == "" {
		return "–"
	}
	return s
}

// warnings are the analysis's warnings plus the ones the report derives itself:
// steps not in steady state, error rates above the SLA, projections, extrapolation.
func warnings(a *analysis.Analysis) []string {
	out := slices.Clone(a.Warnings)
	maxErr := a.Plan.SLA.MaxErrorRate
	if maxErr <= 0 {
		maxErr = 0.01
	}
	var unsteady, erroring []string
	for _, seg := range allSegments(a) {
		for _, s := range seg.Steps {
			if !s.SteadyState {
				unsteady = append(unsteady, stepLabel(a, s))
			}
			if s.ErrorRate > maxErr {
				erroring = append(erroring, fmt.Sprintf("%s (%s)", stepLabel(a, s), pct(s.ErrorRate)))
			}
		}
	}
	if len(unsteady) > 0 && !mentions(a.Warnings, "steady state") {
		out = append(out, fmt.Sprintf("Steady state not reached at %d step(s): %s.", len(unsteady), clip(unsteady, 6)))
	}
	if len(erroring) > 0 && !mentions(a.Warnings, "error rate") {
		out = append(out, fmt.Sprintf("Error rate above %s at %d step(s): %s.", pct(maxErr), len(erroring), clip(erroring, 6)))
	}
	switch a.Overall.Method {
	case methodModel:
		out = append(out, "The capacity is a model projection beyond the last measured step, not a measurement.")
	case methodAtLeast:
		out = append(out, "Every step met the SLA: the capacity is the highest load tested, a lower bound; extend the ladder upwards to find the limit.")
	case methodBelowFirstStep:
		if !errorsBound(a) {
			out = append(out, "The SLA already fails at the lowest load measured: extend the ladder downwards.")
		}
	case methodNoData:
		out = append(out, "No measured step had data: the capacity could not be determined.")
	}
	for _, w := range a.WhatIf {
		if w.Projected {
			out = append(out, "What-if rows marked 'projected' are roofline projections to other GPUs, not measurements.")
			break
		}
	}
	return slices.Compact(out)
}

// mentions reports whether any of ws contains phrase (case-insensitive): the analysis
// already warned about it, so the report does not repeat it.
func mentions(ws []string, phrase string) bool {
	for _, w := range ws {
		if strings.Contains(strings.ToLower(w), phrase) {
			return true
		}
	}
	return false
}

// clip joins at most n items, noting how many more there are.
func clip(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:n], ", ") + fmt.Sprintf(" and %d more", len(items)-n)
}

// advice is what to do about the bottleneck: the analysis's advice, else a default.
func advice(a *analysis.Analysis) string {
	if s := strings.TrimSpace(a.Overall.Advice); s != "" {
		return s
	}
	switch a.Overall.Bottleneck {
	case analysis.RegimeErrors:
		return "Fix the failing requests first (see the error breakdown): capacity cannot be measured while the target returns errors."
	case analysis.RegimeQueue:
		return "Add replicas, or raise max_num_seqs if KV cache has room: the GPU still has spare decode capacity."
	case analysis.RegimePrefill:
		return "Use a GPU with more compute (FLOPS), enable chunked prefill / prefix caching, or split long-prompt traffic onto its own replicas."
	case analysis.RegimeDecode:
		return "Use a GPU with more memory bandwidth, quantise the model or the KV cache, or add replicas."
	}
	return "Extend the ladder to higher load to find the limit."
}

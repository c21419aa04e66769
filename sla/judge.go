// Package sla is llmcap's one SLA judge and its one percentile. Judge decides whether a
// step's Sample meets a plan.SLA, bound by bound, with a typed Verdict; Percentile
// (numpy's default "linear" method) and Summarize compute the statistics it compares.
// The analysis (each step's verdict and the capacity search), the sweep's early stop
// and the profiles' knee all call them, so they cannot disagree about a step. It
// imports plan only.
package sla

import (
	"fmt"
	"math"
	"strings"

	"github.com/llmcap/llmcap/plan"
)

// Outcome is how a sample fared against one bound.
type Outcome uint8

// Outcomes of a check.
const (
	// Met: the value is at most the threshold (inclusive: exactly on it passes).
	Met Outcome = iota + 1
	// Broken: the value exceeds the threshold.
	Broken
	// NoData: requests succeeded but none defines the metric; the bound is broken.
	NoData
	// NotApplicable: the bound cannot apply (Sample.NotApplicable); it holds.
	NotApplicable
	// Undetermined: unfinished requests (censored values) leave the statistic only
	// bounded below, at or under the threshold: it could flip either way, so the
	// bound fails (censored.go).
	Undetermined
)

// Check is one bound judged on a sample.
type Check struct {
	Bound   Bound
	Outcome Outcome
	// Value is the measured statistic (ms; the failed fraction for ErrorRate); +Inf for
	// NoData, NaN for NotApplicable. With Censored > 0 it is the censoring-aware
	// estimate (censored.go), a lower bound when Undetermined.
	Value float64
	// Censored counts the unfinished requests whose lower bounds entered the check:
	// those censored for its metric (an unfinished request whose first token came has
	// an exact TTFT, so it is censored for E2E but not for TTFT).
	Censored int
	// Overdue (ErrorRate checks only) is the overdue unfinished requests counted as
	// failed in Value, and Judged the error share's denominator (finished + overdue).
	Overdue Overdue
	Judged  int
}

// Failed reports whether the check breaks its bound (Broken, NoData or Undetermined).
func (c Check) Failed() bool {
	return c.Outcome == Broken || c.Outcome == NoData || c.Outcome == Undetermined
}

// Ratio is Value / Threshold: above 1 the bound is broken, above f it is broken by more
// than a factor f. +Inf for NoData (or a positive value over a zero threshold); NaN for
// NotApplicable.
func (c Check) Ratio() float64 {
	if c.Bound.Threshold == 0 {
		switch {
		case math.IsNaN(c.Value):
			return math.NaN()
		case c.Value > 0:
			return math.Inf(1)
		}
		return 0
	}
	return c.Value / c.Bound.Threshold
}

// String describes the check: "ttft p95 812 ms > 500 ms", "ttft p95 400 ms ≤ 500 ms",
// "ttft p95: no data", "itl p95: not applicable", "error rate 10.0% > 1.0%", "error
// rate 4.8% > 1.0% (5 of 104 requests got no token for ≥ 2.1 s, over twice the
// longest finished request)", "e2e p95 5200 ms ≤ 8000 ms (64 censored)".
func (c Check) String() string { return c.describe("") }

// describe renders the check with the threshold prefixed by scale ("2 × ").
func (c Check) describe(scale string) string {
	rel := "≤"
	if c.Failed() {
		rel = ">"
	}
	if c.Bound.Metric == ErrorRate {
		out := fmt.Sprintf("error rate %.1f%% %s %s%.1f%%", 100*c.Value, rel, scale, 100*c.Bound.Threshold)
		if c.Overdue.N > 0 {
			out += " (" + c.Overdue.Explain(c.Judged) + ")"
		}
		return out
	}
	name := c.Bound.Metric.String() + " " + c.Bound.Stat.String()
	switch c.Outcome {
	case NoData:
		return name + ": no data"
	case NotApplicable:
		return name + ": not applicable"
	case Undetermined:
		return fmt.Sprintf("%s ≥ %.0f ms, undetermined against %s%.0f ms (%d censored)",
			name, c.Value, scale, c.Bound.Threshold, c.Censored)
	}
	out := fmt.Sprintf("%s %.0f ms %s %s%.0f ms", name, c.Value, rel, scale, c.Bound.Threshold)
	if c.Censored > 0 {
		out += fmt.Sprintf(" (%d censored)", c.Censored)
	}
	return out
}

// Verdict is the judge's decision on one sample.
type Verdict struct {
	// Pass: every bound holds (and the sample is not empty).
	Pass bool
	// Empty: no request was judged (none measured, or every one cut off); the verdict
	// fails without checks.
	Empty bool
	// CutOff is the sample's cut-off count (Sample.CutOff), for the description.
	CutOff int
	// Checks are the bounds judged, in Bounds order: the latency bounds (left out when
	// no request succeeded: their data is missing because nothing succeeded, and the
	// error rate is the violation), then the error rate.
	Checks []Check
}

// WorstRatio is the largest Ratio of the verdict's latency bounds that has a finite
// one (0 when none has): how far the sample is from its tightest latency bound.
func (v Verdict) WorstRatio() float64 {
	worst := 0.0
	for _, c := range v.Checks {
		if r := c.Ratio(); c.Bound.Metric != ErrorRate && !math.IsNaN(r) && !math.IsInf(r, 0) && r > worst {
			worst = r
		}
	}
	return worst
}

// Violations returns the checks that fail, in order.
func (v Verdict) Violations() []Check {
	var out []Check
	for _, c := range v.Checks {
		if c.Failed() {
			out = append(out, c)
		}
	}
	return out
}

// Reasons describes why the verdict fails, one entry per violation (Check.String), or
// the empty sample's reason; nil when it passes.
func (v Verdict) Reasons() []string {
	if v.Empty {
		return []string{v.emptyReason()}
	}
	var out []string
	for _, c := range v.Violations() {
		out = append(out, c.String())
	}
	return out
}

// String is "pass" or the reasons joined by "; ".
func (v Verdict) String() string {
	if v.Pass {
		return "pass"
	}
	return strings.Join(v.Reasons(), "; ")
}

func (v Verdict) emptyReason() string {
	if v.CutOff > 0 {
		return fmt.Sprintf("none of %d measured requests ended within the window and grace period", v.CutOff)
	}
	return "no measured requests"
}

// BrokenBy reports whether the sample breaks a bound by more than factor (Ratio >
// factor; the early-stop rule), and how: the first such bound in order, e.g.
// "ttft p95 812 ms > 2 × 300 ms". An empty sample is broken by any factor. A
// not-applicable bound never is.
func (v Verdict) BrokenBy(factor float64) (string, bool) {
	if v.Empty {
		return v.emptyReason(), true
	}
	for _, c := range v.Checks {
		if c.Outcome != NotApplicable && c.Outcome != Undetermined && c.Ratio() > factor {
			return c.describe(fmt.Sprintf("%g × ", factor)), true
		}
	}
	return "", false
}

// Judge decides whether sample s meets spec, bound by bound (Bounds), inclusive: a
// value exactly on its threshold passes. A latency bound is judged on the statistic of
// s's Summary of its metric; with no values it is NotApplicable when
// s.NotApplicable(metric) (ITL of one-token replies), else NoData (broken). When no
// request succeeded only the error rate is judged; an empty sample (no judged request)
// fails as Empty.
func Judge(spec plan.SLA, s Sample) Verdict {
	v := Verdict{CutOff: s.CutOff}
	if s.Requests == 0 {
		v.Empty = true
		return v
	}
	v.Pass = true
	for _, b := range Bounds(spec) {
		if b.Metric != ErrorRate && s.Requests <= s.Errors {
			continue
		}
		c := judgeBound(b, s)
		v.Pass = v.Pass && !c.Failed()
		v.Checks = append(v.Checks, c)
	}
	return v
}

// judgeBound checks one bound on s.
func judgeBound(b Bound, s Sample) Check {
	c := Check{Bound: b}
	if b.Metric == ErrorRate {
		c.Value, c.Overdue, c.Judged = s.ErrorRate(), s.Overdue, s.ErrorJudged()
	} else if x, ok := s.Of(b.Metric).Value(b.Stat); ok {
		if o, cens := s.censored(b.Metric); cens {
			return judgeCensored(b, o, x)
		}
		c.Value = x
	} else if s.NotApplicable(b.Metric) {
		c.Outcome, c.Value = NotApplicable, math.NaN()
		return c
	} else {
		c.Outcome, c.Value = NoData, math.Inf(1)
		return c
	}
	c.Outcome = Met
	if c.Value > b.Threshold {
		c.Outcome = Broken
	}
	return c
}

// String is the outcome's name in analysis.json: "met", "broken", "no_data",
// "not_applicable", "undetermined".
func (o Outcome) String() string {
	switch o {
	case Met:
		return "met"
	case Broken:
		return "broken"
	case NoData:
		return "no_data"
	case NotApplicable:
		return "not_applicable"
	case Undetermined:
		return "undetermined"
	}
	return "unknown"
}

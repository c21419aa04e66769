package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/llmcap/llmcap/analysis"
)

// Capacity methods (analysis.Capacity.Method).
const (
	methodMeasured       = analysis.MethodMeasured
	methodInterpolated   = analysis.MethodInterpolated
	methodModel          = analysis.MethodModel
	methodAtLeast        = analysis.MethodAtLeast
	methodBelowFirstStep = analysis.MethodBelowFirstStep
	methodNoData         = analysis.MethodNoData
)

// slotsNotIdentified is shown instead of a slot count the analysis could not identify.
const slotsNotIdentified = "not identified (no step saturated the server)"

// errorSampleLen is the most runes of an error sample message shown in a table cell.
const errorSampleLen = 80

// shown is s for display: a missing metric (N == 0, every field written as 0) becomes
// all NaN, so tables print "–", CSV/XLSX cells stay empty and charts skip the point.
func shown(s analysis.Summary) analysis.Summary {
	if s.N > 0 {
		return s
	}
	n := math.NaN()
	return analysis.Summary{Mean: n, P50: n, P90: n, P95: n, P99: n, Min: n, Max: n, StdDev: n}
}

// methodText is a capacity method in plain words.
func methodText(m analysis.CapacityMethod) string {
	switch m {
	case methodMeasured:
		return "measured (the largest load that met the SLA)"
	case methodInterpolated:
		return "interpolated by the queueing model between measured steps"
	case methodModel:
		return "projected by the queueing model"
	case methodAtLeast:
		return "at least (no limit reached within the ladder)"
	case methodBelowFirstStep:
		return "SLA missed at the lowest load"
	case methodNoData, "":
		return "no data"
	}
	return string(m)
}

// rangeKindText says what a capacity's range is, for a label.
func rangeKindText(c analysis.Capacity) string {
	switch c.RangeKind {
	case analysis.RangeBracket:
		return "between measured loads"
	case analysis.RangePrediction:
		return "queueing model's prediction interval"
	case analysis.RangeOpen:
		return "open: no limit reached"
	}
	return "–"
}

// noiseText is a capacity's resampling noise, the bootstrap's 95% band ("–" when none).
func noiseText(c analysis.Capacity) string {
	if !(c.NoiseHigh > 0) || !finite(c.NoiseLow) {
		return "–"
	}
	return fmt.Sprintf("%s – %s", loadText(c.NoiseLow), loadText(c.NoiseHigh))
}

// rangeText is the range a capacity lies in: "lo – hi", "≥ lo" when open-ended
// without an upper bound (at_least), "lo – > hi" when open-ended past the model's cap.
func rangeText(c analysis.Capacity) string {
	switch {
	case c.OpenEnded && c.RangeHigh <= 0:
		return "≥ " + loadText(c.RangeLow)
	case c.OpenEnded:
		return fmt.Sprintf("%s – > %s", loadText(c.RangeLow), loadText(c.RangeHigh))
	case c.RangeLow <= 0 && c.RangeHigh <= 0:
		return "–"
	}
	return fmt.Sprintf("%s – %s", loadText(c.RangeLow), loadText(c.RangeHigh))
}

// ciHighCell is a capacity's upper range bound for a workbook cell: empty (nil) when
// there is no upper bound.
func ciHighCell(c analysis.Capacity) any {
	if c.RangeHigh <= 0 {
		return nil
	}
	return nanNil(c.RangeHigh)
}

// slotsText is a fit's slot count with its 95% interval, or slotsNotIdentified.
func slotsText(f *analysis.Fit) string {
	if !f.SlotsIdentified {
		return slotsNotIdentified
	}
	return fmt.Sprintf("%s (%s–%s)", auto(f.Slots), auto(f.SlotsCILow), auto(f.SlotsCIHigh))
}

// speedUpBanner is the warning for a simulator run faster than real time ("" when
// the run was real time).
func speedUpBanner(a *analysis.Analysis) string {
	if !finite(a.SpeedUp) || a.SpeedUp <= 0 || a.SpeedUp == 1 {
		return ""
	}
	return fmt.Sprintf("Simulator ran %s× faster than real time: latencies and capacity are not real-time figures", auto(a.SpeedUp))
}

// errorsBound reports whether failed requests bound the headline capacity.
func errorsBound(a *analysis.Analysis) bool {
	return a.Overall.Bottleneck == analysis.RegimeErrors
}

// errorRows is the run's error breakdown, most frequent class first: class, count and
// the first sample message cut to one line of errorSampleLen runes.
func errorRows(e analysis.ErrorSummary) [][]string {
	classes := make([]string, 0, len(e.Classes))
	for c := range e.Classes {
		classes = append(classes, c)
	}
	slices.SortFunc(classes, func(x, y string) int {
		if d := e.Classes[y] - e.Classes[x]; d != 0 {
			return d
		}
		return strings.Compare(x, y)
	})
	rows := make([][]string, 0, len(classes))
	for _, c := range classes {
		rows = append(rows, []string{c, num(float64(e.Classes[c]), 0), oneLine(e.Samples[c], errorSampleLen)})
	}
	return rows
}

// errorPlainHeaders are page 1's error-table headings (errorPlainRows).
var errorPlainHeaders = []string{"what failed", "count", "sample message"}

// errorPlainRows is page 1's error breakdown: errorRows with each class in plain words
// and, for a client timeout, the plan's own limit ("request timeout (client, 1.5 s)",
// analysis.ErrorClassWords); the class names stay in the Evidence, appendix and
// workbook.
func errorPlainRows(a *analysis.Analysis) [][]string {
	rows := errorRows(a.Errors)
	for _, r := range rows {
		r[0] = analysis.ErrorClassWords(r[0], a.Plan.Target)
	}
	return rows
}

// oneLine collapses s to a single line of at most n runes ("…" when cut; "–" if empty).
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return "–"
	}
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// errorsSummaryText is one sentence about the failed requests of the run.
func errorsSummaryText(e analysis.ErrorSummary) string {
	return fmt.Sprintf("%s of %s measured requests failed (%s).", num(float64(e.Errors), 0), num(float64(e.Requests), 0), pct(e.ErrorRate))
}

// whatIfPrice is a what-if row's $/GPU-hour, with "*" when the same price was assumed.
func whatIfPrice(w analysis.WhatIf) string {
	s := usdCents(w.GPUHourUSD)
	if w.SamePriceAssumed && s != "–" {
		s += "*"
	}
	return s
}

// samePriceNote is the footnote for what-if rows priced with an assumed price ("" when
// none is).
func samePriceNote(ws []analysis.WhatIf) string {
	for _, w := range ws {
		if w.SamePriceAssumed {
			return "* No catalog price for this GPU: the deployment's $/GPU-hour (report.gpu_hour_usd) was assumed."
		}
	}
	return ""
}

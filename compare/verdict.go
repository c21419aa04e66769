package compare

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/llmcap/llmcap/plan"
)

// verdictOf is the comparison's one-sentence answer, the one place its words are
// built: the run that serves the most within the SLA against the baseline (against
// the runner-up when the baseline serves the most), by how much, and at what cost per
// replica; when the two capacities' ranges overlap the difference is said to be within
// the measurement's uncertainty. A capacity that is only a lower bound (RunSummary.
// Bound) is never ranked below another: when the other run is a lower bound the
// verdict has no winner (VerdictLowerBound), and two lower bounds have no ratio
// (VerdictBothLowerBounds). The factor is the ratio of the two figures the sentence
// shows.
func verdictOf(runs []RunSummary) Verdict {
	unit := verdictUnit(runs)
	value := func(r RunSummary) float64 {
		if unit == unitUsers {
			return r.UsersWithThinkTime
		}
		return r.Capacity
	}
	best := 0
	for i := range runs {
		if value(runs[i]) > value(runs[best]) {
			best = i
		}
	}
	other := 0
	if best == 0 {
		other = 1
		for i := 2; i < len(runs); i++ {
			if value(runs[i]) > value(runs[other]) {
				other = i
			}
		}
	}
	// A lower bound below the best cannot be ranked: it is the run to speak of.
	bounded := -1
	for i := range runs {
		if i != best && isLowerBound(runs[i]) && (bounded < 0 || value(runs[i]) > value(runs[bounded])) {
			bounded = i
		}
	}
	if bounded >= 0 {
		other = bounded
	}
	b, o := runs[best], runs[other]
	vb, vo := shown(value(b), unit), shown(value(o), unit)
	v := Verdict{Better: b.Label, Other: o.Label, Unit: unit}
	switch {
	case vb <= 0:
		v = Verdict{Kind: VerdictNoCapacity, Unit: unit}
		v.Sentence = fmt.Sprintf("No run meets the SLA at any load tested (%s): there is no capacity to compare.", labelsOf(runs))
		return v
	case isLowerBound(b) && isLowerBound(o):
		v = Verdict{Kind: VerdictBothLowerBounds, Unit: unit}
		v.Sentence = fmt.Sprintf("No ratio: %s and %s both met the SLA at every load tested, so each capacity is only a lower bound "+
			"(%s: at least %s, %s; %s: at least %s, %s). Extend both ladders (%s) to find their limits.",
			b.Label, o.Label, b.Label, amountUnit(vb, unit), boundWords(b), o.Label, amountUnit(vo, unit), boundWords(o), extendHow(b))
		return v
	case isLowerBound(o):
		v = Verdict{Kind: VerdictLowerBound, Unit: unit}
		v.Sentence = fmt.Sprintf("No winner: %s's capacity is only known to be at least %s (%s), so it may match or exceed %s's %s. %s",
			o.Label, amountUnit(vo, unit), boundWords(o), b.Label, amountUnit(vb, unit), boundAdvice(o))
		return v
	case sameLoad(vb, vo):
		v = Verdict{Kind: VerdictSame, Unit: unit, Factor: 1}
		v.Sentence = fmt.Sprintf("%s and %s serve the same %s within the SLA (%s): no difference.",
			b.Label, o.Label, unit, amount(vb, unit))
		return v
	}
	v.CostRatio = costRatio(b, o)
	bound := ""
	if isLowerBound(b) {
		bound = "; " + b.Label + "'s is a lower bound: " + boundWords(b)
	}
	if vo <= 0 {
		v.Kind = VerdictBetter
		v.Sentence = fmt.Sprintf("%s serves %s%s within the SLA%s %s; %s meets the SLA at no load tested.",
			b.Label, atLeast(b), amountUnit(vb, unit), parenthesised(bound), costWords(b, o, v.CostRatio), o.Label)
		return v
	}
	v.Factor = vb / vo
	head := fmt.Sprintf("%s serves %s%s× the %s of %s within the SLA (%s against %s%s)", b.Label, atLeast(b),
		factorText(v.Factor), unit, o.Label, amount(vb, unit), amount(vo, unit), bound)
	if overlap(b, o) {
		v.Kind = VerdictUncertain
		v.Sentence = fmt.Sprintf("%s, but the difference is within the measurement's uncertainty: their capacity ranges (%s and %s) overlap.",
			head, rangeUnitText(b), rangeUnitText(o))
		return v
	}
	v.Kind = VerdictBetter
	v.Sentence = head + " " + costWords(b, o, v.CostRatio) + "."
	return v
}

// isLowerBound reports whether r's capacity is a lower bound (it met the SLA).
func isLowerBound(r RunSummary) bool { return r.Bound != BoundNone && r.Basis != BasisNone }

// parenthesised is "; words" as " (words)", "" as "".
func parenthesised(s string) string {
	if s == "" {
		return ""
	}
	return " (" + strings.TrimPrefix(s, "; ") + ")"
}

// boundWords say why r's capacity is a lower bound, on its ladder's axis ("every load
// tested, up to 64 concurrent requests, met the SLA").
func boundWords(r RunSummary) string {
	hi := loadUnitText(r.HighestLoad, r.Schedule)
	switch r.Bound {
	case BoundModelCap:
		return "the queueing model's projection, capped at 2× the highest load tested of " + hi
	case BoundInterrupted:
		return fmt.Sprintf("the run was %s after %d of %d steps, every finished step meeting the SLA", runState(r), r.StepsCompleted, r.StepsPlanned)
	}
	return "every load tested, up to " + hi + ", met the SLA"
}

// runState is r's state in words ("interrupted" when unknown).
func runState(r RunSummary) string {
	if r.RunState == "" {
		return "interrupted"
	}
	return r.RunState
}

// boundAdvice says how to find the limit of r, a lower bound.
func boundAdvice(r RunSummary) string {
	if r.Bound == BoundInterrupted {
		return fmt.Sprintf("Finish %s's ladder (llmcap sweep --resume %s) to find its limit.", r.Label, r.Dir)
	}
	return fmt.Sprintf("Extend %s's ladder beyond %s (%s) to find its limit.", r.Label, loadUnitText(r.HighestLoad, r.Schedule), extendHow(r))
}

// extendHow names the plan keys that extend r's ladder.
func extendHow(r RunSummary) string {
	steps := "ladder.concurrency"
	switch r.Schedule {
	case plan.ScheduleRate:
		steps = "ladder.rate"
	case plan.ScheduleUsers:
		steps = "ladder.users"
	}
	return "a higher ladder.search.max, or more " + steps + " steps"
}

// loadUnitText is a load on schedule's axis with its unit ("64 concurrent requests").
func loadUnitText(v float64, schedule string) string {
	switch schedule {
	case plan.ScheduleRate:
		return strconv.FormatFloat(v, 'f', 2, 64) + " req/s"
	case plan.ScheduleUsers:
		return strconv.FormatFloat(v, 'f', -1, 64) + " users"
	}
	return strconv.FormatFloat(v, 'f', -1, 64) + " concurrent requests"
}

// rangeUnitText is rangeText with the unit of r's ladder's axis, so that a range on a
// concurrency ladder is never read as users.
func rangeUnitText(r RunSummary) string {
	t := rangeText(r)
	switch r.Schedule {
	case plan.ScheduleRate:
		return t + " req/s"
	case plan.ScheduleUsers:
		return t + " users"
	}
	return t + " concurrent requests"
}

// Verdict units: users when every run has users, else the ladder's load.
const unitUsers = "users"

// verdictUnit is what the verdict counts: users when every run converted or measured
// users, else the ladder's load when every run has the same schedule, else users.
func verdictUnit(runs []RunSummary) string {
	all := true
	for _, r := range runs {
		all = all && r.UsersWithThinkTime > 0
	}
	if all {
		return unitUsers
	}
	for _, r := range runs[1:] {
		if r.Schedule != runs[0].Schedule {
			return unitUsers
		}
	}
	switch runs[0].Schedule {
	case plan.ScheduleRate:
		return "request rate"
	case plan.ScheduleUsers:
		return unitUsers
	}
	return "concurrent requests"
}

// overlap reports whether two runs' capacity ranges overlap (an open range has no
// upper end); runs on different ladders are not compared by range.
func overlap(a, b RunSummary) bool {
	if a.Schedule != b.Schedule {
		return false
	}
	hi := func(r RunSummary) float64 {
		if r.OpenEnded && r.RangeHigh == 0 {
			return math.Inf(1)
		}
		return math.Max(r.RangeHigh, r.Capacity)
	}
	lo := func(r RunSummary) float64 { return math.Min(r.RangeLow, r.Capacity) }
	return lo(a) <= hi(b) && lo(b) <= hi(a)
}

// costRatio is a's cost per replica-hour over b's (0 when either has no price).
func costRatio(a, b RunSummary) float64 {
	pa, pb := a.ReplicaHourUSD(), b.ReplicaHourUSD()
	if pa <= 0 || pb <= 0 {
		return 0
	}
	return pa / pb
}

// costWords says what the better run a costs against b: the same, or a ratio, per
// replica ($ a month); the same hardware when there is no price.
func costWords(a, b RunSummary, ratio float64) string {
	switch {
	case ratio > 0 && math.Abs(ratio-1) < 0.005:
		return fmt.Sprintf("at the same cost ($%s a month per replica)", money(a.ReplicaHourUSD()*hoursPerMonth))
	case ratio > 0:
		return fmt.Sprintf("at %s× the cost per replica ($%s against $%s a month)", factorText(ratio),
			money(a.ReplicaHourUSD()*hoursPerMonth), money(b.ReplicaHourUSD()*hoursPerMonth))
	case a.GPU != "" && a.GPU == b.GPU && a.GPUsPerReplica() == b.GPUsPerReplica() && a.GPUsPerReplica() > 0:
		return fmt.Sprintf("on the same hardware (%d × %s per replica; no GPU price to compare costs)", a.GPUsPerReplica(), a.GPU)
	}
	return "(no GPU price: costs not compared)"
}

// atLeast is "at least " for a capacity that is a lower bound (every load passed).
func atLeast(r RunSummary) string {
	if r.OpenEnded {
		return "at least "
	}
	return ""
}

// shown is v as the verdict shows it: a rate to 0.01 req/s; users and requests whole
// (rounded down) from 10, to 0.1 below, so a small capacity is not shown as 0 or 1
// when it is 1.9. The verdict's factor is the ratio of two shown figures.
func shown(v float64, unit string) float64 {
	switch {
	case unit == "request rate":
		return math.Round(v*100) / 100
	case v >= 10:
		return math.Floor(v + 1e-9)
	}
	return math.Floor(v*10+1e-9) / 10
}

// amount is a shown figure in unit (whole users and requests from 10).
func amount(v float64, unit string) string {
	if unit == "request rate" {
		return strconv.FormatFloat(v, 'f', 2, 64) + " req/s"
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// amountUnit is amount with its unit ("64 users", "32 concurrent requests").
func amountUnit(v float64, unit string) string {
	if unit == "request rate" {
		return amount(v, unit)
	}
	return amount(v, unit) + " " + unit
}

// factorText is a ratio to two significant figures ("2.4", "12").
func factorText(f float64) string {
	if f >= 10 {
		return strconv.FormatFloat(math.Round(f), 'f', 0, 64)
	}
	return strconv.FormatFloat(f, 'f', 1, 64)
}

// RangeText is a capacity's range on its ladder's axis ("32–63", "≥ 64").
func RangeText(r RunSummary) string { return rangeText(r) }

func rangeText(r RunSummary) string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	if r.Schedule == plan.ScheduleRate {
		f = func(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }
	}
	switch {
	case r.Basis == BasisNone:
		return "–"
	case r.OpenEnded && r.RangeHigh == 0:
		return "≥ " + f(r.RangeLow)
	case r.RangeHigh <= r.RangeLow:
		return f(r.Capacity)
	}
	return f(r.RangeLow) + "–" + f(r.RangeHigh)
}

func money(v float64) string {
	if v >= 100 {
		return strconv.FormatFloat(math.Round(v), 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

func labelsOf(runs []RunSummary) string {
	l := make([]string, len(runs))
	for i, r := range runs {
		l[i] = r.Label
	}
	return strings.Join(l, ", ")
}

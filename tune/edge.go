package tune

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
)

// edgeNote says which of the recommended trial's numeric parameters sit at an end of
// the range the plan's tune.space allows: the best setting may lie beyond it, so a
// wider range may serve more. It is "" when none does (or there is no recommendation,
// or no space to compare with); categorical parameters have no ends.
func edgeNote(rec *rundir.Trial, sp *space) string {
	if rec == nil || sp == nil || len(rec.Point) != len(sp.params) {
		return ""
	}
	var ends []string
	for i, p := range sp.params {
		lo, hi, ok := numericRange(p)
		v, isNum := asNumber(sp.value(i, rec.Point[i]))
		if !ok || !isNum || hi <= lo {
			continue
		}
		tol := 1e-9 * math.Max(1, hi-lo)
		rng := fmt.Sprintf("(%s–%s)", numText(lo), numText(hi))
		switch {
		case v >= hi-tol:
			ends = append(ends, fmt.Sprintf("%s=%s is the largest value its range allows %s", p.Name, sp.text(i, rec.Point[i]), rng))
		case v <= lo+tol:
			ends = append(ends, fmt.Sprintf("%s=%s is the smallest value its range allows %s", p.Name, sp.text(i, rec.Point[i]), rng))
		}
	}
	if len(ends) == 0 {
		return ""
	}
	which := "that range"
	if len(ends) > 1 {
		which = "those ranges"
	}
	return "The recommended setting is at the edge of the search space: " + strings.Join(ends, "; ") +
		". A better one may lie beyond it: widen " + which + " in tune.space (as far as the engine allows) and tune again."
}

// numericRange is the smallest and largest value an int or float parameter can take
// (a range's last step, a listed set's extremes); ok is false for a categorical one.
func numericRange(p plan.TuneParam) (lo, hi float64, ok bool) {
	if p.Type == plan.TuneCategorical {
		return 0, 0, false
	}
	if len(p.Values) > 0 {
		lo, hi = math.Inf(1), math.Inf(-1)
		for _, v := range p.Values {
			if f, isNum := asNumber(v); isNum {
				lo, hi = math.Min(lo, f), math.Max(hi, f)
			}
		}
		return lo, hi, lo <= hi
	}
	lo, hi = p.Min, p.Max
	step := p.Step
	if step == 0 && p.Type == plan.TuneInt {
		step = 1
	}
	if step > 0 && !p.Log {
		hi = lo + math.Floor((hi-lo)/step+1e-9)*step
	}
	return lo, hi, true
}

// numText writes a range end as the plan would: 16, 0.9, 8192.
func numText(v float64) string { return strconv.FormatFloat(v, 'g', 12, 64) }

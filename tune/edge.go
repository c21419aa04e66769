package tune

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
	"github.com/llmcap/llmcap/tune/nsga2"
)

// edgeNote says which of the recommended trial's numeric parameters sit at an end of
// what the plan's tune.space allows (a range's last or first step, a listed set's
// largest or smallest value): the best setting may lie beyond, so a wider space may
// serve more. A parameter is left out when a measured trial with every other parameter
// the same and this one further inside scores as well on the main objective (the
// recommendation then won there on a later objective, not by sitting at the end).
// Categorical parameters have no ends. It is "" when no parameter is at an end, or
// without a recommendation or a space.
func edgeNote(objs []planObjective, trials []rundir.Trial, rec *rundir.Trial, sp *space) string {
	if rec == nil || sp == nil || len(objs) == 0 {
		return ""
	}
	pt := rec.Point
	if len(pt) != len(sp.params) {
		var err error
		if pt, err = sp.point(rec.Params); err != nil {
			return ""
		}
	}
	var ends, fixes []string
	for i, p := range sp.params {
		e, ok := paramEnds(p)
		v, isNum := asNumber(sp.value(i, pt[i]))
		if !ok || !isNum || e.hi <= e.lo {
			continue
		}
		tol := 1e-9 * (e.hi - e.lo)
		top := v >= e.hi-tol
		if !top && v > e.lo+tol {
			continue
		}
		if flatInward(objs[0].Metric, trials, rec, sp, pt, i, v, top) {
			continue
		}
		ends = append(ends, fmt.Sprintf("%s=%s is the %s %s", p.Name, numText(v), e.word(top), e.text))
		fixes = append(fixes, e.fix(p.Name, top))
	}
	if len(ends) == 0 {
		return ""
	}
	return "The recommended setting is at the edge of the search space: " + strings.Join(ends, "; ") +
		". A better setting may lie beyond: widen tune.space there (" + strings.Join(fixes, "; ") +
		"), as far as the engine allows, and tune again."
}

// flatInward reports whether an OK trial equal to rec in every parameter but i, with i
// strictly further inside than v (below it at the top end, above it at the bottom),
// meets rec's value of the main objective: the objective does not rise toward the end.
func flatInward(main string, trials []rundir.Trial, rec *rundir.Trial, sp *space, pt nsga2.Point, i int, v float64, top bool) bool {
	best, ok := rec.Objectives[main]
	if !ok {
		return false
	}
	for k := range trials {
		tr := &trials[k]
		if tr.Trial == rec.Trial || !tr.OK() || len(tr.Point) != len(pt) {
			continue
		}
		x, ok := tr.Objectives[main]
		w, isNum := asNumber(sp.value(i, tr.Point[i]))
		if !ok || !isNum || (top && w >= v) || (!top && w <= v) || !sameElsewhere(sp, tr.Point, pt, i) {
			continue
		}
		if math.Abs(x-best) <= 1e-9*math.Max(1, math.Abs(best)) {
			return true
		}
	}
	return false
}

// sameElsewhere reports whether a and b give every parameter but i the same value.
func sameElsewhere(sp *space, a, b nsga2.Point, i int) bool {
	for j := range sp.params {
		if j != i && sp.text(j, a[j]) != sp.text(j, b[j]) {
			return false
		}
	}
	return true
}

// ends are the extremes an int or float parameter can take and how to write them.
type ends struct {
	lo, hi float64
	listed bool   // a listed set of values, not a range
	text   string // "(16 to 96 in steps of 16)", "(1024, 2048, 4096, 8192)"
}

// word is "largest value its range allows" or "smallest of its listed values".
func (e ends) word(top bool) string {
	w := "smallest"
	if top {
		w = "largest"
	}
	if e.listed {
		return w + " of its listed values"
	}
	return w + " value its range allows"
}

// fix is what to change in the plan: "raise max_num_seqs's max", "add a smaller value
// to max_num_batched_tokens's values".
func (e ends) fix(name string, top bool) string {
	switch {
	case e.listed && top:
		return "add a larger value to " + name + "'s values"
	case e.listed:
		return "add a smaller value to " + name + "'s values"
	case top:
		return "raise " + name + "'s max"
	}
	return "lower " + name + "'s min"
}

// paramEnds is the smallest and largest value an int or float parameter can take: a
// listed set's extremes, or a range's Min and its last step (Min + k·Step ≤ Max, with
// or without Log: Log changes how the search samples, not the grid); ok is false for
// a categorical parameter.
func paramEnds(p plan.TuneParam) (e ends, ok bool) {
	if p.Type == plan.TuneCategorical {
		return e, false
	}
	if len(p.Values) > 0 {
		e.lo, e.hi, e.listed = math.Inf(1), math.Inf(-1), true
		var vals []float64
		for _, v := range p.Values {
			if f, isNum := asNumber(v); isNum {
				e.lo, e.hi, vals = math.Min(e.lo, f), math.Max(e.hi, f), append(vals, f)
			}
		}
		slices.Sort(vals)
		parts := make([]string, len(vals))
		for i, f := range vals {
			parts[i] = numText(f)
		}
		e.text = "(" + strings.Join(parts, ", ") + ")"
		return e, e.lo <= e.hi
	}
	e.lo, e.hi = p.Min, p.Max
	step := p.Step
	if step == 0 && p.Type == plan.TuneInt {
		step = 1
	}
	if step > 0 {
		e.hi = e.lo + math.Floor((e.hi-e.lo)/step+1e-9)*step
	}
	e.text = "(" + numText(e.lo) + " to " + numText(e.hi)
	if step > 0 && (p.Type != plan.TuneInt || step != 1) {
		e.text += " in steps of " + numText(step)
	}
	e.text += ")"
	return e, true
}

// numText writes a value as the plan would: 16, 0.9, 8192, 0.00001 (to 12 significant
// digits, so that a stepped float's 0.8999999999999999 reads 0.9).
func numText(v float64) string {
	r, err := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 12, 64), 64)
	if err != nil {
		r = v
	}
	return strconv.FormatFloat(r, 'f', -1, 64)
}

package tune

import (
	"fmt"
	"strings"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/tune/nsga2"
)

// Describe says in a few lines what the plan's tune will do (for `llmcap plan`): the
// space and its size, the algorithm and how many trials, the objectives and the
// template; nil without a tune section.
func Describe(p *plan.Plan) []string {
	tu := p.Tune
	if tu == nil {
		return nil
	}
	sp, err := newSpace(tu)
	if err != nil {
		return []string{"tune: " + err.Error()}
	}
	var params []string
	for _, q := range tu.Space {
		params = append(params, paramRange(q))
	}
	size := "a continuous space"
	if pts, err := nsga2.Grid(sp.search); err == nil {
		size = plural(len(pts), "setting")
	}
	objs := make([]string, len(tu.Objectives))
	for i, o := range tu.Objectives {
		arrow := "↓"
		if o.Maximizes() {
			arrow = "↑"
		}
		objs[i] = o.Metric + " " + arrow
	}
	out := []string{
		fmt.Sprintf("tune: %s over %s (%s)", tu.Algorithm, strings.Join(params, ", "), size),
		fmt.Sprintf("tune trials: %s; objectives: %s", trialsText(tu, size), strings.Join(objs, ", ")),
		"tune launch: " + CommandLine(tu.Launch.Env, tu.Launch.Command),
	}
	if len(tu.Constraints) > 0 {
		out = append(out, "tune constraints: "+strings.Join(tu.Constraints, "; "))
	}
	return append(out, "each trial: the server started and awaited (at most "+tu.Launch.ReadyTimeout.String()+
		"), then the capacity search below against it, then stopped")
}

func trialsText(tu *plan.Tune, size string) string {
	var s string
	switch tu.Algorithm {
	case plan.TuneGrid:
		s = "every one of the " + size
	case plan.TuneRandom:
		s = plural(tu.Budget.Trials, "random setting")
	default:
		s = tu.NSGA2Size()
	}
	if tu.Baseline != nil {
		s += ", after the baseline"
	}
	if tu.Budget.Trials > 0 {
		s += fmt.Sprintf(", at most %s", plural(tu.Budget.Trials, "trial"))
	}
	if tu.Budget.WallTime > 0 {
		s += ", at most " + tu.Budget.WallTime.String()
	}
	return s
}

func paramRange(q plan.TuneParam) string {
	if len(q.Values) > 0 {
		vals := make([]string, len(q.Values))
		for i, v := range q.Values {
			vals[i] = fmt.Sprint(v)
		}
		return q.Name + " ∈ {" + strings.Join(vals, ", ") + "}"
	}
	s := fmt.Sprintf("%s %g–%g", q.Name, q.Min, q.Max)
	if q.Step > 0 {
		s += fmt.Sprintf(" step %g", q.Step)
	}
	if q.Log {
		s += " (log)"
	}
	return s
}

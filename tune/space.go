package tune

import (
	"fmt"
	"math"
	"strconv"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/tune/nsga2"
)

// space maps the plan's tune.space onto the search's coordinates: an int or float
// range is its own value, a categorical or a listed set of values the index of its
// value.
type space struct {
	params      []plan.TuneParam
	constraints []plan.TuneConstraint
	search      nsga2.Space
}

// newSpace builds the search space of t (a validated plan's). Errors: a constraint that
// does not parse (Validate refuses it first).
func newSpace(t *plan.Tune) (*space, error) {
	s := &space{params: t.Space}
	for _, c := range t.Constraints {
		pc, err := plan.ParseTuneConstraint(c)
		if err != nil {
			return nil, fmt.Errorf("tune.constraints %q: %w", c, err)
		}
		s.constraints = append(s.constraints, pc)
	}
	for _, p := range t.Space {
		s.search.Params = append(s.search.Params, searchParam(p))
	}
	if len(s.constraints) > 0 {
		s.search.Feasible = func(pt nsga2.Point) bool { return s.feasible(pt) }
	}
	return s, nil
}

// searchParam is p's dimension of the search: a categorical's choices; a listed set of
// int or float values the index of its value, an ordered Int (their order is the
// list's, so that crossover and mutation move between neighbours); a range itself.
func searchParam(p plan.TuneParam) nsga2.Param {
	switch {
	case p.Type == plan.TuneCategorical:
		return nsga2.Param{Name: p.Name, Kind: nsga2.Categorical, Choices: len(p.Values)}
	case len(p.Values) > 0:
		return nsga2.Param{Name: p.Name, Kind: nsga2.Int, Min: 0, Max: float64(len(p.Values) - 1), Step: 1}
	}
	if p.Type == plan.TuneInt {
		step := p.Step
		if step == 0 {
			step = 1
		}
		return nsga2.Param{Name: p.Name, Kind: nsga2.Int, Min: p.Min, Max: p.Max, Step: step, Log: p.Log}
	}
	return nsga2.Param{Name: p.Name, Kind: nsga2.Float, Min: p.Min, Max: p.Max, Step: p.Step, Log: p.Log}
}

// feasible reports whether every constraint holds at pt.
func (s *space) feasible(pt nsga2.Point) bool {
	vals := s.numeric(pt)
	for _, c := range s.constraints {
		if ok, known := c.Holds(vals); !ok || !known {
			return false
		}
	}
	return true
}

// numeric returns the numeric parameters' values at pt, by name.
func (s *space) numeric(pt nsga2.Point) map[string]float64 {
	out := map[string]float64{}
	for i, p := range s.params {
		if v, ok := asNumber(s.value(i, pt[i])); ok {
			out[p.Name] = v
		}
	}
	return out
}

// value is parameter i's value at coordinate x: int64 for an int, float64 for a float,
// the listed value for a categorical (or a listed set).
func (s *space) value(i int, x float64) any {
	p := s.params[i]
	if len(p.Values) > 0 {
		v := p.Values[min(max(int(x), 0), len(p.Values)-1)]
		if p.Type == plan.TuneInt {
			f, _ := asNumber(v)
			return int64(f)
		}
		if p.Type == plan.TuneFloat {
			f, _ := asNumber(v)
			return f
		}
		return v
	}
	if p.Type == plan.TuneInt {
		return int64(math.Round(x))
	}
	return x
}

// params returns the parameters at pt, by name.
func (s *space) paramsAt(pt nsga2.Point) map[string]any {
	out := map[string]any{}
	for i, p := range s.params {
		out[p.Name] = s.value(i, pt[i])
	}
	return out
}

// point returns the coordinates of the parameter values vals (a baseline). Errors: a
// parameter missing or its value not in the space.
func (s *space) point(vals map[string]any) (nsga2.Point, error) {
	pt := make(nsga2.Point, len(s.params))
	for i, p := range s.params {
		v, ok := vals[p.Name]
		if !ok {
			return nil, fmt.Errorf("tune.baseline: no value for %s", p.Name)
		}
		if err := p.Contains(v); err != nil {
			return nil, fmt.Errorf("tune.baseline.%s: %w", p.Name, err)
		}
		if len(p.Values) == 0 {
			pt[i], _ = asNumber(v)
			continue
		}
		for j, c := range p.Values {
			if fmt.Sprint(c) == fmt.Sprint(v) || sameNumber(c, v) {
				pt[i] = float64(j)
			}
		}
	}
	return pt, nil
}

// text is parameter i's value at x as the launch template writes it.
func (s *space) text(i int, x float64) string {
	switch v := s.value(i, x).(type) {
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	default:
		return fmt.Sprint(v)
	}
}

func asNumber(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case float64:
		return x, true
	case string:
		f, err := strconv.ParseFloat(x, 64)
		return f, err == nil
	}
	return 0, false
}

func sameNumber(a, b any) bool {
	x, ok1 := asNumber(a)
	y, ok2 := asNumber(b)
	return ok1 && ok2 && x == y
}

// SearchSpace is the search space of p's tune section as the algorithm sees it
// (scripts/tunebench replays a grid's trials through it). Errors: no tune section, a
// constraint that does not parse.
func SearchSpace(p *plan.Plan) (nsga2.Space, error) {
	if p.Tune == nil {
		return nsga2.Space{}, fmt.Errorf("tune: the plan has no tune section")
	}
	s, err := newSpace(p.Tune)
	if err != nil {
		return nsga2.Space{}, err
	}
	return s.search, nil
}

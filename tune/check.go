package tune

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/tune/nsga2"
)

// check refuses, before anything is launched or written, a tune the plan's validation
// cannot see is impossible: a grid too large or a space no setting of which meets the
// constraints (the algorithm's own errors), or a baseline that breaks a constraint.
func (t *Tuner) check() error {
	tu := t.plan.Tune
	switch tu.Algorithm {
	case plan.TuneGrid:
		if _, err := nsga2.Grid(t.space.search); err != nil {
			return fmt.Errorf("tune.space: %w (use coarser steps or fewer values)", err)
		}
	default:
		if _, err := nsga2.New(t.space.search, directions(tu.Objectives), nsgaOptions(tu)); err != nil {
			return fmt.Errorf("tune.space and tune.constraints: %w", err)
		}
	}
	if tu.Baseline != nil {
		pt, err := t.space.point(tu.Baseline)
		if err != nil {
			return err
		}
		if !t.space.feasible(pt) {
			return fmt.Errorf("tune.baseline: %s breaks tune.constraints %v", paramsText(t.space, pt), tu.Constraints)
		}
	}
	return nil
}

// planDiff lists the plan sections (tune's fields one by one) in which b differs from
// a, both as JSON; tune.budget and tune.generations are left out (a resume may extend
// a tune).
func planDiff(a, b *plan.Plan) []string {
	ma, mb := planMap(a), planMap(b)
	var out []string
	for k, va := range ma {
		if !reflect.DeepEqual(va, mb[k]) {
			out = append(out, k)
		}
	}
	for k := range mb {
		if _, ok := ma[k]; !ok {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// planMap is p as JSON values by section, its tune section's fields as "tune.FIELD".
func planMap(p *plan.Plan) map[string]any {
	var m map[string]any
	b, _ := json.Marshal(p)
	_ = json.Unmarshal(b, &m)
	if tu, ok := m["tune"].(map[string]any); ok {
		delete(m, "tune")
		for k, v := range tu {
			if k != "budget" && k != "generations" {
				m["tune."+k] = v
			}
		}
	}
	delete(m, "description")
	return m
}

package main

import (
	"fmt"
	"math"

	"github.com/llmcap/llmcap/rundir"
	"github.com/llmcap/llmcap/tune"
	"github.com/llmcap/llmcap/tune/nsga2"
)

// replaySeeds is how many seeds replay runs NSGA-II with.
const replaySeeds = 200

// replay runs NSGA-II (population × generations of the tune in tuneDir) replaySeeds
// times against the grid's measured table instead of live servers: each setting it
// asks gets the objectives the grid measured for it. It prints how often the best
// capacity found is within 5% of the grid's best and the front's hypervolume ≥ 90%
// of the grid front's, and their means: the algorithm's odds on this landscape,
// where one live run is one draw.
func replay(gridDir, tuneDir string, dirs []nsga2.Direction, ref []float64, grid side) error {
	meta, err := rundir.ReadTuneMeta(tuneDir)
	if err != nil {
		return err
	}
	sp, err := tune.SearchSpace(&meta.Plan)
	if err != nil {
		return err
	}
	trials, _, err := rundir.ReadTrials(gridDir)
	if err != nil {
		return err
	}
	res, err := rundir.ReadTuneResult(gridDir)
	if err != nil {
		return err
	}
	table := map[string][]float64{}
	for _, tr := range trials {
		if v, ok := vector(res, &tr); ok {
			table[fmt.Sprint(tr.Point)] = v
		}
	}
	bestGrid, hvGrid := bestOf(grid.vecs, dirs), nsga2.Hypervolume(grid.vecs, dirs, ref)
	tu := meta.Plan.Tune
	budget := grid.trials * 3 / 10 // issue #18: at most 30% of the grid's trials
	splits := [][2]int{{tu.Population, tu.Generations}}
	for pop := 2; pop <= budget/2; pop++ {
		if gens := budget / pop; pop != tu.Population || gens != tu.Generations {
			splits = append(splits, [2]int{pop, gens})
		}
	}
	for _, sp2 := range splits {
		o := odds{label: fmt.Sprintf("NSGA-II %d × %d = %d trials against the grid's table", sp2[0], sp2[1], sp2[0]*sp2[1])}
		if sp2 == splits[0] {
			o.tag = " (the tune's own split)"
		}
		for seed := uint64(1); seed <= replaySeeds; seed++ {
			found, err := replayOne(sp, dirs, table, nsga2.Options{Population: sp2[0], Generations: sp2[1], Seed: seed})
			if err != nil {
				return err
			}
			o.add(bestOf(found, dirs)/bestGrid, nsga2.Hypervolume(found, dirs, ref)/hvGrid)
		}
		o.print()
	}
	// The baseline: random search with the same budget (distinct random settings).
	r := odds{label: fmt.Sprintf("random search, %d trials", budget)}
	for seed := uint64(1); seed <= replaySeeds; seed++ {
		pts, err := nsga2.Random(sp, budget, seed)
		if err != nil {
			return err
		}
		var found [][]float64
		for _, p := range pts {
			if v, ok := table[fmt.Sprint([]float64(p))]; ok {
				found = append(found, v)
			}
		}
		r.add(bestOf(found, dirs)/bestGrid, nsga2.Hypervolume(found, dirs, ref)/hvGrid)
	}
	r.print()
	return nil
}

// replayOne is one NSGA-II run against the table: the objective vectors of the
// settings it asked (a setting the grid did not measure counts as failed).
func replayOne(sp nsga2.Space, dirs []nsga2.Direction, table map[string][]float64, opt nsga2.Options) ([][]float64, error) {
	o, err := nsga2.New(sp, dirs, opt)
	if err != nil {
		return nil, err
	}
	var found [][]float64
	for !o.Done() {
		pts := o.Ask()
		out := make([]nsga2.Result, len(pts))
		for i, p := range pts {
			v, ok := table[fmt.Sprint([]float64(p))]
			out[i] = nsga2.Result{X: p, Objectives: v, Failed: !ok}
			if ok {
				found = append(found, v)
			}
		}
		if err := o.Tell(out); err != nil {
			return nil, err
		}
	}
	return found, nil
}

// odds tallies replays of one search (an NSGA-II split, or random search): how often
// the best capacity found is within 5% of the grid's and the front's hypervolume ≥ 90%
// of the grid front's, and both at once.
type odds struct {
	label, tag        string // the search, and a note after the seed count
	n, best, hv, both int
	sumBest, sumHV    float64
}

func (o *odds) add(best, hv float64) {
	o.n++
	o.sumBest, o.sumHV = o.sumBest+best, o.sumHV+hv
	if best >= 0.95 {
		o.best++
	}
	if hv >= 0.9 {
		o.hv++
	}
	if best >= 0.95 && hv >= 0.9 {
		o.both++
	}
}

func (o *odds) print() {
	n := float64(o.n)
	fmt.Printf("replay: %s, %d seeds%s: best capacity within 5%% of the grid's in %.0f%% (mean %.3f of it), "+
		"front hypervolume ≥ 90%% in %.0f%% (mean %.3f), both in %.0f%%\n", o.label, o.n, o.tag,
		100*float64(o.best)/n, o.sumBest/n, 100*float64(o.hv)/n, o.sumHV/n, 100*float64(o.both)/n)
}

// bestOf is the best main objective among vecs (the largest when maximised).
func bestOf(vecs [][]float64, dirs []nsga2.Direction) float64 {
	sign := 1.0
	if dirs[0] == nsga2.Minimize {
		sign = -1
	}
	b := math.Inf(-1)
	for _, v := range vecs {
		b = math.Max(b, sign*v[0])
	}
	return sign * b
}

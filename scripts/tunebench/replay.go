package main

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/llmcap/llmcap/rundir"
	"github.com/llmcap/llmcap/tune"
	"github.com/llmcap/llmcap/tune/nsga2"
)

// replaySeeds is how many seeds replay runs NSGA-II with.
const replaySeeds = 200

// replay runs NSGA-II (the population, offspring and generations of the tune in
// tuneDir, then every other split of the same budget) replaySeeds times against the
// grid's measured table instead of live servers: each setting it
// asks gets the objectives the grid measured for it. It prints how often the best
// capacity found is within 5% of the grid's best and the front's hypervolume ≥ 90%
// of the grid front's, and their means: the algorithm's odds on this landscape,
// where one live run is one draw. The other splits are ranked by the odds of both;
// a split chosen by that ranking is fitted to this table, so judge it on another.
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
	own := split{tu.Population, tu.Offspring, tu.Generations}
	if own.off == 0 {
		own.off = own.pop
	}
	var all []odds
	for _, sp2 := range append([]split{own}, splitsOf(budget)...) {
		if len(all) > 0 && sp2 == own {
			continue
		}
		o := odds{label: "NSGA-II " + sp2.String()}
		if sp2 == own {
			o.tag = " (the tune's own split)"
		}
		for seed := uint64(1); seed <= replaySeeds; seed++ {
			found, err := replayOne(sp, dirs, table, nsga2.Options{Population: sp2.pop, Offspring: sp2.off, Generations: sp2.gens, Seed: seed})
			if err != nil {
				return err
			}
			o.add(bestOf(found, dirs)/bestGrid, nsga2.Hypervolume(found, dirs, ref)/hvGrid)
		}
		all = append(all, o)
	}
	all[0].print()
	rest := all[1:]
	slices.SortStableFunc(rest, func(a, b odds) int { return cmp.Compare(b.both, a.both) })
	if len(rest) <= topSplits+bottomSplits {
		fmt.Printf("replay: the %d other splits of %d trials, by their odds of both:\n", len(rest), budget)
		for _, o := range rest {
			o.print()
		}
	} else {
		fmt.Printf("replay: the %d other splits of %d trials, by their odds of both: the best %d, then the worst %d\n",
			len(rest), budget, topSplits, bottomSplits)
		for _, o := range append(rest[:topSplits:topSplits], rest[len(rest)-bottomSplits:]...) {
			o.print()
		}
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

// topSplits and bottomSplits are how many of the other splits replay prints, from the
// best odds and from the worst.
const topSplits, bottomSplits = 5, 3

// split is one way to spend the budget: the population, the children per later
// generation, and the generations (the first one the population).
type split struct{ pop, off, gens int }

func (s split) trials() int { return s.pop + s.off*(s.gens-1) }

func (s split) String() string {
	if s.off == s.pop {
		return fmt.Sprintf("%d × %d = %d trials", s.pop, s.gens, s.trials())
	}
	return fmt.Sprintf("%d, then %d × %d = %d trials", s.pop, s.gens-1, s.off, s.trials())
}

// splitsOf is every split of exactly budget trials with at least two generations and
// at most as many children as parents.
func splitsOf(budget int) []split {
	var out []split
	for pop := 2; pop < budget; pop++ {
		for off := 1; off <= pop; off++ {
			if (budget-pop)%off == 0 {
				out = append(out, split{pop, off, 1 + (budget-pop)/off})
			}
		}
	}
	return out
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

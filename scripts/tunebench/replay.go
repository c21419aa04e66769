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
	var hits, hvHits int
	var sumBest, sumHV float64
	for seed := uint64(1); seed <= replaySeeds; seed++ {
		o, err := nsga2.New(sp, dirs, nsga2.Options{Population: tu.Population, Generations: tu.Generations, Seed: seed})
		if err != nil {
			return err
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
				return err
			}
		}
		b, hv := bestOf(found, dirs)/bestGrid, nsga2.Hypervolume(found, dirs, ref)/hvGrid
		sumBest, sumHV = sumBest+b, sumHV+hv
		if b >= 0.95 {
			hits++
		}
		if hv >= 0.9 {
			hvHits++
		}
	}
	n := float64(replaySeeds)
	fmt.Printf("replay: NSGA-II %d × %d against the grid's table, %d seeds: best capacity within 5%% of the grid's in %.0f%% "+
		"(mean %.3f of it), front hypervolume ≥ 90%% in %.0f%% (mean %.3f)\n", tu.Population, tu.Generations, replaySeeds,
		100*float64(hits)/n, sumBest/n, 100*float64(hvHits)/n, sumHV/n)
	return nil
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

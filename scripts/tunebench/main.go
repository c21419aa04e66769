// Command tunebench compares a tune with the grid that measured its whole space
// (scripts/tune-bench.sh): the best main objective each found, and the hypervolume of
// each one's Pareto front over the objectives, with one reference point for both (0
// for a maximised objective, 1.1 × the worst value either measured for a minimised
// one), then the same NSGA-II replayed over many seeds against the grid's table
// (replay.go).
//
//	go run ./scripts/tunebench GRID_DIR TUNE_DIR
package main

import (
	"fmt"
	"math"
	"os"

	"github.com/llmcap/llmcap/rundir"
	"github.com/llmcap/llmcap/tune/nsga2"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: tunebench GRID_DIR TUNE_DIR")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "tunebench:", err)
		os.Exit(1)
	}
}

// side is one tune directory's measured objective vectors.
type side struct {
	trials int
	vecs   [][]float64
	points []string // each vector's setting (fmt.Sprint of its point)
}

func load(dir string, res *rundir.TuneResult) (side, error) {
	trials, _, err := rundir.ReadTrials(dir)
	if err != nil {
		return side{}, err
	}
	s := side{trials: len(trials)}
	for _, tr := range trials {
		if v, ok := vector(res, &tr); ok {
			s.vecs = append(s.vecs, v)
			s.points = append(s.points, fmt.Sprint(tr.Point))
		}
	}
	return s, nil
}

// vector is a measured trial's objectives in res's order; ok is false for a failed
// trial or one lacking an objective.
func vector(res *rundir.TuneResult, tr *rundir.Trial) ([]float64, bool) {
	if !tr.OK() {
		return nil, false
	}
	v := make([]float64, len(res.Objectives))
	for i, o := range res.Objectives {
		x, has := tr.Objectives[o.Metric]
		if !has {
			return nil, false
		}
		v[i] = x
	}
	return v, true
}

func run(gridDir, tuneDir string) error {
	res, err := rundir.ReadTuneResult(gridDir)
	if err != nil {
		return err
	}
	grid, err := load(gridDir, res)
	if err != nil {
		return err
	}
	tuned, err := load(tuneDir, res)
	if err != nil {
		return err
	}
	dirs := make([]nsga2.Direction, len(res.Objectives))
	ref := make([]float64, len(res.Objectives))
	for i, o := range res.Objectives {
		dirs[i] = nsga2.Minimize
		if o.Maximizes() {
			dirs[i] = nsga2.Maximize
			continue
		}
		for _, v := range append(append([][]float64{}, grid.vecs...), tuned.vecs...) {
			ref[i] = math.Max(ref[i], 1.1*v[i])
		}
	}
	best := func(s side) float64 { return bestOf(s.vecs, dirs) }
	hvGrid, hvTune := nsga2.Hypervolume(grid.vecs, dirs, ref), nsga2.Hypervolume(tuned.vecs, dirs, ref)
	fmt.Printf("objectives: %v (reference point %v)\n", res.Objectives, ref)
	fmt.Printf("grid:  %d trials, %d measured, best %s %g, front hypervolume %.4g\n", grid.trials, len(grid.vecs), res.Objectives[0].Metric, best(grid), hvGrid)
	fmt.Printf("tune:  %d trials (%.0f%% of the grid), %d measured, best %s %g, front hypervolume %.4g\n",
		tuned.trials, 100*float64(tuned.trials)/float64(grid.trials), len(tuned.vecs), res.Objectives[0].Metric, best(tuned), hvTune)
	fmt.Printf("best capacity: tune ÷ grid = %.3f; hypervolume: tune ÷ grid = %.3f\n", best(tuned)/best(grid), hvTune/hvGrid)
	// The setting the tune found best, valued at the grid's own measurement of it: did the
	// search find the right setting, apart from the two measurements' noise.
	if i := bestIndex(tuned.vecs, dirs); i >= 0 {
		for j, p := range grid.points {
			if p == tuned.points[i] {
				fmt.Printf("the tune's best setting %s: the grid measured %s %g there, %.3f of the grid's best\n",
					p, res.Objectives[0].Metric, grid.vecs[j][0], grid.vecs[j][0]/best(grid))
			}
		}
	}
	return replay(gridDir, tuneDir, dirs, ref, grid)
}

// bestIndex is the index of the vector with the best main objective (-1 for none).
func bestIndex(vecs [][]float64, dirs []nsga2.Direction) int {
	b := bestOf(vecs, dirs)
	for i, v := range vecs {
		if v[0] == b {
			return i
		}
	}
	return -1
}

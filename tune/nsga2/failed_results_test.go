package nsga2

import (
	"reflect"
	"testing"
)

func TestFailedResultsRankLastAndNeverEnterTheFront(t *testing.T) {
	dirs := []Direction{Minimize, Minimize}
	pool := []Result{
		{X: Point{0}, Failed: true},
		{X: Point{1}, Objectives: []float64{100, 100}}, // the worst that ran
		{X: Point{2}, Objectives: []float64{1, 2}},
		{X: Point{3}, Failed: true, Objectives: []float64{0, 0}}, // ignored: failed
		{X: Point{4}, Objectives: []float64{2, 1}},
	}
	fronts := rankResults(pool, dirs)
	if want := [][]int{{2, 4}, {1}, {0, 3}}; !reflect.DeepEqual(fronts, want) {
		t.Errorf("fronts %v, want %v: the failed last, in one front", fronts, want)
	}
	kept := survivors(pool, dirs, 3)
	for _, m := range kept {
		if m.Failed {
			t.Errorf("survivors of 3 keep the failed %v over a result that ran", m.X)
		}
	}
	if last := survivors(pool, dirs, 5)[4]; !last.Failed || last.rank != 2 {
		t.Errorf("fifth survivor %+v, want a failed one of rank 2", last)
	}
}

func TestOptimizerSurvivesFailuresAndKeepsThemOutOfTheFront(t *testing.T) {
	s := Space{Params: []Param{{Name: "x", Kind: Float, Min: 0, Max: 1}, {Name: "y", Kind: Float, Min: 0, Max: 1}}}
	dirs := []Direction{Minimize, Minimize}
	o, err := New(s, dirs, Options{Population: 12, Generations: 10, Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	failed := 0
	for g := 0; !o.Done(); g++ {
		pts := o.Ask()
		res := make([]Result, len(pts))
		for i, p := range pts {
			// Generation 0 fails whole; later, x > 0.5 fails: such points would dominate
			// (objectives near 0) were they not failed.
			if g == 0 || p[0] > 0.5 {
				res[i] = Result{X: p, Failed: true, Objectives: []float64{-1, -1}}
				failed++
				continue
			}
			res[i] = Result{X: p, Objectives: []float64{p[0], 1 - p[0] + p[1]}}
		}
		if err := o.Tell(res); err != nil {
			t.Fatal(err)
		}
		if g == 0 && len(o.Front()) != 0 {
			t.Errorf("after an all-failed generation the front holds %d results, want none", len(o.Front()))
		}
	}
	front := o.Front()
	if len(front) == 0 {
		t.Fatal("empty front after 9 generations that ran")
	}
	for _, r := range front {
		if r.X[0] > 0.5 || r.Failed {
			t.Errorf("front holds %v, which failed", r.X)
		}
	}
	t.Logf("%d failed of 120; front of %d", failed, len(front))
	if failed < 12 || failed >= 120 {
		t.Errorf("%d failed, want generation 0's 12 and some but not all after", failed)
	}
}

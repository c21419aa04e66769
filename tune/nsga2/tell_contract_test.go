package nsga2

import (
	"errors"
	"math"
	"reflect"
	"testing"
)

func lineSpace() Space {
	return Space{Params: []Param{{Name: "x", Kind: Float, Min: 0, Max: 1}, {Name: "k", Kind: Categorical, Choices: 4}}}
}

func TestTellRefusesResultsThatDoNotAnswerTheAsk(t *testing.T) {
	o, err := New(lineSpace(), []Direction{Minimize, Maximize}, Options{Population: 4, Generations: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := o.Tell(nil); !errors.Is(err, ErrNotAsked) {
		t.Errorf("Tell before Ask: %v, want ErrNotAsked", err)
	}
	pts := o.Ask()
	good := func() []Result {
		res := make([]Result, len(pts))
		for i, p := range pts {
			res[i] = Result{X: p, Objectives: []float64{p[0], p[1]}}
		}
		return res
	}
	swapped := good()
	swapped[0], swapped[1] = swapped[1], swapped[0]
	short := good()[:3]
	wrongCount := good()
	wrongCount[2].Objectives = []float64{1}
	notFinite := good()
	notFinite[3].Objectives[1] = math.NaN()
	inf := good()
	inf[0].Objectives[0] = math.Inf(-1)
	for name, res := range map[string][]Result{"swapped": swapped, "short": short, "one objective": wrongCount, "NaN": notFinite, "-Inf": inf} {
		err := o.Tell(res)
		if !errors.Is(err, ErrResults) {
			t.Errorf("%s: %v, want ErrResults", name, err)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
	if o.Generation() != 0 || !reflect.DeepEqual(o.Ask(), pts) {
		t.Fatal("a refused Tell moved the optimizer on")
	}
	failedNoObjectives := good()
	failedNoObjectives[2] = Result{X: pts[2], Failed: true}
	if err := o.Tell(failedNoObjectives); err != nil {
		t.Fatalf("good results refused: %v", err)
	}
	if err := o.Tell(good()); !errors.Is(err, ErrNotAsked) {
		t.Errorf("second Tell of one Ask: %v, want ErrNotAsked", err)
	}
	if r, ok := o.Lookup(pts[2]); !ok || !r.Failed || !reflect.DeepEqual(r.X, pts[2]) {
		t.Errorf("Lookup of the failed point: %+v %v", r, ok)
	}
	if r, ok := o.Lookup(pts[1]); !ok || r.Failed || r.Objectives[0] != pts[1][0] {
		t.Errorf("Lookup of a told point: %+v %v", r, ok)
	}
	if _, ok := o.Lookup(Point{2, 0}); ok {
		t.Error("Lookup of a point never told: found")
	}
}

func TestAskedPointsAreCopies(t *testing.T) {
	o, err := New(lineSpace(), []Direction{Minimize}, Options{Population: 2, Generations: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	pts := o.Ask()
	want := o.Ask()
	pts[0][0] = 99
	if got := o.Ask(); !reflect.DeepEqual(got, want) {
		t.Errorf("changing an asked point changed the pending one: %v", got)
	}
	res := []Result{{X: want[0], Objectives: []float64{1}}, {X: want[1], Objectives: []float64{2}}}
	if err := o.Tell(res); err != nil {
		t.Fatal(err)
	}
	res[0].Objectives[0] = -50
	if f := o.Front(); len(f) != 1 || f[0].Objectives[0] != 1 {
		t.Errorf("front %+v after changing a told result, want the result of 1 alone", f)
	}
}

func TestSmallSpaceFillsEveryGenerationWithoutRepeatsInside(t *testing.T) {
	s := Space{Params: []Param{{Name: "a", Kind: Int, Min: 1, Max: 3}, {Name: "c", Kind: Categorical, Choices: 2}}}
	o, err := New(s, []Direction{Minimize}, Options{Population: 4, Generations: 6, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	all := set{}
	for g := 0; !o.Done(); g++ {
		pts := o.Ask()
		gen := set{}
		for _, p := range pts {
			checkOnGrid(t, s, p)
			if gen.has(p) {
				t.Errorf("generation %d repeats %v inside itself: %v", g, p, pts)
			}
			gen.add(p)
			all.add(p)
		}
		if g == 1 && len(all) != 6 {
			t.Errorf("after 2 generations of 4, %d of the 6 points asked, want all", len(all))
		}
		res := make([]Result, len(pts))
		for i, p := range pts {
			res[i] = Result{X: p, Objectives: []float64{p[0] + p[1]}}
		}
		if err := o.Tell(res); err != nil {
			t.Fatal(err)
		}
	}
	if f := o.Front(); len(f) == 0 || f[0].Objectives[0] != 1 {
		t.Errorf("front %+v, want (1, 0) of objective 1", f)
	}
	tiny := Space{Params: []Param{{Name: "a", Kind: Int, Min: 1, Max: 2}}}
	o, err = New(tiny, []Direction{Minimize}, Options{Population: 4, Generations: 2, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	if pts := o.Ask(); len(pts) != 4 || !reflect.DeepEqual(pts[2], pts[0]) || !reflect.DeepEqual(pts[3], pts[1]) || reflect.DeepEqual(pts[0], pts[1]) {
		t.Errorf("a space of 2 points asked %v, want both, then both again", pts)
	}
}

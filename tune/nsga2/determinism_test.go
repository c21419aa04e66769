package nsga2

import (
	"reflect"
	"testing"
)

// runAsks drives an optimizer over the mixed space for gens generations, telling
// engineResult, and returns every generation asked; with askTwice it asks each
// generation twice (as a resumed caller might) and checks the two agree.
func runAsks(t *testing.T, seed uint64, gens int, askTwice bool) [][]Point {
	t.Helper()
	o, err := New(mixedSpace(), []Direction{Maximize, Minimize}, Options{Population: 10, Generations: gens, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	var asked [][]Point
	for !o.Done() {
		pts := o.Ask()
		if askTwice {
			if again := o.Ask(); !reflect.DeepEqual(again, pts) {
				t.Fatalf("generation %d asked twice: %v then %v", o.Generation(), pts, again)
			}
		}
		asked = append(asked, pts)
		res := make([]Result, len(pts))
		for i, p := range pts {
			res[i] = engineResult(p)
		}
		if err := o.Tell(res); err != nil {
			t.Fatal(err)
		}
	}
	if o.Ask() != nil {
		t.Error("Ask after Done returned points, want nil")
	}
	return asked
}

func TestSameSeedAndResultsAskTheSamePoints(t *testing.T) {
	a := runAsks(t, 42, 8, false)
	b := runAsks(t, 42, 8, true)
	if len(a) != 8 {
		t.Fatalf("%d generations asked, want 8", len(a))
	}
	for g := range a {
		if !reflect.DeepEqual(a[g], b[g]) {
			t.Fatalf("generation %d differs:\n%v\n%v", g, a[g], b[g])
		}
	}
	c := runAsks(t, 43, 2, false)
	if reflect.DeepEqual(a[0], c[0]) {
		t.Error("seeds 42 and 43 asked the same first generation")
	}
}

func TestFirstGenerationIsRandomsDraw(t *testing.T) {
	want, err := Random(mixedSpace(), 10, 42)
	if err != nil {
		t.Fatal(err)
	}
	if got := runAsks(t, 42, 1, false); !reflect.DeepEqual(got[0], want) {
		t.Errorf("generation 0 %v, want Random's %v", got[0], want)
	}
}

func TestDifferentResultsChangeTheNextGeneration(t *testing.T) {
	dirs := []Direction{Minimize}
	s := Space{Params: []Param{{Name: "x", Kind: Float, Min: -5, Max: 5}, {Name: "y", Kind: Float, Min: -5, Max: 5}}}
	ask := func(f func(Point) float64) []Point {
		o, err := New(s, dirs, Options{Population: 8, Generations: 2, Seed: 5})
		if err != nil {
			t.Fatal(err)
		}
		pts := o.Ask()
		res := make([]Result, len(pts))
		for i, p := range pts {
			res[i] = Result{X: p, Objectives: []float64{f(p)}}
		}
		if err := o.Tell(res); err != nil {
			t.Fatal(err)
		}
		return o.Ask()
	}
	a := ask(func(p Point) float64 { return p[0] })
	b := ask(func(p Point) float64 { return -p[0] })
	if reflect.DeepEqual(a, b) {
		t.Error("opposite objectives bred the same second generation")
	}
}

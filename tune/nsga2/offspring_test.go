package nsga2

import (
	"reflect"
	"testing"
)

// With Offspring below Population, the first generation asks Population points and
// each later one Offspring, every point new to the search, and Tell keeps Population
// parents: the evaluations are Population + Offspring × (Generations − 1).
func TestOffspringSetsTheLaterGenerationsSize(t *testing.T) {
	o, err := New(mixedSpace(), []Direction{Maximize, Minimize}, Options{Population: 6, Offspring: 2, Generations: 5, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	var sizes []int
	seen := map[string]bool{}
	for !o.Done() {
		pts := o.Ask()
		sizes = append(sizes, len(pts))
		res := make([]Result, len(pts))
		for i, p := range pts {
			if seen[key(p)] {
				t.Errorf("generation %d asks %v again", o.Generation(), p)
			}
			seen[key(p)] = true
			res[i] = engineResult(p)
		}
		if err := o.Tell(res); err != nil {
			t.Fatal(err)
		}
		if len(o.parents) != 6 {
			t.Fatalf("after generation %d: %d parents, want the population, 6", o.Generation()-1, len(o.parents))
		}
	}
	if want := []int{6, 2, 2, 2, 2}; !reflect.DeepEqual(sizes, want) {
		t.Errorf("generation sizes %v, want %v", sizes, want)
	}
	if len(o.told) != 6+2*4 {
		t.Errorf("%d results told, want 14", len(o.told))
	}
}

// Offspring equal to Population (or left 0) is the classic generational NSGA-II: the
// same points for the same seed either way.
func TestOffspringZeroIsThePopulation(t *testing.T) {
	ask := func(off int) [][]Point {
		o, err := New(mixedSpace(), []Direction{Maximize, Minimize}, Options{Population: 5, Offspring: off, Generations: 3, Seed: 9})
		if err != nil {
			t.Fatal(err)
		}
		var all [][]Point
		for !o.Done() {
			pts := o.Ask()
			all = append(all, pts)
			res := make([]Result, len(pts))
			for i, p := range pts {
				res[i] = engineResult(p)
			}
			if err := o.Tell(res); err != nil {
				t.Fatal(err)
			}
		}
		return all
	}
	if a, b := ask(0), ask(5); !reflect.DeepEqual(a, b) {
		t.Errorf("Offspring 0 and 5 ask different points:\n%v\n%v", a, b)
	}
}

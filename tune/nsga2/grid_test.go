package nsga2

import (
	"errors"
	"reflect"
	"testing"
)

// smallSpace is 3 Ints × 4 stepped Floats × 2 choices = 24 points.
func smallSpace() Space {
	return Space{Params: []Param{
		{Name: "a", Kind: Int, Min: 1, Max: 3},
		{Name: "b", Kind: Float, Min: 0, Max: 0.3, Step: 0.1},
		{Name: "c", Kind: Categorical, Choices: 2},
	}}
}

func TestGridOrderAndCount(t *testing.T) {
	pts, err := Grid(smallSpace())
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != 24 {
		t.Fatalf("%d points, want 3×4×2 = 24", len(pts))
	}
	// The last Param varies fastest; 0.3 is the decimal 0.3, not 3 × 0.1.
	want := map[int]Point{0: {1, 0, 0}, 1: {1, 0, 1}, 2: {1, 0.1, 0}, 5: {1, 0.2, 1}, 7: {1, 0.3, 1}, 8: {2, 0, 0}, 23: {3, 0.3, 1}}
	for i, w := range want {
		if !reflect.DeepEqual(pts[i], w) {
			t.Errorf("point %d is %v, want %v", i, pts[i], w)
		}
	}
	seen := set{}
	for _, p := range pts {
		if seen.has(p) {
			t.Errorf("point %v twice", p)
		}
		seen.add(p)
	}
}

func TestGridStepsAndConstraint(t *testing.T) {
	steps := Space{Params: []Param{
		{Name: "tokens", Kind: Int, Min: 8, Max: 50, Step: 16}, // 8, 24, 40: 56 is past Max
		{Name: "seqs", Kind: Int, Min: 1, Max: 4, Log: true},   // Log leaves the grid alone
	}}
	pts, err := Grid(steps)
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != 12 || !reflect.DeepEqual(pts[4], Point{24, 1}) || !reflect.DeepEqual(pts[11], Point{40, 4}) {
		t.Errorf("grid %v, want 3 × 4 points from (8,1) to (40,4), (24,1) fifth", pts)
	}
	s := smallSpace()
	s.Feasible = func(p Point) bool { return p[0]+10*p[1] <= 3 }
	pts, err = Grid(s)
	if err != nil {
		t.Fatal(err)
	}
	// a=1: b ≤ 0.2 (3 values), a=2: b ≤ 0.1 (2), a=3: b = 0 (1); each with 2 choices.
	if len(pts) != 12 {
		t.Errorf("%d feasible points, want 12: %v", len(pts), pts)
	}
	for _, p := range pts {
		if p[0]+10*p[1] > 3 {
			t.Errorf("infeasible point %v in the grid", p)
		}
	}
}

func TestGridRefusesContinuousAndHuge(t *testing.T) {
	s := smallSpace()
	s.Params = append(s.Params, Param{Name: "frac", Kind: Float, Min: 0, Max: 1})
	_, err := Grid(s)
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Param != "frac" || fe.Index != 3 || fe.Field != "Step" {
		t.Errorf("continuous Float: error %v, want a FieldError on frac's Step", err)
	}
	huge := Space{Params: []Param{
		{Name: "x", Kind: Int, Min: 0, Max: 999}, {Name: "y", Kind: Int, Min: 0, Max: 999}, {Name: "z", Kind: Categorical, Choices: 2},
	}}
	if _, err := Grid(huge); err == nil {
		t.Error("a grid of 2,000,000 points: no error, want one above MaxGridPoints")
	} else {
		t.Logf("huge grid: %v", err)
	}
}

func TestRandomDistinctFeasibleAndDeterministic(t *testing.T) {
	s := smallSpace()
	s.Feasible = func(p Point) bool { return p[0]+10*p[1] <= 3 }
	all, err := Grid(s)
	if err != nil {
		t.Fatal(err)
	}
	inGrid := set{}
	for _, p := range all {
		inGrid.add(p)
	}
	// 20 asked of a space of 12 feasible points: all 12, each once.
	pts, err := Random(s, 20, 7)
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != 12 {
		t.Errorf("%d points, want the 12 feasible ones", len(pts))
	}
	seen := set{}
	for _, p := range pts {
		if !inGrid.has(p) || seen.has(p) {
			t.Errorf("point %v: infeasible, off the grid or repeated", p)
		}
		seen.add(p)
	}
	a, _ := Random(s, 5, 7)
	b, _ := Random(s, 5, 7)
	c, _ := Random(s, 5, 8)
	if !reflect.DeepEqual(a, b) {
		t.Errorf("same seed: %v then %v", a, b)
	}
	if reflect.DeepEqual(a, c) {
		t.Errorf("seeds 7 and 8 drew the same %v", a)
	}
	if _, err := Random(s, -1, 1); err == nil {
		t.Error("n = -1: no error")
	}
}

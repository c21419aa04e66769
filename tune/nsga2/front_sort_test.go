package nsga2

import (
	"math"
	"reflect"
	"testing"
)

// sortObjs are seven vectors worked by hand: 5 repeats 0, 3 is dominated by 1 only,
// 4 by 1, 2 and 3, 6 by every other.
var sortObjs = [][]float64{{1, 5}, {2, 3}, {3, 1}, {2, 4}, {4, 4}, {1, 5}, {5, 5}}

func TestNonDominatedSortMinimizeBothWithTies(t *testing.T) {
	got := NonDominatedSort(sortObjs, []Direction{Minimize, Minimize})
	want := [][]int{{0, 1, 2, 5}, {3}, {4}, {6}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("fronts %v, want %v", got, want)
	}
}

func TestNonDominatedSortMaximizeSecond(t *testing.T) {
	// Minimise f1, maximise f2: (1, 5) is best in both; (2, 4) beats (2, 3), (4, 4) and
	// (3, 1); (5, 5) trades f1 for f2; (2, 3) beats (3, 1).
	got := NonDominatedSort(sortObjs, []Direction{Minimize, Maximize})
	want := [][]int{{0, 5}, {3, 6}, {1, 4}, {2}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("fronts %v, want %v", got, want)
	}
	all := NonDominatedSort(sortObjs, []Direction{Maximize, Maximize})
	// Maximise both: (5, 5) beats all; (4, 4) and (1, 5) trade; (4, 4) beats (2, 4) and
	// (3, 1); (2, 4) beats (2, 3).
	if want := [][]int{{6}, {0, 4, 5}, {2, 3}, {1}}; !reflect.DeepEqual(all, want) {
		t.Fatalf("maximise both: fronts %v, want %v", all, want)
	}
}

func TestNonDominatedSortEmptyAndEqual(t *testing.T) {
	if got := NonDominatedSort(nil, []Direction{Minimize}); len(got) != 0 {
		t.Errorf("no vectors: fronts %v, want none", got)
	}
	same := [][]float64{{2, 2}, {2, 2}, {2, 2}}
	if got := NonDominatedSort(same, []Direction{Minimize, Minimize}); !reflect.DeepEqual(got, [][]int{{0, 1, 2}}) {
		t.Errorf("equal vectors: fronts %v, want one front of all", got)
	}
}

func TestCrowdingDistanceHandWorked(t *testing.T) {
	inf := math.Inf(1)
	// (0,4) (1,2) (3,1) (4,0), stored out of order. f1 (range 4): (1,2) gets (3−0)/4,
	// (3,1) gets (4−1)/4; f2 (range 4): (3,1) gets (2−0)/4, (1,2) gets (4−1)/4.
	objs := [][]float64{{9, 9}, {3, 1}, {0, 4}, {4, 0}, {1, 2}}
	front := []int{4, 1, 3, 2}
	got := CrowdingDistance(objs, front)
	want := []float64{0.75 + 0.75, 0.75 + 0.5, inf, inf}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("distances %v, want %v", got, want)
	}
	// Ties: the two (1,1) sort by index, each between a neighbour and its twin.
	ties := [][]float64{{0, 2}, {1, 1}, {1, 1}, {2, 0}}
	if got := CrowdingDistance(ties, []int{0, 1, 2, 3}); !reflect.DeepEqual(got, []float64{inf, 1, 1, inf}) {
		t.Errorf("ties: distances %v, want [+Inf 1 1 +Inf]", got)
	}
	// A constant objective adds nothing; the middle of f1 spans the whole range.
	flat := [][]float64{{0, 1}, {1, 1}, {2, 1}}
	if got := CrowdingDistance(flat, []int{0, 1, 2}); !reflect.DeepEqual(got, []float64{inf, 1, inf}) {
		t.Errorf("constant objective: distances %v, want [+Inf 1 +Inf]", got)
	}
	if got := CrowdingDistance(flat, []int{2, 0}); !reflect.DeepEqual(got, []float64{inf, inf}) {
		t.Errorf("two members: distances %v, want both +Inf", got)
	}
}

func TestSurvivorsCutTheLastFrontByCrowding(t *testing.T) {
	dirs := []Direction{Minimize, Minimize}
	pool := []Result{
		{Objectives: []float64{0, 4}}, {Objectives: []float64{1, 2}}, {Objectives: []float64{3, 1}},
		{Objectives: []float64{4, 0}}, {Objectives: []float64{5, 5}}, {Objectives: []float64{2, 1.5}},
	}
	// Front 0 is 0, 1, 2, 3, 5 (five): keep 4, dropping the least crowded. f1 order
	// 0,1,5,2,3 (range 4): 1, 5 and 2 each get 2/4; f2 order 3,2,5,1,0: 2 gets 1.5/4,
	// 5 gets 1/4, 1 gets 2.5/4. So 1: 1.125, 2: 0.875, 5: 0.75.
	got := survivors(pool, dirs, 4)
	var kept []float64
	for _, m := range got {
		if m.rank != 0 {
			t.Errorf("survivor %v has rank %d, want 0", m.Objectives, m.rank)
		}
		kept = append(kept, m.Objectives...)
	}
	if want := []float64{0, 4, 4, 0, 1, 2, 3, 1}; !reflect.DeepEqual(kept, want) {
		t.Errorf("survivors %v, want the two ends, then (1,2) and (3,1) by crowding", kept)
	}
	if m := got[2]; m.crowd != 1.125 {
		t.Errorf("(1,2) crowding %v, want 1.125", m.crowd)
	}
	all := survivors(pool, dirs, 6)
	if last := all[5]; last.rank != 1 || !reflect.DeepEqual(last.Objectives, []float64{5, 5}) || !math.IsInf(last.crowd, 1) {
		t.Errorf("sixth survivor %+v, want (5,5) of rank 1, crowding +Inf (alone in its front)", last)
	}
}

package nsga2

import (
	"math"
	"testing"
)

func TestHypervolume2D(t *testing.T) {
	mm := []Direction{Minimize, Minimize}
	cases := []struct {
		name string
		pts  [][]float64
		dirs []Direction
		ref  []float64
		want float64
	}{
		// Strips from the sweep: (1,3) 3×1, (2,2) 2×1, (3,1) 1×1.
		{"staircase", [][]float64{{1, 3}, {2, 2}, {3, 1}}, mm, []float64{4, 4}, 6},
		// A dominated point, a repeat, one beyond ref and one on its edge add nothing.
		{"noise", [][]float64{{3, 1}, {1, 3}, {3, 3}, {2, 2}, {2, 2}, {5, 0}, {4, 0}}, mm, []float64{4, 4}, 6},
		{"maximize both", [][]float64{{3, 1}, {2, 2}, {1, 3}}, []Direction{Maximize, Maximize}, []float64{0, 0}, 6},
		// Minimise f1 (ref 4), maximise f2 (ref 0): boxes [1,4]×[0,1] and [2,4]×[0,3],
		// union 6 + 1.
		{"mixed", [][]float64{{1, 1}, {2, 3}}, []Direction{Minimize, Maximize}, []float64{4, 0}, 7},
		{"empty", nil, mm, []float64{1, 1}, 0},
		{"one objective", [][]float64{{3}, {1.5}, {7}}, []Direction{Minimize}, []float64{4}, 2.5},
	}
	for _, c := range cases {
		if got := Hypervolume(c.pts, c.dirs, c.ref); got != c.want {
			t.Errorf("%s: hypervolume %v, want %v", c.name, got, c.want)
		}
	}
}

func TestHypervolume3DAndMore(t *testing.T) {
	mmm := []Direction{Minimize, Minimize, Minimize}
	ref := []float64{2, 2, 2}
	cases := []struct {
		name string
		pts  [][]float64
		dirs []Direction
		ref  []float64
		want float64
	}{
		{"one box", [][]float64{{1, 1, 1}}, mmm, ref, 1},
		// 2·2·1 + 1·1·2 − their overlap 1·1·1.
		{"two boxes", [][]float64{{0, 0, 1}, {1, 1, 0}}, mmm, ref, 5},
		// Three boxes of 2, pairwise overlaps 1, triple overlap 1: 6 − 3 + 1.
		{"three boxes", [][]float64{{0, 1, 1}, {1, 0, 1}, {1, 1, 0}}, mmm, ref, 4},
		{"three boxes maximised", [][]float64{{2, 1, 1}, {1, 2, 1}, {1, 1, 2}}, []Direction{Maximize, Maximize, Maximize}, []float64{0, 0, 0}, 4},
		{"dominated and outside", [][]float64{{1, 1, 1}, {1.5, 1.5, 1.5}, {0, 0, 3}}, mmm, ref, 1},
		// 2·2·2·1 + 1·1·1·2 − 1.
		{"four objectives", [][]float64{{0, 0, 0, 1}, {1, 1, 1, 0}}, []Direction{Minimize, Minimize, Minimize, Minimize}, []float64{2, 2, 2, 2}, 9},
	}
	for _, c := range cases {
		if got := Hypervolume(c.pts, c.dirs, c.ref); got != c.want {
			t.Errorf("%s: hypervolume %v, want %v", c.name, got, c.want)
		}
	}
	// Points on one level of the third objective: the 2-D area times the height.
	flat := [][]float64{{1, 3, 0.5}, {2, 2, 0.5}, {3, 1, 0.5}}
	if got := Hypervolume(flat, mmm, []float64{4, 4, 2}); got != 6*1.5 {
		t.Errorf("flat in f3: hypervolume %v, want 9", got)
	}
}

func TestHypervolume3DAgainstAGridCount(t *testing.T) {
	// Points on the integer lattice: the dominated volume is the number of unit cells
	// [a, a+1)×[b, b+1)×[c, c+1) inside ref that some point is at or below in all three.
	pts := [][]float64{{0, 3, 2}, {1, 1, 3}, {2, 0, 1}, {3, 2, 0}, {1, 2, 1}, {0, 4, 0}, {4, 0, 4}}
	ref := []float64{5, 5, 5}
	cells := 0
	for a := 0.0; a < 5; a++ {
		for b := 0.0; b < 5; b++ {
			for c := 0.0; c < 5; c++ {
				for _, p := range pts {
					if p[0] <= a && p[1] <= b && p[2] <= c {
						cells++
						break
					}
				}
			}
		}
	}
	got := Hypervolume(pts, []Direction{Minimize, Minimize, Minimize}, ref)
	if math.Abs(got-float64(cells)) > 1e-12 {
		t.Errorf("hypervolume %v, want %d cells", got, cells)
	}
	t.Logf("lattice example: %d cells", cells)
}

package nsga2

import (
	"cmp"
	"fmt"
	"slices"
)

// Hypervolume is the measure of the objective space that points dominate and that
// dominates ref: the union of the boxes between each point and ref. Each point, and ref,
// holds one value per direction (len(dirs)); another length panics. A point that is not
// strictly better than ref in every objective (by its direction), or holds a NaN,
// contributes nothing; so does a dominated or repeated point.
//
// It is exact in any number of objectives: one objective is a length, two a sweep over
// the points sorted by the first objective (O(n log n)), more are cut into slices along
// the last objective, each slice the hypervolume of the points below it in one
// objective fewer (hypervolume by slicing objectives, HSO: While, Hingston, Barone &
// Huband 2006). The cost grows as n^(d-1) log n: three objectives of 2,000 points take
// a fraction of a second, but five objectives of a thousand points are far too many.
func Hypervolume(points [][]float64, dirs []Direction, ref []float64) float64 {
	if len(ref) != len(dirs) {
		panic(fmt.Sprintf("nsga2.Hypervolume: ref holds %d values for %d directions", len(ref), len(dirs)))
	}
	r := make([]float64, len(ref))
	for m, d := range dirs {
		r[m] = ref[m] * float64(d)
	}
	var pts [][]float64
	for i, p := range points {
		if len(p) != len(dirs) {
			panic(fmt.Sprintf("nsga2.Hypervolume: point %d holds %d values for %d directions", i, len(p), len(dirs)))
		}
		q := make([]float64, len(p))
		inside := true
		for m, d := range dirs {
			q[m] = p[m] * float64(d)
			inside = inside && q[m] < r[m] // false for NaN
		}
		if inside {
			pts = append(pts, q)
		}
	}
	if len(pts) == 0 || len(r) == 0 {
		return 0
	}
	return hvMin(pts, r)
}

// hvMin is the hypervolume of minimised points, each strictly below ref in every
// objective. It sorts pts in place.
func hvMin(pts [][]float64, ref []float64) float64 {
	d := len(ref)
	switch d {
	case 1:
		best := ref[0]
		for _, p := range pts {
			best = min(best, p[0])
		}
		return ref[0] - best
	case 2:
		return hv2(pts, ref)
	}
	slices.SortFunc(pts, func(a, b []float64) int { return cmp.Compare(a[d-1], b[d-1]) })
	total := 0.0
	below := make([][]float64, 0, len(pts))
	for i, p := range pts {
		below = append(below, p[:d-1])
		top := ref[d-1]
		if i+1 < len(pts) {
			top = pts[i+1][d-1]
		}
		if top > p[d-1] {
			slice := slices.Clone(below) // hvMin sorts its argument: keep below in order
			total += hvMin(slice, ref[:d-1]) * (top - p[d-1])
		}
	}
	return total
}

// hv2 is the area two minimised objectives dominate: a sweep by the first objective,
// each point adding the strip between its second objective and the lowest seen before.
func hv2(pts [][]float64, ref []float64) float64 {
	slices.SortFunc(pts, func(a, b []float64) int {
		if c := cmp.Compare(a[0], b[0]); c != 0 {
			return c
		}
		return cmp.Compare(a[1], b[1])
	})
	area, low := 0.0, ref[1]
	for _, p := range pts {
		if p[1] < low {
			area += (ref[0] - p[0]) * (low - p[1])
			low = p[1]
		}
	}
	return area
}

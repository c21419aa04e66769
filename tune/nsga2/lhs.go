package nsga2

// drawSpread draws up to n distinct feasible points that seen does not hold, spread by
// Latin hypercube sampling (McKay, Beckman & Conover 1979): each dimension is cut into
// n equal strata of its sampling interval (a categorical's choices, an Int's or Float's
// encoded range, log-scaled when Log) and each stratum is used by one point, the
// strata matched across dimensions at random. A small budget then sees every part of
// each parameter's range (with 7 points, each of 4 values at least once) where uniform
// draws cluster. Points that repeat, or that Feasible refuses, are dropped; drawFresh
// fills the rest. The same dims, n and r state give the same points.
func drawSpread(dims []dim, feasible func(Point) bool, r *rng, n int, seen set) []Point {
	if n <= 1 {
		return drawFresh(dims, feasible, r, n, seen)
	}
	perms := make([][]int, len(dims))
	for i := range dims {
		perms[i] = r.perm(n)
	}
	out := make([]Point, 0, n)
	for k := 0; k < n; k++ {
		p := make(Point, len(dims))
		for i, d := range dims {
			p[i] = d.sampleStratum(r, perms[i][k], n)
		}
		if (feasible != nil && !feasible(p)) || seen.has(p) {
			continue
		}
		seen.add(p)
		out = append(out, p)
	}
	return append(out, drawFresh(dims, feasible, r, n-len(out), seen)...)
}

// sampleStratum draws a value uniformly within stratum k of n of the dimension's
// sampling interval, rounded onto its grid (a categorical: the choice the stratum's
// point falls in).
func (d dim) sampleStratum(r *rng, k, n int) float64 {
	u := (float64(k) + r.float()) / float64(n)
	if d.kind == Categorical {
		return float64(min(int(u*float64(d.n)), d.n-1))
	}
	return d.decode(d.lo + (d.hi-d.lo)*u)
}

// perm is a random permutation of 0..n-1 (Fisher–Yates).
func (r *rng) perm(n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	for i := n - 1; i > 0; i-- {
		j := r.intN(i + 1)
		p[i], p[j] = p[j], p[i]
	}
	return p
}

package nsga2

import "fmt"

// MaxGridPoints is the most points Grid enumerates: a space whose grid (before
// Feasible) holds more is refused.
const MaxGridPoints = 1_000_000

// fillFromGridMax is the largest grid the random draws fall back to enumerating when
// rejection sampling has not found enough distinct feasible points.
const fillFromGridMax = 100_000

// Draw bounds of rejection sampling: for n points at most drawsPerPoint·n + drawsBase
// draws.
const (
	drawsPerPoint = 100
	drawsBase     = 1000
)

// Grid is every point of the space's grid that Feasible accepts, in a fixed order: the
// first Param varies slowest and the last fastest, each from its smallest value up (a
// Categorical from choice 0). An Int steps by its Step, a stepped Float by its Step
// (Log changes nothing here). It fails with a *FieldError when the space is invalid
// (see New), when a Float is continuous (Step 0: not enumerable), or when the grid
// holds more than MaxGridPoints points.
func Grid(space Space) ([]Point, error) {
	dims, err := compile(space)
	if err != nil {
		return nil, err
	}
	var errs fieldErrors
	for i, d := range dims {
		if d.n == 0 {
			errs.add(i, space.Params[i].Name, "Step", "0", "a continuous Float has no grid to enumerate: give it a Step")
		}
	}
	if err := errs.err(); err != nil {
		return nil, err
	}
	if size := gridSize(dims); size > MaxGridPoints {
		errs.add(-1, "", "Params", "", fmt.Sprintf("the grid holds %.0f points, above the %d Grid enumerates: coarser Steps would do", size, MaxGridPoints))
		return nil, errs.err()
	}
	return enumerate(dims, space.Feasible, nil), nil
}

// enumerate is every grid point of dims (each of finite size) that feasible accepts
// and skip does not hold, in Grid's order.
func enumerate(dims []dim, feasible func(Point) bool, skip set) []Point {
	var out []Point
	idx := make([]int, len(dims))
	for {
		p := make(Point, len(dims))
		for i, d := range dims {
			p[i] = d.value(idx[i])
		}
		if (feasible == nil || feasible(p)) && !skip.has(p) {
			out = append(out, p)
		}
		i := len(dims) - 1
		for ; i >= 0; i-- {
			if idx[i]++; idx[i] < dims[i].n {
				break
			}
			idx[i] = 0
		}
		if i < 0 {
			return out
		}
	}
}

// Random is n distinct points of the space that Feasible accepts, drawn with the PCG
// of seed: each value uniform over its Param's range (log-uniform with Log), then
// rounded to its grid. When rejection sampling (at most 100·n + 1000 draws) finds fewer
// than n and the grid holds at most 100,000 points, the rest are drawn from the grid's
// remaining feasible points; it returns fewer than n points only when the space has
// fewer, or when Feasible rejects nearly all of a larger one. The same space, n and
// seed give the same points in the same order; they are also the first generation of
// an Optimizer with that Seed whose space holds enough points. It fails with New's
// *FieldErrors when the space is invalid, or when n < 0.
func Random(space Space, n int, seed uint64) ([]Point, error) {
	dims, err := compile(space)
	if err != nil {
		return nil, err
	}
	if n < 0 {
		var errs fieldErrors
		errs.add(-1, "", "n", fmt.Sprint(n), "must be ≥ 0")
		return nil, errs.err()
	}
	return drawSpread(dims, space.Feasible, newRNG(seed, streamMain), n, set{}), nil
}

// drawFresh draws up to n distinct feasible points that seen does not hold, adding each
// to seen (Random's draws).
func drawFresh(dims []dim, feasible func(Point) bool, r *rng, n int, seen set) []Point {
	out := make([]Point, 0, n)
	for draws := 0; len(out) < n && draws < drawsPerPoint*n+drawsBase; draws++ {
		p := samplePoint(dims, r)
		if (feasible != nil && !feasible(p)) || seen.has(p) {
			continue
		}
		seen.add(p)
		out = append(out, p)
	}
	if len(out) == n || gridSize(dims) > fillFromGridMax {
		return out
	}
	rest := enumerate(dims, feasible, seen)
	for i := 0; i < len(rest) && len(out) < n; i++ { // a partial Fisher–Yates shuffle
		j := i + r.intN(len(rest)-i)
		rest[i], rest[j] = rest[j], rest[i]
		seen.add(rest[i])
		out = append(out, rest[i])
	}
	return out
}

// set holds points by key (membership only: nothing iterates it).
type set map[string]struct{}

// has reports whether the set holds p (a nil set holds nothing).
func (s set) has(p Point) bool {
	_, ok := s[key(p)]
	return ok
}

// add puts p in the set.
func (s set) add(p Point) { s[key(p)] = struct{}{} }

package nsga2

import (
	"cmp"
	"math"
	"slices"
	"strconv"
)

// Direction says whether an objective is minimised or maximised. Its value is the sign
// that turns the objective into one to minimise; the zero Direction is invalid.
type Direction int8

// The directions.
const (
	Minimize Direction = 1
	Maximize Direction = -1
)

// String names the direction ("Minimize", "Maximize").
func (d Direction) String() string {
	switch d {
	case Minimize:
		return "Minimize"
	case Maximize:
		return "Maximize"
	}
	return "Direction(" + strconv.Itoa(int(d)) + ")"
}

// dominates reports whether objective vector a Pareto-dominates b under dirs: a is no
// worse than b in every objective and better in at least one. Equal vectors do not
// dominate each other.
func dominates(a, b []float64, dirs []Direction) bool { return dominance(a, b, dirs) < 0 }

// dominance compares a and b in one pass: -1 when a dominates b, 1 when b dominates a,
// 0 when neither does (equal, or each better somewhere).
func dominance(a, b []float64, dirs []Direction) int {
	aBetter, bBetter := false, false
	for m, d := range dirs {
		av, bv := a[m]*float64(d), b[m]*float64(d)
		if av < bv {
			aBetter = true
		} else if bv < av {
			bBetter = true
		}
		if aBetter && bBetter {
			return 0
		}
	}
	switch {
	case aBetter:
		return -1
	case bBetter:
		return 1
	}
	return 0
}

// NonDominatedSort is Deb et al.'s fast non-dominated sort (2002, section III-A): it
// splits the indices of objs into fronts, the first holding every vector no other
// dominates, the second those only the first dominate, and so on; each front's indices
// ascending. objs[i] holds one value per direction (len(dirs)); a shorter one panics.
// Equal vectors share a front. A NaN compares neither better nor worse. Cost
// O(len(dirs)·n²).
func NonDominatedSort(objs [][]float64, dirs []Direction) [][]int {
	n := len(objs)
	dominated := make([][]int, n) // dominated[p]: the q that p dominates
	count := make([]int, n)       // count[q]: how many p dominate q
	for p := range n {
		for q := p + 1; q < n; q++ {
			switch dominance(objs[p], objs[q], dirs) {
			case -1:
				dominated[p] = append(dominated[p], q)
				count[q]++
			case 1:
				dominated[q] = append(dominated[q], p)
				count[p]++
			}
		}
	}
	var fronts [][]int
	var front []int
	for p := range n {
		if count[p] == 0 {
			front = append(front, p)
		}
	}
	for len(front) > 0 {
		fronts = append(fronts, front)
		var next []int
		for _, p := range front {
			for _, q := range dominated[p] {
				if count[q]--; count[q] == 0 {
					next = append(next, q)
				}
			}
		}
		slices.Sort(next)
		front = next
	}
	return fronts
}

// CrowdingDistance is Deb et al.'s crowding distance (2002, section III-B) of the
// members of one front (indices into objs), in the order of front: per objective the
// members sorted by value (ties by index), the two ends +Inf, each other member adding
// the gap between its neighbours over the front's range in that objective (nothing when
// the range is 0). A front of one or two members is all +Inf. Direction does not matter
// to it.
func CrowdingDistance(objs [][]float64, front []int) []float64 {
	dist := make([]float64, len(front))
	if len(front) <= 2 {
		for i := range dist {
			dist[i] = math.Inf(1)
		}
		return dist
	}
	order := make([]int, len(front)) // positions in front
	for m := range objs[front[0]] {
		for i := range order {
			order[i] = i
		}
		slices.SortFunc(order, func(a, b int) int {
			if c := cmp.Compare(objs[front[a]][m], objs[front[b]][m]); c != 0 {
				return c
			}
			return cmp.Compare(front[a], front[b])
		})
		first, last := order[0], order[len(order)-1]
		dist[first], dist[last] = math.Inf(1), math.Inf(1)
		span := objs[front[last]][m] - objs[front[first]][m]
		if !(span > 0) {
			continue
		}
		for k := 1; k < len(order)-1; k++ {
			gap := objs[front[order[k+1]]][m] - objs[front[order[k-1]]][m]
			dist[order[k]] += gap / span
		}
	}
	return dist
}

// member is one result of the parent population with its rank (0: the first front;
// failed results rank after every front of the others) and crowding distance.
type member struct {
	Result
	rank  int
	crowd float64
}

// rankResults sorts a pool of results into fronts of indices under constraint
// domination: the fronts of the non-failed results by NonDominatedSort, then one front
// of every failed result (each dominated by every non-failed one, none by another).
func rankResults(pool []Result, dirs []Direction) [][]int {
	var ok, failed []int
	objs := make([][]float64, 0, len(pool))
	for i, r := range pool {
		if r.Failed {
			failed = append(failed, i)
			continue
		}
		ok = append(ok, i)
		objs = append(objs, r.Objectives)
	}
	fronts := NonDominatedSort(objs, dirs)
	for _, f := range fronts {
		for k, j := range f {
			f[k] = ok[j]
		}
	}
	if len(failed) > 0 {
		fronts = append(fronts, failed)
	}
	return fronts
}

// survivors is NSGA-II's environmental selection (Deb et al. 2002, section III-C): the
// best size results of pool, whole fronts in order, the front that does not fit whole
// cut to its members of largest crowding distance (ties: earlier in pool first). Each
// survivor carries its rank and its crowding distance within its front; failed ones 0.
func survivors(pool []Result, dirs []Direction, size int) []member {
	out := make([]member, 0, size)
	objs := make([][]float64, len(pool))
	for i, r := range pool {
		objs[i] = r.Objectives
	}
	for rank, front := range rankResults(pool, dirs) {
		if len(out) >= size {
			break
		}
		crowd := make([]float64, len(front))
		if !pool[front[0]].Failed {
			crowd = CrowdingDistance(objs, front)
		}
		pos := make([]int, len(front))
		for i := range pos {
			pos[i] = i
		}
		if len(out)+len(front) > size {
			slices.SortStableFunc(pos, func(a, b int) int { return cmp.Compare(crowd[b], crowd[a]) })
			pos = pos[:size-len(out)]
		}
		for _, i := range pos {
			out = append(out, member{Result: pool[front[i]], rank: rank, crowd: crowd[i]})
		}
	}
	return out
}

package nsga2

import (
	"cmp"
	"math"
)

// sbxVarProb is the chance that SBX recombines one variable of a crossed pair (Deb's
// NSGA-II code, pymoo's default); the others pass to the children unchanged.
const sbxVarProb = 0.5

// gene is one value of a child during variation: its variation coordinate u, and while
// it is still a parent's value unchanged (fresh false) that value v, so that an untouched
// value is copied exactly rather than round-tripped through log and exp.
type gene struct {
	u, v  float64
	fresh bool
}

// breeder makes one generation's offspring from the parents (section III-C of Deb et al.
// 2002): binary tournaments, crossover, mutation, each child decoded onto the grid.
type breeder struct {
	dims    []dim
	opt     Options // defaults filled
	r       *rng
	parents []member
	spare   Point // the second child of the last pair, not yet handed out
}

// next is the next offspring candidate (not yet checked against Feasible or duplicates).
func (b *breeder) next() Point {
	if b.spare != nil {
		c := b.spare
		b.spare = nil
		return c
	}
	p1, p2 := b.parents[b.tournament()].X, b.parents[b.tournament()].X
	c1, c2 := b.genes(p1), b.genes(p2)
	if b.r.float() < b.opt.CrossoverProb {
		b.crossover(c1, c2)
	}
	b.mutate(c1)
	b.mutate(c2)
	b.spare = b.decode(c2)
	return b.decode(c1)
}

// tournament is a binary tournament between two distinct parents drawn uniformly: the
// lower rank wins, then the larger crowding distance, then a coin.
func (b *breeder) tournament() int {
	n := len(b.parents)
	i := b.r.intN(n)
	j := b.r.intN(n - 1)
	if j >= i {
		j++
	}
	pi, pj := b.parents[i], b.parents[j]
	if c := cmp.Compare(pi.rank, pj.rank); c != 0 {
		return pick(c < 0, i, j)
	}
	if c := cmp.Compare(pi.crowd, pj.crowd); c != 0 {
		return pick(c > 0, i, j)
	}
	return pick(b.r.float() < 0.5, i, j)
}

// pick is a when first, else b.
func pick(first bool, a, b int) int {
	if first {
		return a
	}
	return b
}

// genes is a parent's point as unchanged genes.
func (b *breeder) genes(x Point) []gene {
	g := make([]gene, len(x))
	for i, d := range b.dims {
		u := x[i]
		if d.kind != Categorical {
			u = d.encode(x[i])
		}
		g[i] = gene{u: u, v: x[i]}
	}
	return g
}

// crossover recombines two children in place: each Int or Float variable, with
// probability sbxVarProb, by SBX; each Categorical by swapping the parents' choices
// with probability 1/2 (so each child takes one parent's choice).
func (b *breeder) crossover(c1, c2 []gene) {
	for i, d := range b.dims {
		if d.kind == Categorical {
			if b.r.float() < 0.5 {
				c1[i], c2[i] = c2[i], c1[i]
			}
			continue
		}
		if b.r.float() >= sbxVarProb {
			continue
		}
		u1, u2, ok := sbx(b.r, c1[i].u, c2[i].u, d.lo, d.hi, b.opt.EtaC)
		if ok {
			c1[i], c2[i] = gene{u: u1, fresh: true}, gene{u: u2, fresh: true}
		}
	}
}

// sbx is the bounded simulated binary crossover of Deb & Agrawal (1995), as in Deb's
// NSGA-II code: two children spread around parents y1, y2 in [lo, hi] with the
// distribution index eta (larger: children nearer the parents), the spread on each side
// shrunk so that no child falls outside the bounds, the children's order a coin flip.
// ok is false (children = parents) when the parents are equal.
func sbx(r *rng, y1, y2, lo, hi, eta float64) (c1, c2 float64, ok bool) {
	if math.Abs(y2-y1) <= 1e-14 || !(hi > lo) {
		return y1, y2, false
	}
	if y1 > y2 {
		y1, y2 = y2, y1
	}
	u := r.float()
	spread := y2 - y1
	betaq := func(beta float64) float64 {
		alpha := 2 - math.Pow(beta, -(eta+1))
		if u <= 1/alpha {
			return math.Pow(u*alpha, 1/(eta+1))
		}
		return math.Pow(1/(2-u*alpha), 1/(eta+1))
	}
	c1 = 0.5 * (y1 + y2 - betaq(1+2*(y1-lo)/spread)*spread)
	c2 = 0.5 * (y1 + y2 + betaq(1+2*(hi-y2)/spread)*spread)
	c1, c2 = math.Min(math.Max(c1, lo), hi), math.Min(math.Max(c2, lo), hi)
	if r.float() < 0.5 {
		c1, c2 = c2, c1
	}
	return c1, c2, true
}

// mutate mutates a child in place, each variable with probability MutationProb: an Int
// or Float by polynomial mutation, a Categorical to a uniformly drawn other choice.
func (b *breeder) mutate(c []gene) {
	for i, d := range b.dims {
		if b.r.float() >= b.opt.MutationProb {
			continue
		}
		switch {
		case d.kind == Categorical && d.n > 1:
			k := b.r.intN(d.n - 1)
			if k >= int(c[i].u) {
				k++
			}
			c[i] = gene{u: float64(k), fresh: true}
		case d.kind != Categorical && d.hi > d.lo:
			c[i] = gene{u: polyMutate(b.r, c[i].u, d.lo, d.hi, b.opt.EtaM), fresh: true}
		}
	}
}

// polyMutate is the bounded polynomial mutation of Deb & Goyal (1996), as in Deb's
// NSGA-II code: y in [lo, hi] moved by a perturbation whose distribution (index eta,
// larger: smaller moves) is shrunk on each side so that the result stays in bounds.
func polyMutate(r *rng, y, lo, hi, eta float64) float64 {
	y = math.Min(math.Max(y, lo), hi)
	width := hi - lo
	u := r.float()
	var dq float64
	if u < 0.5 {
		xy := 1 - (y-lo)/width
		val := 2*u + (1-2*u)*math.Pow(xy, eta+1)
		dq = math.Pow(val, 1/(eta+1)) - 1
	} else {
		xy := 1 - (hi-y)/width
		val := 2*(1-u) + 2*(u-0.5)*math.Pow(xy, eta+1)
		dq = 1 - math.Pow(val, 1/(eta+1))
	}
	return math.Min(math.Max(y+dq*width, lo), hi)
}

// decode is a child's point: an unchanged gene's parent value, a changed one decoded
// onto its grid.
func (b *breeder) decode(c []gene) Point {
	p := make(Point, len(c))
	for i, g := range c {
		switch {
		case !g.fresh:
			p[i] = g.v
		case b.dims[i].kind == Categorical:
			p[i] = g.u
		default:
			p[i] = b.dims[i].decode(g.u)
		}
	}
	return p
}

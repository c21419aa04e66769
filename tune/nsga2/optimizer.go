package nsga2

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// Result is one evaluated point: the point as asked, and either one objective value per
// direction or Failed. A failed point (the trial crashed, the server did not start)
// never stops the search: under constraint domination every non-failed result
// dominates it and failed results do not dominate each other, so failed points rank
// after all others and never enter Front; their Objectives are ignored.
type Result struct {
	X          Point
	Objectives []float64
	Failed     bool
}

// Errors of Tell, wrapped with the generation and the result's index.
var (
	// ErrNotAsked is a Tell with no Ask pending (before the first Ask, or twice).
	ErrNotAsked = errors.New("no points asked: call Ask before Tell")
	// ErrResults is a Tell whose results do not answer the last Ask: another count, a
	// point not the one asked at that position, or objectives of the wrong count or
	// not finite.
	ErrResults = errors.New("results do not answer the asked points")
)

// maxChildTries is how many offspring candidates one slot of a generation draws before
// it falls back to a random fresh point.
const maxChildTries = 50

// Optimizer is an NSGA-II search (Deb et al. 2002) over a Space: Ask a generation,
// evaluate its points, Tell their results, until Done. It is not safe for concurrent
// use; it starts no goroutines and draws every random number from one PCG seeded from
// Options.Seed, so the same space, directions, Options and told results always give the
// same points.
type Optimizer struct {
	dims     []dim
	feasible func(Point) bool
	dirs     []Direction
	opt      Options
	r        *rng
	anchor   Point // a feasible point New found, the last resort of the first generation
	gen      int   // generations told
	pending  []Point
	parents  []member
	seen     set            // every point asked
	told     []Result       // every result told, in order
	byKey    map[string]int // a point's key → its first result in told
	front    []Result       // the non-dominated non-failed results, in the order told
}

// New returns an optimizer over space minimising or maximising one objective per
// direction in dirs, or the problems found as *FieldErrors joined: a Param's Name
// empty or repeated, Kind unset, Min or Max not finite, Min > Max, Step < 0, an Int's
// bound or Step not integral, Log with Min ≤ 0, Choices set on an Int or Float or < 1 on
// a Categorical, no Params, no dirs or one neither Minimize nor Maximize, Population < 2,
// Offspring < 0, Generations < 1, a probability outside (0, 1], a distribution index ≤ 0; and
// Feasible rejecting every point of a probe of rejection sampling (and of the whole grid
// when it holds at most 100,000 points).
func New(space Space, dirs []Direction, opt Options) (*Optimizer, error) {
	dims, err := compile(space)
	var errs fieldErrors
	checkDirs(dirs, &errs)
	opt = opt.resolve(len(space.Params), &errs)
	if err = errors.Join(err, errs.err()); err != nil {
		return nil, err
	}
	anchor := drawFresh(dims, space.Feasible, newRNG(opt.Seed, streamProbe), 1, set{})
	if len(anchor) == 0 {
		errs.add(-1, "", "Feasible", "", fmt.Sprintf("rejected every point of %d random draws (and of the grid, when it holds at most %d)", drawsPerPoint+drawsBase, fillFromGridMax))
		return nil, errs.err()
	}
	return &Optimizer{
		dims: dims, feasible: space.Feasible, dirs: slices.Clone(dirs), opt: opt,
		r: newRNG(opt.Seed, streamMain), anchor: anchor[0],
		seen: set{}, byKey: map[string]int{},
	}, nil
}

// Ask returns the next generation's points to evaluate (Population in the first, then
// Offspring), each on its grid, in
// bounds and accepted by Feasible; it returns the same points again until Tell, and nil
// once Done. Generation 0 is Random's draw (distinct where the space allows; repeated
// points fill it only when fewer exist). A later generation is offspring of the parents
// (Deb et al. 2002): binary tournaments (rank, then crowding distance), SBX crossover and
// polynomial mutation in variation coordinates (log space with Log), each child rounded
// to its grid and bounds; a child that Feasible rejects, or that repeats a point of this
// generation or any point asked before, is bred again (at most 50 times), then replaced
// by a random fresh point; only when none is found does a child repeat a point asked
// before (see Lookup), one not yet in this generation where the space holds one.
func (o *Optimizer) Ask() []Point {
	if o.pending == nil && !o.Done() {
		if o.gen == 0 {
			o.pending = o.initial()
		} else {
			o.pending = o.offspring()
		}
	}
	return clonePoints(o.pending)
}

// initial is generation 0: distinct random feasible points, repeated in order to fill
// the population when the space holds fewer.
func (o *Optimizer) initial() []Point {
	pts := drawSpread(o.dims, o.feasible, o.r, o.opt.Population, o.seen)
	if len(pts) == 0 {
		pts = append(pts, slices.Clone(o.anchor))
		o.seen.add(o.anchor)
	}
	for i := 0; len(pts) < o.opt.Population; i++ {
		pts = append(pts, slices.Clone(pts[i]))
	}
	return pts
}

// offspring is a later generation: Offspring children of the parents.
func (o *Optimizer) offspring() []Point {
	b := &breeder{dims: o.dims, opt: o.opt, r: o.r, parents: o.parents}
	gen := set{}
	out := make([]Point, 0, o.opt.Offspring)
	exhausted := false // no fresh point left for a random draw to find
	for len(out) < o.opt.Offspring {
		c := o.child(b, gen, &exhausted)
		gen.add(c)
		o.seen.add(c)
		out = append(out, c)
	}
	return out
}

// child is one slot of a generation: a feasible child new to the search, else a random
// fresh point, else a child that repeats an earlier generation's point, else a random
// point not in this generation, else a parent.
func (o *Optimizer) child(b *breeder, gen set, exhausted *bool) Point {
	var repeat Point
	for range maxChildTries {
		c := b.next()
		if (o.feasible != nil && !o.feasible(c)) || gen.has(c) {
			continue
		}
		if !o.seen.has(c) {
			return c
		}
		if repeat == nil {
			repeat = c
		}
	}
	if !*exhausted {
		if fresh := drawFresh(o.dims, o.feasible, o.r, 1, o.seen); len(fresh) == 1 {
			return fresh[0]
		}
		*exhausted = true
	}
	if repeat != nil {
		return repeat
	}
	if other := drawFresh(o.dims, o.feasible, o.r, 1, gen); len(other) == 1 {
		return other[0] // a point asked before, but not in this generation
	}
	return slices.Clone(b.parents[b.tournament()].X)
}

// Tell records the results of the points of the last Ask, one per point in the order
// asked, and selects the next parents (μ+λ): the best Population of the parents and
// these results by fast non-dominated sort and crowding distance, failed results last.
// It fails, changing nothing, with ErrNotAsked when no Ask is pending, and with
// ErrResults (wrapped, naming the result) when the count differs from the asked, a
// result's X is not the point asked at its position, or a non-failed result does not
// hold one finite objective per direction.
func (o *Optimizer) Tell(results []Result) error {
	if o.pending == nil {
		return fmt.Errorf("nsga2: tell after generation %d: %w", o.gen, ErrNotAsked)
	}
	if len(results) != len(o.pending) {
		return fmt.Errorf("nsga2: tell generation %d: %d results for %d points: %w", o.gen, len(results), len(o.pending), ErrResults)
	}
	for i, r := range results {
		if err := o.check(i, r); err != nil {
			return fmt.Errorf("nsga2: tell generation %d: result %d: %w", o.gen, i, err)
		}
	}
	pool := make([]Result, 0, len(o.parents)+len(results))
	for _, m := range o.parents {
		pool = append(pool, m.Result)
	}
	for _, r := range results {
		r = Result{X: slices.Clone(r.X), Objectives: slices.Clone(r.Objectives), Failed: r.Failed}
		if r.Failed {
			r.Objectives = nil
		}
		pool = append(pool, r)
		o.record(r)
	}
	o.parents = survivors(pool, o.dirs, o.opt.Population)
	o.gen++
	o.pending = nil
	return nil
}

// check is the problem with result i, if any.
func (o *Optimizer) check(i int, r Result) error {
	if !slices.Equal(r.X, o.pending[i]) {
		return fmt.Errorf("point %v, but %v was asked there: %w", r.X, o.pending[i], ErrResults)
	}
	if r.Failed {
		return nil
	}
	if len(r.Objectives) != len(o.dirs) {
		return fmt.Errorf("%d objectives for %d directions: %w", len(r.Objectives), len(o.dirs), ErrResults)
	}
	for m, v := range r.Objectives {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("objective %d is %v (mark the result Failed instead): %w", m, v, ErrResults)
		}
	}
	return nil
}

// record adds one told result to the history and, when no result told dominates it, to
// the front, dropping the members it dominates.
func (o *Optimizer) record(r Result) {
	k := key(r.X)
	if _, ok := o.byKey[k]; !ok {
		o.byKey[k] = len(o.told)
	}
	o.told = append(o.told, r)
	if r.Failed {
		return
	}
	// One pass, compacting in place: a member that dominates r dominates none r would
	// remove (the front holds no dominated member), so none is removed before it.
	kept := o.front[:0]
	for _, a := range o.front {
		switch dominance(a.Objectives, r.Objectives, o.dirs) {
		case -1:
			return
		case 0:
			kept = append(kept, a)
		}
	}
	clear(o.front[len(kept):])
	o.front = append(kept, r)
}

// Front returns the non-dominated set of every non-failed result told so far, in the
// order told: no result told dominates any of them. Results with equal objectives are
// all kept (a point told twice appears twice). Copies: changing them changes nothing.
func (o *Optimizer) Front() []Result {
	out := make([]Result, len(o.front))
	for i, r := range o.front {
		out[i] = Result{X: slices.Clone(r.X), Objectives: slices.Clone(r.Objectives)}
	}
	return out
}

// Lookup returns the first result told for point x, if any: a caller that must
// evaluate a point asked again (a small space spent) can reuse it.
func (o *Optimizer) Lookup(x Point) (Result, bool) {
	i, ok := o.byKey[key(x)]
	if !ok {
		return Result{}, false
	}
	r := o.told[i]
	return Result{X: slices.Clone(r.X), Objectives: slices.Clone(r.Objectives), Failed: r.Failed}, true
}

// Generation is the number of generations told so far (the index of the next Ask).
func (o *Optimizer) Generation() int { return o.gen }

// Done reports whether all Options.Generations generations have been told.
func (o *Optimizer) Done() bool { return o.gen >= o.opt.Generations }

// clonePoints is a deep copy of pts (nil for nil).
func clonePoints(pts []Point) []Point {
	if pts == nil {
		return nil
	}
	out := make([]Point, len(pts))
	for i, p := range pts {
		out[i] = slices.Clone(p)
	}
	return out
}

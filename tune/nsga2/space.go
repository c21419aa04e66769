package nsga2

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Kind is the type of a Param's values and of the variation applied to them.
type Kind uint8

// The kinds of Param. The zero Kind is invalid, so that a Param whose Kind was
// forgotten is refused by New rather than taken for an Int.
const (
	// Int takes the integers Min, Min+Step, … up to Max (Step 0 means 1).
	Int Kind = iota + 1
	// Float takes any value in [Min, Max] (Step 0), or the grid Min, Min+Step, … ≤ Max.
	Float
	// Categorical takes the indices 0 … Choices-1, with no order among them.
	Categorical
)

// String names the kind as in the Go source ("Int", "Float", "Categorical").
func (k Kind) String() string {
	switch k {
	case Int:
		return "Int"
	case Float:
		return "Float"
	case Categorical:
		return "Categorical"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Param is one dimension of a Space.
//
// Int: the integers on the grid Min, Min+Step, … ≤ Max (Min, Max and Step integral,
// Step 0 means 1). Float: [Min, Max] when Step is 0, else the grid Min, Min+Step, … ≤ Max,
// each grid value rounded to the decimals of Min and Step (0.8 + 5×0.01 is 0.85, not
// 0.8500000000000001). With Log (Min > 0) an Int or Float is sampled and varied in
// log space and then rounded to its grid, so that 8…1024 is searched as evenly
// around 16 as around 512. Categorical: the indices 0 … Choices-1; Min, Max, Step and
// Log must be left zero.
type Param struct {
	Name     string
	Kind     Kind
	Min, Max float64
	// Step is the grid's spacing (0: Int 1, Float continuous).
	Step float64
	// Log samples and varies the value in log space (Int, Float; needs Min > 0).
	Log bool
	// Choices is a Categorical's number of values (≥ 1).
	Choices int
}

// Space is the search space: its Params in a fixed order (a Point holds one value per
// Param, in that order) and an optional constraint.
type Space struct {
	Params []Param
	// Feasible, when set, accepts or rejects a Point that is on every Param's grid;
	// nil accepts all. It must be a pure function of the Point (the optimizer's
	// determinism rests on it) and must not keep or change the Point.
	Feasible func(Point) bool
}

// Point is one value per Param of a Space, in the Space's order: an Int integral, a
// Categorical its index, every value on its Param's grid and in its bounds. The points
// that New's Optimizer, Grid and Random return always are.
type Point []float64

// maxGridCount bounds a stepped Param's number of grid values: float64 counts them
// exactly only up to 2⁵³.
const maxGridCount = 1 << 53

// dim is a validated Param compiled for sampling and variation. Variation works on a
// continuous coordinate u in [lo, hi] (the log of the value when log is set); decode
// maps u back to a value on the grid.
type dim struct {
	kind     Kind
	min, max float64
	step     float64 // 0: continuous
	n        int     // grid values (stepped Int and Float) or choices (Categorical); 0: continuous
	log      bool
	decimals int // decimals a Float grid value is rounded to; -1: none
	lo, hi   float64
}

// compile validates the space's Params and returns them compiled, or every problem
// found as FieldErrors joined.
func compile(space Space) ([]dim, error) {
	var errs fieldErrors
	if len(space.Params) == 0 {
		errs.add(-1, "", "Params", "", "must hold at least one Param")
	}
	names := make(map[string]int, len(space.Params))
	dims := make([]dim, len(space.Params))
	for i, p := range space.Params {
		if p.Name == "" {
			errs.add(i, p.Name, "Name", "", "must not be empty")
		} else if j, dup := names[p.Name]; dup {
			errs.add(i, p.Name, "Name", strconv.Quote(p.Name), fmt.Sprintf("is also param %d's: names must be unique", j))
		} else {
			names[p.Name] = i
		}
		dims[i] = compileParam(i, p, &errs)
	}
	return dims, errs.err()
}

// compileParam checks one Param, adding its problems to errs, and compiles it.
func compileParam(i int, p Param, errs *fieldErrors) dim {
	switch p.Kind {
	case Categorical:
		if p.Choices < 1 {
			errs.add(i, p.Name, "Choices", strconv.Itoa(p.Choices), "a Categorical needs at least 1 choice")
		}
		if p.Min != 0 || p.Max != 0 || p.Step != 0 || p.Log {
			errs.add(i, p.Name, "Min/Max/Step/Log", "", "must be left zero for a Categorical (its values are 0 … Choices-1)")
		}
		return dim{kind: Categorical, n: max(p.Choices, 1), max: float64(max(p.Choices, 1) - 1), decimals: -1}
	case Int, Float:
		return compileNumeric(i, p, errs)
	}
	errs.add(i, p.Name, "Kind", p.Kind.String(), "must be Int, Float or Categorical")
	return dim{kind: Int, n: 1, decimals: -1}
}

// compileNumeric checks and compiles an Int or Float Param.
func compileNumeric(i int, p Param, errs *fieldErrors) dim {
	before := len(*errs)
	num := func(field string, v float64) {
		switch {
		case math.IsNaN(v) || math.IsInf(v, 0):
			errs.add(i, p.Name, field, fmtF(v), "must be finite")
		case p.Kind == Int && (v != math.Trunc(v) || math.Abs(v) > maxGridCount):
			errs.add(i, p.Name, field, fmtF(v), "an Int's bounds and step must be integers of magnitude ≤ 2⁵³")
		}
	}
	num("Min", p.Min)
	num("Max", p.Max)
	num("Step", p.Step)
	if p.Min > p.Max {
		errs.add(i, p.Name, "Max", fmtF(p.Max), "must be ≥ Min "+fmtF(p.Min))
	}
	if p.Step < 0 {
		errs.add(i, p.Name, "Step", fmtF(p.Step), "must be > 0, or 0 for the default (Int 1, Float continuous)")
	}
	if p.Log && !(p.Min > 0) {
		errs.add(i, p.Name, "Min", fmtF(p.Min), "must be > 0 with Log")
	}
	if p.Choices != 0 {
		errs.add(i, p.Name, "Choices", strconv.Itoa(p.Choices), "is for a Categorical only")
	}
	step := p.Step
	if p.Kind == Int && step == 0 {
		step = 1
	}
	if len(*errs) > before {
		return dim{kind: p.Kind, min: p.Min, max: p.Min, n: 1, decimals: -1}
	}
	d := dim{kind: p.Kind, min: p.Min, max: p.Max, step: step, log: p.Log, decimals: -1}
	if step > 0 {
		count := math.Floor((p.Max-p.Min)/step+1e-9) + 1
		if count > maxGridCount {
			errs.add(i, p.Name, "Step", fmtF(step), "is too fine for the range: above 2⁵³ grid values")
			return dim{kind: p.Kind, min: p.Min, max: p.Min, n: 1, decimals: -1}
		}
		d.n = int(count)
		if p.Kind == Float {
			d.decimals = floatDecimals(p.Min, step)
		}
	}
	d.lo, d.hi = d.bounds()
	return d
}

// bounds is the coordinate range variation works in: the value range, widened by half a
// step at each end on a grid (so that rounding gives every grid value, the end ones
// included, the same share of it), in log space when log is set.
func (d dim) bounds() (lo, hi float64) {
	lo, hi = d.min, d.max
	if d.step > 0 {
		lo, hi = d.min-d.step/2, d.value(d.n-1)+d.step/2
	}
	if !d.log {
		return lo, hi
	}
	if lo <= 0 { // a grid starting within half a step of 0: no room below Min in log space
		lo = d.min
	}
	return math.Log(lo), math.Log(hi)
}

// value is the k-th grid value of a stepped dim (the k-th choice of a Categorical).
func (d dim) value(k int) float64 {
	if d.kind == Categorical {
		return float64(k)
	}
	v := d.min + float64(k)*d.step
	if d.decimals >= 0 {
		v, _ = strconv.ParseFloat(strconv.FormatFloat(v, 'f', d.decimals, 64), 64)
	}
	return math.Min(math.Max(v, d.min), d.max)
}

// encode is a value's variation coordinate.
func (d dim) encode(v float64) float64 {
	if d.log {
		return math.Log(v)
	}
	return v
}

// decode is the value on the grid nearest the variation coordinate u, within bounds.
func (d dim) decode(u float64) float64 {
	u = math.Min(math.Max(u, d.lo), d.hi)
	x := u
	if d.log {
		x = math.Exp(u)
	}
	if d.step == 0 {
		return math.Min(math.Max(x, d.min), d.max)
	}
	k := int(math.Round((x - d.min) / d.step))
	return d.value(min(max(k, 0), d.n-1))
}

// sample draws one value: uniform over the coordinate range (log-uniform with log), then
// rounded to the grid; a Categorical's choice uniformly.
func (d dim) sample(r *rng) float64 {
	if d.kind == Categorical {
		return float64(r.intN(d.n))
	}
	return d.decode(d.lo + (d.hi-d.lo)*r.float())
}

// floatDecimals is the number of decimals a Float grid value is rounded to: the most
// of Min's and Step's shortest decimal forms, or -1 (no rounding) when either needs
// more than 15 or an exponent.
func floatDecimals(vals ...float64) int {
	most := 0
	for _, v := range vals {
		s := strconv.FormatFloat(math.Abs(v), 'f', -1, 64)
		dot := strings.IndexByte(s, '.')
		if dot < 0 {
			continue
		}
		if n := len(s) - dot - 1; n > most {
			most = n
		}
	}
	if most > 15 {
		return -1
	}
	return most
}

// gridSize is the number of points of the space's grid (before Feasible), +Inf when a
// continuous Float makes it infinite.
func gridSize(dims []dim) float64 {
	n := 1.0
	for _, d := range dims {
		if d.n == 0 {
			return math.Inf(1)
		}
		n *= float64(d.n)
	}
	return n
}

// sample draws one point (not checked against Feasible).
func samplePoint(dims []dim, r *rng) Point {
	p := make(Point, len(dims))
	for i, d := range dims {
		p[i] = d.sample(r)
	}
	return p
}

// key is a point's identity for de-duplication: its values' bits (-0 as 0).
func key(p Point) string {
	b := make([]byte, 0, 8*len(p))
	for _, v := range p {
		if v == 0 {
			v = 0 // -0 and 0 are one value
		}
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
	}
	return string(b)
}

// fmtF formats a number as the shortest decimal that reads back the same.
func fmtF(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

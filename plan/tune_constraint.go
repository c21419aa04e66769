package plan

import (
	"fmt"
	"strconv"
	"strings"
)

// TuneConstraint is one parsed tune.constraints entry: Left Op Right, each side a
// parameter name or a number.
type TuneConstraint struct {
	Left, Op, Right string
}

// tuneOps are the comparison operators of a constraint, longest first (so ">=" is not
// read as ">").
var tuneOps = []string{">=", "<=", "==", "!=", ">", "<"}

// ParseTuneConstraint parses "A op B" (op one of >=, <=, >, <, ==, !=; A and B a
// parameter name or a number). Errors: no operator, or an empty side.
func ParseTuneConstraint(s string) (TuneConstraint, error) {
	for _, op := range tuneOps {
		if l, r, ok := strings.Cut(s, op); ok {
			c := TuneConstraint{Left: strings.TrimSpace(l), Op: op, Right: strings.TrimSpace(r)}
			if c.Left == "" || c.Right == "" || strings.ContainsAny(c.Right, "<>=!") {
				return c, fmt.Errorf("want \"A op B\" with one operator (%s)", strings.Join(tuneOps, ", "))
			}
			return c, nil
		}
	}
	return TuneConstraint{}, fmt.Errorf("no operator: want \"A op B\", op one of %s", strings.Join(tuneOps, ", "))
}

// Names returns the sides of c that are not numbers (parameter names).
func (c TuneConstraint) Names() []string {
	var out []string
	for _, s := range []string{c.Left, c.Right} {
		if _, err := strconv.ParseFloat(s, 64); err != nil {
			out = append(out, s)
		}
	}
	return out
}

// Holds reports whether the constraint holds for the parameter values (numeric;
// categoricals are not comparable). ok is false when a side names no value.
func (c TuneConstraint) Holds(values map[string]float64) (holds, ok bool) {
	side := func(s string) (float64, bool) {
		if v, err := strconv.ParseFloat(s, 64); err == nil {
			return v, true
		}
		v, ok := values[s]
		return v, ok
	}
	l, okL := side(c.Left)
	r, okR := side(c.Right)
	if !okL || !okR {
		return false, false
	}
	switch c.Op {
	case ">=":
		return l >= r, true
	case "<=":
		return l <= r, true
	case ">":
		return l > r, true
	case "<":
		return l < r, true
	case "==":
		return l == r, true
	default:
		return l != r, true
	}
}

// String is the constraint as written, normalised: "A op B".
func (c TuneConstraint) String() string { return c.Left + " " + c.Op + " " + c.Right }

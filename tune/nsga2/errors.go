package nsga2

import (
	"errors"
	"fmt"
)

// FieldError is one problem with one field of a Space's Param, of the Space itself, of
// the directions or of Options. New, Grid and Random return every problem they find,
// each a *FieldError, joined with errors.Join (find one with errors.As).
type FieldError struct {
	// Index is the Param's index in Space.Params, -1 for a problem not of one Param.
	Index int
	// Param is the Param's Name ("" when not of one Param, or the name is empty).
	Param string
	// Field is the field at fault: "Min", "Step", "Choices", "Population", "dirs[1]", ….
	Field string
	// Value is the offending value as written ("" when the problem is an absence).
	Value string
	// Allowed says what is allowed instead, e.g. "must be ≥ Min 10".
	Allowed string
}

// Error formats the problem as `nsga2: param 0 "max_num_seqs": Max 4 is not allowed:
// must be ≥ Min 8` (without the param for a field of Options, without the value when
// there is none).
func (e *FieldError) Error() string {
	where := "nsga2: "
	if e.Index >= 0 {
		where += fmt.Sprintf("param %d %q: ", e.Index, e.Param)
	}
	if e.Value == "" {
		return where + e.Field + ": " + e.Allowed
	}
	return fmt.Sprintf("%s%s %s is not allowed: %s", where, e.Field, e.Value, e.Allowed)
}

// fieldErrors collects the problems of one validation.
type fieldErrors []error

// add records one problem.
func (fe *fieldErrors) add(index int, param, field, value, allowed string) {
	*fe = append(*fe, &FieldError{Index: index, Param: param, Field: field, Value: value, Allowed: allowed})
}

// err is every problem joined, nil when there is none.
func (fe fieldErrors) err() error { return errors.Join(fe...) }

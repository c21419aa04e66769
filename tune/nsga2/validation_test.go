package nsga2

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// problems is every FieldError of err, by "param.field".
func problems(err error) map[string]*FieldError {
	out := map[string]*FieldError{}
	var walk func(error)
	walk = func(e error) {
		if j, ok := e.(interface{ Unwrap() []error }); ok {
			for _, x := range j.Unwrap() {
				walk(x)
			}
			return
		}
		var fe *FieldError
		if errors.As(e, &fe) {
			out[fe.Param+"."+fe.Field] = fe
		}
	}
	walk(err)
	return out
}

func TestNewNamesEveryBadParamAndField(t *testing.T) {
	s := Space{Params: []Param{
		{Name: "seqs", Kind: Int, Min: 10, Max: 5},
		{Name: "seqs", Kind: Int, Min: 1, Max: 8},
		{Name: "frac", Kind: Float, Min: 0, Max: 1, Step: -0.1},
		{Name: "logf", Kind: Float, Min: 0, Max: 1, Log: true},
		{Name: "half", Kind: Int, Min: 0.5, Max: 4},
		{Name: "cat", Kind: Categorical},
		{Name: "catmin", Kind: Categorical, Choices: 2, Min: 1},
		{Name: "nokind", Min: 0, Max: 1},
		{Name: "nan", Kind: Float, Min: math.NaN(), Max: 1},
		{Name: "intchoices", Kind: Int, Min: 0, Max: 3, Choices: 2},
		{Name: "", Kind: Float, Min: 0, Max: 1},
	}}
	_, err := New(s, []Direction{Minimize, 0}, Options{Population: 1, Offspring: -1, Generations: 0, CrossoverProb: 1.5, EtaM: -1})
	if err == nil {
		t.Fatal("no error")
	}
	got := problems(err)
	for _, want := range []string{
		"seqs.Max", "seqs.Name", "frac.Step", "logf.Min", "half.Min", "cat.Choices", "catmin.Min/Max/Step/Log",
		"nokind.Kind", "nan.Min", "intchoices.Choices", ".Name",
		".dirs[1]", ".Population", ".Offspring", ".Generations", ".CrossoverProb", ".EtaM",
	} {
		if got[want] == nil {
			t.Errorf("no problem reported for %s", want)
		}
	}
	if len(got) != 17 {
		t.Errorf("%d problems, want 17:\n%v", len(got), err)
	}
	msg := got["seqs.Max"].Error()
	if !strings.Contains(msg, `param 0 "seqs"`) || !strings.Contains(msg, "Max 5") || !strings.Contains(msg, "Min 10") {
		t.Errorf("message %q does not name the param, the field and the bound", msg)
	}
	if fe := got["seqs.Name"]; fe.Index != 1 {
		t.Errorf("the repeated name is reported at param %d, want 1", fe.Index)
	}
	t.Logf("all problems:\n%v", err)
}

func TestNewRefusesAnInfeasibleSpaceAndEmptyInputs(t *testing.T) {
	s := lineSpace()
	s.Feasible = func(Point) bool { return false }
	if _, err := New(s, []Direction{Minimize}, Options{Population: 2, Generations: 1}); problems(err)[".Feasible"] == nil {
		t.Errorf("Feasible rejecting all: %v, want a problem on Feasible", err)
	}
	got := problems(func() error { _, err := New(Space{}, nil, Options{Population: 2, Generations: 1}); return err }())
	if got[".Params"] == nil || got[".dirs"] == nil {
		t.Errorf("no params, no dirs: problems %v", got)
	}
	if _, err := New(lineSpace(), []Direction{Maximize}, Options{Population: 3, Generations: 1}); err != nil {
		t.Errorf("an odd population and defaults: %v", err)
	}
}

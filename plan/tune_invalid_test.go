package plan

import (
	"errors"
	"strings"
	"testing"
)

// okTune is a valid tune section; each case below breaks one field of it.
const okTune = `
target: {model: m}
tune:
  launch:
    command: ["srv", "--port", "{port}", "--seqs", "{max_num_seqs}", "--dtype", "{dtype}"]
  space:
    - {name: max_num_seqs, type: int, min: 8, max: 64, step: 8}
    - {name: dtype, type: categorical, values: [auto, fp8]}
  baseline: {max_num_seqs: 16, dtype: auto}
`

// TestTuneSectionErrorsNameTheField: every broken tune field is an error naming its
// path and what is allowed, and a valid section gets its defaults.
func TestTuneSectionErrorsNameTheField(t *testing.T) {
	p, err := Load(writePlan(t, okSegments+okLadder+okTune), nil)
	if err != nil {
		t.Fatalf("valid tune: %v", err)
	}
	tu := p.Tune
	if tu.Algorithm != TuneNSGA2 || tu.Population != DefaultTunePop || tu.Launch.URL != DefaultTuneURL ||
		len(tu.Objectives) != 1 || tu.Objectives[0].Metric != TuneConcurrency || tu.Objectives[0].Direction != TuneMaximize {
		t.Errorf("defaults: %+v", tu)
	}
	cases := []struct{ from, to, want string }{
		{`"{max_num_seqs}",`, `"{max_seqs}",`, `tune.launch.command[4]: "{max_seqs}" is not allowed: placeholder {max_seqs} is not one of {port}, {llmcap}, {max_num_seqs}, {dtype}`},
		{`command: ["srv", "--port", "{port}", "--seqs", "{max_num_seqs}", "--dtype", "{dtype}"]`, `command: []`, `tune.launch.command: empty is not allowed`},
		{`"--dtype", "{dtype}"]`, `]`, `tune.space[1].name: "dtype" is not allowed: appears in neither tune.launch.command nor env as {dtype}`},
		{`"--port", "{port}", `, ``, `tune.launch.command: no {port} is not allowed: the server must be told the trial's port`},
		{`    command:`, "    url: http://127.0.0.1:8000/v1\n    command:", `tune.launch.url: "http://127.0.0.1:8000/v1" is not allowed: the server is told {port}`},
		{`values: [auto, fp8]`, `values: [auto, auto]`, `tune.space[1].values[1]: "auto" is not allowed: is listed twice`},
		{`target: {model: m}`, `target: {model: m, url: "http://h:1/v1"}`, `target.url: "http://h:1/v1" is not allowed: tune.launch.url is each trial's server`},
		{`  baseline:`, "  objectives: [{metric: concurrency}, {metric: cost_per_user}]\n  baseline:", `tune.objectives[1].metric: "cost_per_user" is not allowed: needs report.gpu_hour_usd`},
		{`min: 8, max: 64`, `min: 80, max: 64`, `tune.space[0].min: 80 is not allowed: must be <= max (64)`},
		{`step: 8}`, `step: 8, log: true}`, ``}, // log with min > 0 is fine
		{`min: 8, max: 64, step: 8}`, `min: 0, max: 64, log: true}`, `tune.space[0].min: 0 is not allowed: must be > 0 with log`},
		{`{name: dtype, type: categorical, values: [auto, fp8]}`, `{name: dtype, type: categorical}`, `tune.space[1].values: empty is not allowed: a categorical parameter lists its values`},
		{`{name: dtype,`, `{name: max_num_seqs,`, `tune.space[1].name: "max_num_seqs" is not allowed: is listed twice`},
		{`type: int,`, `type: integer,`, `tune.space[0].type: "integer" is not allowed: must be one of int, float, categorical`},
		{`baseline: {max_num_seqs: 16, dtype: auto}`, `baseline: {max_num_seqs: 12, dtype: auto}`, `tune.baseline.max_num_seqs: 12 is not allowed: must be on the grid 8 + k × 8`},
		{`baseline: {max_num_seqs: 16, dtype: auto}`, `baseline: {dtype: auto}`, `tune.baseline.max_num_seqs: missing is not allowed`},
		{`baseline: {max_num_seqs: 16, dtype: auto}`, `baseline: {max_num_seqs: 16, dtype: auto, other: 1}`, `tune.baseline.other: set is not allowed: is not a parameter of tune.space`},
		{`  baseline:`, "  constraints: [\"max_num_seqs >= \"]\n  baseline:", `tune.constraints[0]: "max_num_seqs >= " is not allowed: want "A op B"`},
		{`  baseline:`, "  constraints: [\"dtype == 1\"]\n  baseline:", `"dtype" is categorical: constraints compare int and float parameters`},
		{`  baseline:`, "  constraints: [\"seqs >= 1\"]\n  baseline:", `"seqs" is neither a number nor a parameter of tune.space`},
		{`  baseline:`, "  objectives: [{metric: speed}]\n  baseline:", `tune.objectives[0].metric: "speed" is not allowed: must be one of users, concurrency, cost_per_user, peak_rss_mib, gpu_memory_mib, ttft_p95_at_target_ms`},
		{`  baseline:`, "  objectives: [{metric: users}]\n  baseline:", `tune.objectives[0].metric: "users" is not allowed: the ladder measures concurrency`},
		{`  baseline:`, "  objectives: [{metric: ttft_p95_at_target_ms}]\n  baseline:", `needs tune.target_load`},
		{`  baseline:`, "  objectives: [{metric: concurrency, direction: up}]\n  baseline:", `tune.objectives[0].direction: "up" is not allowed: must be one of maximize, minimize`},
		{`  baseline:`, "  algorithm: random\n  baseline:", `tune.budget.trials: 0 is not allowed: must be > 0 for algorithm random`},
		{`  baseline:`, "  algorithm: bayes\n  baseline:", `tune.algorithm: "bayes" is not allowed: must be one of nsga2, grid, random`},
		{`  baseline:`, "  population: 1\n  baseline:", `tune.population: 1 is not allowed: must be 2 to 10000`},
		{`  baseline:`, "  offspring: -2\n  baseline:", `tune.offspring: -2 is not allowed: must be 1 to 10000, or 0 for the population`},
		{`target: {model: m}`, "target: {model: m, launch: {command: [x]}}", `target.launch: set is not allowed: tune.launch starts each trial's server`},
		{`target: {model: m}`, "target: {api: chat}", `target.model: "" is not allowed: must name the model the server of tune.launch serves`},
	}
	for _, c := range cases {
		y := strings.Replace(okSegments+okLadder+okTune, c.from, c.to, 1)
		_, err := Load(writePlan(t, y), nil)
		var ve *ValidationError
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s → %s: %v", c.from, c.to, err)
		case c.want == "":
		case !errors.As(err, &ve):
			t.Errorf("%s → %s: got %v, want a validation error with %q", c.from, c.to, err, c.want)
		case !strings.Contains(err.Error(), c.want):
			t.Errorf("%s → %s:\n got %v\nwant %q", c.from, c.to, err, c.want)
		}
	}
}

// TestTuneConstraintHolds: the operators compare numbers and parameters.
func TestTuneConstraintHolds(t *testing.T) {
	vals := map[string]float64{"a": 4, "b": 8}
	for s, want := range map[string]bool{"a <= b": true, "a >= b": false, "b > 7": true, "a == 4": true, "a != 4": false, "8 < b": false} {
		c, err := ParseTuneConstraint(s)
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := c.Holds(vals); !ok || got != want {
			t.Errorf("%s: %v (known %v), want %v", s, got, ok, want)
		}
	}
	if c, _ := ParseTuneConstraint("a >= z"); func() bool { _, ok := c.Holds(vals); return ok }() {
		t.Error("a side naming no value is known")
	}
}

package plan

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// tuneNameRE is a parameter name: lower case (the plan loader lower-cases map keys, so
// a baseline's keys are always lower case), digits and '_'.
var tuneNameRE = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)

// tuneReserved are placeholders that are not parameters.
var tuneReserved = []string{"port", "llmcap"}

// DefaultTuneURL is TuneLaunch.URL's default.
const DefaultTuneURL = "http://127.0.0.1:{port}/v1"

// fillDefaults sets the zero fields of t: the URL, timeouts, algorithm, population,
// generations, seed (the plan's) and objectives (the ladder's capacity metric, plus
// ttft_p95_at_target_ms with a target_load).
func (t *Tune) fillDefaults(p *Plan) {
	if t.Launch.URL == "" {
		t.Launch.URL = DefaultTuneURL
	}
	if t.Launch.ReadyTimeout == 0 {
		t.Launch.ReadyTimeout = DefaultReadyTimeout
	}
	if t.Launch.StopGrace == 0 {
		t.Launch.StopGrace = DefaultTuneStopGrace
	}
	if t.Algorithm == "" {
		t.Algorithm = TuneNSGA2
	}
	if t.Population == 0 {
		t.Population = DefaultTunePop
	}
	if t.Generations == 0 {
		t.Generations = DefaultTuneGens
	}
	if t.Seed == 0 {
		t.Seed = p.Seed
	}
	if len(t.Objectives) == 0 {
		t.Objectives = []TuneObjective{{Metric: p.Ladder.CapacityMetric()}}
		if t.TargetLoad > 0 {
			t.Objectives = append(t.Objectives, TuneObjective{Metric: TuneTTFTAtTargetMs})
		}
	}
	for i := range t.Objectives {
		if o := &t.Objectives[i]; o.Direction == "" && o.Metric != "" {
			o.Direction = TuneMinimize
			if (TuneObjective{Metric: o.Metric}).Maximizes() { // the metric's default: users and concurrency
				o.Direction = TuneMaximize
			}
		}
	}
}

// CapacityMetric is the tune metric of the ladder's capacity: users for a users ladder
// or search, else concurrency.
func (l Ladder) CapacityMetric() string {
	if len(l.Users) > 0 || (l.Search != nil && l.Search.Over == SearchUsers) {
		return TuneUsers
	}
	return TuneConcurrency
}

func (p *Plan) checkTune(ps *problems) {
	t := p.Tune
	if t == nil {
		return
	}
	if p.Target.Launch != nil {
		ps.add("target.launch", raw("set"), "tune.launch starts each trial's server: leave target.launch out")
	}
	if !p.Target.IsSimulator() {
		ps.add("target.url", p.Target.URL, "tune.launch.url is each trial's server: leave target.url out")
	}
	if len(p.Ladder.Rate) > 0 || (p.Ladder.Search != nil && p.Ladder.Search.Over == SearchRate) {
		ps.add("ladder", raw("a rate ladder"), "tune measures users or concurrency within the SLA: use ladder.search.over users or concurrency")
	}
	t.checkLaunch(ps)
	before := len(*ps)
	t.checkSpace(ps)
	spaceOK := len(*ps) == before
	t.checkConstraints(ps)
	t.checkObjectives(ps, p.Ladder.CapacityMetric())
	for i, o := range t.Objectives {
		if o.Metric == TuneCostPerUser && p.Report.GPUHourUSD <= 0 {
			ps.add(fmt.Sprintf("tune.objectives[%d].metric", i), o.Metric, "needs report.gpu_hour_usd, the price of a GPU-hour")
		}
	}
	if !slices.Contains(TuneAlgorithms, t.Algorithm) {
		ps.add("tune.algorithm", t.Algorithm, "%s", oneOf(TuneAlgorithms))
	}
	if t.Population < 2 || t.Population > 10000 {
		ps.add("tune.population", t.Population, "must be 2 to 10000")
	}
	if t.Offspring < 0 || t.Offspring > 10000 {
		ps.add("tune.offspring", t.Offspring, "must be 1 to 10000, or 0 for the population")
	}
	if t.Generations < 1 || t.Generations > 10000 {
		ps.add("tune.generations", t.Generations, "must be 1 to 10000")
	}
	if t.Budget.Trials < 0 || t.Budget.Trials > 1_000_000 {
		ps.add("tune.budget.trials", t.Budget.Trials, "must be 0 (the algorithm's own count) to 1000000")
	}
	if t.Algorithm == TuneRandom && t.Budget.Trials == 0 {
		ps.add("tune.budget.trials", 0, "must be > 0 for algorithm random")
	}
	nonNegDur(ps, "tune.budget.wall_time", t.Budget.WallTime)
	if t.TargetLoad < 0 || t.TargetLoad > MaxLoad {
		ps.add("tune.target_load", t.TargetLoad, "must be 0 to %d", MaxLoad)
	}
	if spaceOK { // a baseline is judged against a valid space only
		t.checkBaseline(ps)
	}
}

func (t *Tune) checkLaunch(ps *problems) {
	l := t.Launch
	switch {
	case len(l.Command) == 0:
		ps.add("tune.launch.command", raw("empty"), "give the server's argv, e.g. [\"{llmcap}\", \"serve-sim\", \"--addr\", \"127.0.0.1:{port}\"]")
	case l.Command[0] == "":
		ps.add("tune.launch.command[0]", "", "must name the server's program")
	}
	t.checkPlaceholderUse(ps)
	names := append(slices.Clone(tuneReserved), t.paramNames()...)
	check := func(path, s string) {
		for _, ph := range Placeholders(s) {
			if !slices.Contains(names, ph) {
				ps.add(path, s, "placeholder {%s} is not one of {%s}", ph, strings.Join(names, "}, {"))
			}
		}
	}
	for i, a := range l.Command {
		check(fmt.Sprintf("tune.launch.command[%d]", i), a)
	}
	for i, e := range l.Env {
		if k, _, ok := strings.Cut(e, "="); !ok || k == "" {
			ps.add(fmt.Sprintf("tune.launch.env[%d]", i), e, "must be KEY=VALUE")
		}
		check(fmt.Sprintf("tune.launch.env[%d]", i), e)
	}
	check("tune.launch.url", l.URL)
	checkURL(ps, "tune.launch.url", strings.NewReplacer("{port}", "8000", "{llmcap}", "llmcap").Replace(l.URL), "")
	positiveDur(ps, "tune.launch.ready_timeout", l.ReadyTimeout)
	positiveDur(ps, "tune.launch.stop_grace", l.StopGrace)
}

// checkPlaceholderUse requires every parameter, and {port} when the URL holds it, to
// reach the server through its command or environment (and a URL with a fixed port
// when the command is given {port}): a parameter the server never sees tunes nothing.
func (t *Tune) checkPlaceholderUse(ps *problems) {
	used := map[string]bool{}
	for _, s := range append(slices.Clone(t.Launch.Command), t.Launch.Env...) {
		for _, ph := range Placeholders(s) {
			used[ph] = true
		}
	}
	urlPort := slices.Contains(Placeholders(t.Launch.URL), "port")
	switch {
	case urlPort && !used["port"] && len(t.Launch.Command) > 0:
		ps.add("tune.launch.command", raw("no {port}"), "the server must be told the trial's port: put {port} in its command or env (tune.launch.url has it)")
	case !urlPort && used["port"]:
		ps.add("tune.launch.url", t.Launch.URL, "the server is told {port}: the URL must hold {port} too")
	}
	for i, sp := range t.Space {
		if sp.Name != "" && !used[sp.Name] && len(t.Launch.Command) > 0 {
			ps.add(fmt.Sprintf("tune.space[%d].name", i), sp.Name, "appears in neither tune.launch.command nor env as {%s}: the server would never see it", sp.Name)
		}
	}
}

// Placeholders returns the names of the {name} placeholders in s, in order ("{{" is a
// literal brace).
func Placeholders(s string) []string {
	var out []string
	for i := 0; i < len(s); i++ {
		if s[i] != '{' {
			continue
		}
		if i+1 < len(s) && s[i+1] == '{' {
			i++
			continue
		}
		if j := strings.IndexByte(s[i:], '}'); j > 0 {
			out = append(out, s[i+1:i+j])
			i += j
		}
	}
	return out
}

func (t *Tune) paramNames() []string {
	var out []string
	for _, sp := range t.Space {
		out = append(out, sp.Name)
	}
	return out
}

func (t *Tune) checkSpace(ps *problems) {
	if len(t.Space) == 0 {
		ps.add("tune.space", raw("empty"), "list at least one parameter")
	}
	seen := map[string]bool{}
	for i, sp := range t.Space {
		path := fmt.Sprintf("tune.space[%d]", i)
		switch {
		case !tuneNameRE.MatchString(sp.Name):
			ps.add(path+".name", sp.Name, "must be lower-case letters, digits and '_', starting with a letter")
		case slices.Contains(tuneReserved, sp.Name):
			ps.add(path+".name", sp.Name, "is a placeholder of its own: choose another name")
		case seen[sp.Name]:
			ps.add(path+".name", sp.Name, "is listed twice")
		}
		seen[sp.Name] = true
		sp.check(ps, path, t.Algorithm)
	}
}

func (sp TuneParam) check(ps *problems, path, algorithm string) {
	if !slices.Contains(TuneParamTypes, sp.Type) {
		ps.add(path+".type", sp.Type, "%s", oneOf(TuneParamTypes))
		return
	}
	if sp.Type == TuneCategorical || len(sp.Values) > 0 {
		if len(sp.Values) == 0 {
			ps.add(path+".values", raw("empty"), "a categorical parameter lists its values")
		}
		seen := map[string]bool{}
		for j, v := range sp.Values {
			if _, err := sp.numeric(v); sp.Type != TuneCategorical && err != nil {
				ps.add(fmt.Sprintf("%s.values[%d]", path, j), v, "%v", err)
			}
			if seen[fmt.Sprint(v)] {
				ps.add(fmt.Sprintf("%s.values[%d]", path, j), v, "is listed twice")
			}
			seen[fmt.Sprint(v)] = true
		}
		if sp.Min != 0 || sp.Max != 0 || sp.Step != 0 || sp.Log {
			ps.add(path, raw("values with min, max, step or log"), "give either values or min, max and step")
		}
		return
	}
	switch {
	case sp.Min > sp.Max:
		ps.add(path+".min", sp.Min, "must be <= max (%g)", sp.Max)
	case sp.Step < 0:
		ps.add(path+".step", sp.Step, "must be > 0")
	case sp.Log && sp.Min <= 0:
		ps.add(path+".min", sp.Min, "must be > 0 with log")
	}
	if sp.Type == TuneInt {
		for name, v := range map[string]float64{"min": sp.Min, "max": sp.Max, "step": sp.Step} {
			if v != math.Trunc(v) {
				ps.add(path+"."+name, v, "must be a whole number for an int parameter")
			}
		}
	}
	if sp.Type == TuneFloat && sp.Step == 0 && algorithm == TuneGrid {
		ps.add(path+".step", 0, "a float parameter needs a step (or values) for algorithm grid")
	}
}

// numeric reads v as an int or float parameter's value. Errors: not a number, or an
// int parameter's value that is not whole.
func (sp TuneParam) numeric(v any) (float64, error) {
	var f float64
	switch x := v.(type) {
	case int:
		f = float64(x)
	case int64:
		f = float64(x)
	case float64:
		f = x
	case string:
		var err error
		if f, err = strconv.ParseFloat(x, 64); err != nil {
			return 0, fmt.Errorf("must be a number")
		}
	default:
		return 0, fmt.Errorf("must be a number")
	}
	if sp.Type == TuneInt && f != math.Trunc(f) {
		return 0, fmt.Errorf("must be a whole number for an int parameter")
	}
	return f, nil
}

// Contains reports whether v is one of the parameter's values: in Values (compared as
// numbers for int and float, as text for categorical), or on the Min..Max grid.
func (sp TuneParam) Contains(v any) error {
	if sp.Type == TuneCategorical {
		for _, c := range sp.Values {
			if fmt.Sprint(c) == fmt.Sprint(v) {
				return nil
			}
		}
		return fmt.Errorf("must be one of %v", sp.Values)
	}
	f, err := sp.numeric(v)
	if err != nil {
		return err
	}
	if len(sp.Values) > 0 {
		for _, c := range sp.Values {
			if g, _ := sp.numeric(c); g == f {
				return nil
			}
		}
		return fmt.Errorf("must be one of %v", sp.Values)
	}
	if f < sp.Min || f > sp.Max {
		return fmt.Errorf("must be %g to %g", sp.Min, sp.Max)
	}
	if st := sp.Step; st > 0 {
		if k := (f - sp.Min) / st; math.Abs(k-math.Round(k)) > 1e-9 {
			return fmt.Errorf("must be on the grid %g + k × %g", sp.Min, st)
		}
	}
	return nil
}

func (t *Tune) checkConstraints(ps *problems) {
	for i, s := range t.Constraints {
		path := fmt.Sprintf("tune.constraints[%d]", i)
		c, err := ParseTuneConstraint(s)
		if err != nil {
			ps.add(path, s, "%v", err)
			continue
		}
		for _, n := range c.Names() {
			j := slices.Index(t.paramNames(), n)
			switch {
			case j < 0:
				ps.add(path, s, "%q is neither a number nor a parameter of tune.space", n)
			case t.Space[j].Type == TuneCategorical:
				ps.add(path, s, "%q is categorical: constraints compare int and float parameters", n)
			}
		}
	}
}

func (t *Tune) checkObjectives(ps *problems, capacity string) {
	seen := map[string]bool{}
	for i, o := range t.Objectives {
		path := fmt.Sprintf("tune.objectives[%d]", i)
		switch {
		case !slices.Contains(TuneMetrics, o.Metric):
			ps.add(path+".metric", o.Metric, "%s", oneOf(TuneMetrics))
		case seen[o.Metric]:
			ps.add(path+".metric", o.Metric, "is listed twice")
		case (o.Metric == TuneUsers || o.Metric == TuneConcurrency || o.Metric == TuneCostPerUser) &&
			o.Metric != capacity && o.Metric != TuneCostPerUser:
			ps.add(path+".metric", o.Metric, "the ladder measures %s (ladder.search.over or ladder.%s)", capacity, capacity)
		case o.Metric == TuneTTFTAtTargetMs && t.TargetLoad == 0:
			ps.add(path+".metric", o.Metric, "needs tune.target_load, the load it is measured at")
		}
		seen[o.Metric] = true
		if !slices.Contains(TuneDirections, o.Direction) {
			ps.add(path+".direction", o.Direction, "%s", oneOf(TuneDirections))
		}
	}
}

func (t *Tune) checkBaseline(ps *problems) {
	if t.Baseline == nil {
		return
	}
	for _, sp := range t.Space {
		v, ok := t.Baseline[sp.Name]
		if !ok {
			ps.add("tune.baseline."+sp.Name, raw("missing"), "the baseline gives a value for every parameter of tune.space")
			continue
		}
		if err := sp.Contains(v); err != nil {
			ps.add("tune.baseline."+sp.Name, v, "%v", err)
		}
	}
	for k := range t.Baseline {
		if !slices.Contains(t.paramNames(), k) {
			ps.add("tune.baseline."+k, raw("set"), "is not a parameter of tune.space (%s)", strings.Join(t.paramNames(), ", "))
		}
	}
}

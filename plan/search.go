package plan

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// Loads a capacity search can vary (Search.Over).
const (
	SearchConcurrency = "concurrency" // closed loop: N requests in flight
	SearchUsers       = "users"       // closed population: N users with think time
	SearchRate        = "rate"        // open loop: requests/s
)

// SearchOvers are the accepted Search.Over values.
var SearchOvers = []string{SearchConcurrency, SearchUsers, SearchRate}

// Search defaults (applied when ladder.search is set and a field is 0).
const (
	DefaultSearchStart     = 1
	DefaultSearchMaxLoad   = 4096 // concurrency and users
	DefaultSearchMaxRate   = 1000 // requests/s
	DefaultSearchTolerance = 0.05
	DefaultSearchMaxSteps  = 10
	DefaultSearchGrowth    = 4
)

// Search is the adaptive capacity search (ladder.search): it replaces the fixed list of
// levels. Each segment (and the mix) starts at Start; after each step the sweep
// judges it against the SLA, refits the queueing model and measures next where the
// model predicts the SLA breaks (growing by Growth until the first failure while the
// model is not identified); it stops when the last passing and the first failing loads
// are adjacent integers (concurrency, users) or within Tolerance of each other, at
// MaxSteps steps, at Max, or when Start already fails at the smallest load (1, or
// Start / Growth² for rates).
type Search struct {
	// Over is concurrency, users or rate.
	Over string `mapstructure:"over" json:"over" yaml:"over"`
	// Start is the first load (default 1); Max the largest (default 4096, rates 1000 req/s).
	Start float64 `mapstructure:"start" json:"start" yaml:"start"`
	Max   float64 `mapstructure:"max" json:"max" yaml:"max"`
	// Tolerance is the relative width (fail − pass) / fail at which the bracket is
	// narrow enough (default 0.05 when 0; a value below 1 / max, e.g. 0.0001, searches
	// concurrency and users to adjacent integers).
	Tolerance float64 `mapstructure:"tolerance" json:"tolerance" yaml:"tolerance"`
	// MaxSteps bounds the steps of one segment's search (default 10).
	MaxSteps int `mapstructure:"max_steps" json:"max_steps" yaml:"max_steps"`
	// Growth is the factor between loads before the first failure when the model
	// cannot yet predict the breaking load (default 4).
	Growth float64 `mapstructure:"growth" json:"growth" yaml:"growth"`
}

// Integer reports whether the search's loads are whole numbers (concurrency, users).
func (s *Search) Integer() bool { return s.Over != SearchRate }

// Schedule is the step schedule the search drives.
func (s *Search) Schedule() string {
	switch s.Over {
	case SearchUsers:
		return ScheduleUsers
	case SearchRate:
		return ScheduleRate
	}
	return ScheduleConcurrency
}

// MinLoad is the smallest load the search tries when Start fails: 1 for whole
// numbers, Start / Growth² for rates.
func (s *Search) MinLoad() float64 {
	if s.Integer() {
		return 1
	}
	return s.Start / (s.Growth * s.Growth)
}

// fillDefaults sets the zero fields of s to the search defaults.
func (s *Search) fillDefaults() {
	if s.Over == "" {
		s.Over = SearchConcurrency
	}
	if s.Start == 0 {
		s.Start = DefaultSearchStart
	}
	if s.Max == 0 {
		s.Max = DefaultSearchMaxLoad
		if s.Over == SearchRate {
			s.Max = DefaultSearchMaxRate
		}
	}
	if s.Tolerance == 0 {
		s.Tolerance = DefaultSearchTolerance
	}
	if s.MaxSteps == 0 {
		s.MaxSteps = DefaultSearchMaxSteps
	}
	if s.Growth == 0 {
		s.Growth = DefaultSearchGrowth
	}
}

// checkSearch validates ladder.search: over one of SearchOvers, 0 < start ≤ max (whole
// numbers for concurrency and users), 0 ≤ tolerance < 1, max_steps ≥ 2, growth > 1, and
// no fixed levels beside it.
func (p *Plan) checkSearch(ps *problems) {
	s := p.Ladder.Search
	if s == nil {
		return
	}
	const pre = "ladder.search."
	if !slices.Contains(SearchOvers, s.Over) {
		ps.add(pre+"over", s.Over, "%s", oneOf(SearchOvers))
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"start", s.Start}, {"max", s.Max}} {
		switch {
		case !(f.v > 0) || math.IsInf(f.v, 0):
			ps.add(pre+f.name, f.v, "must be > 0")
		case s.Integer() && f.v != math.Trunc(f.v):
			ps.add(pre+f.name, f.v, "must be a whole number when searching over %s", s.Over)
		default:
			limit, unit := loadLimit(s.Schedule())
			atMostFloat(ps, pre+f.name, f.v, limit, unit)
		}
	}
	if s.Start > s.Max {
		ps.add(pre+"max", s.Max, "must be >= ladder.search.start (%g)", s.Start)
	}
	if !(s.Tolerance >= 0 && s.Tolerance < 1) {
		ps.add(pre+"tolerance", s.Tolerance, "must be in [0, 1) (relative width of the final bracket)")
	}
	if s.MaxSteps < 2 {
		ps.add(pre+"max_steps", s.MaxSteps, "must be >= 2 (one step cannot bracket a capacity)")
	}
	atMostInt(ps, pre+"max_steps", s.MaxSteps, MaxSearchSteps, "steps per search")
	if !(s.Growth > 1) || math.IsInf(s.Growth, 0) {
		ps.add(pre+"growth", s.Growth, "must be > 1")
	}
	if s.Over == SearchUsers && p.SLA.ThinkTime <= 0 {
		ps.add("sla.think_time", p.SLA.ThinkTime, "must be > 0 when ladder.search.over is users (each user thinks this long on average between requests)")
	}
	l := p.Ladder
	for name, n := range map[string]int{"concurrency": len(l.Concurrency), "rate": len(l.Rate), "users": len(l.Users)} {
		if n > 0 {
			ps.add("ladder."+name, raw(fmt.Sprintf("%d levels", n)),
				"set either ladder.search or a fixed list of levels (ladder.%s), not both", name)
		}
	}
}

// searchOpeners are the first steps of a search plan's searches, one per segment run
// alone and then the mix (trace segments keep their single trace step), numbered
// 0..n-1 in that order. The sweep renumbers them in run order as each search adds
// its steps (RunMeta.Steps holds the steps actually chosen).
func (p *Plan) searchOpeners(names []string) []Step {
	s := p.Ladder.Search
	var steps []Step
	for _, name := range names {
		if seg := p.segment(name); seg != nil && seg.Trace != nil {
			steps = append(steps, p.newStep(len(steps), name, ScheduleTrace, 0, 0))
			continue
		}
		steps = append(steps, p.StepAt(len(steps), name, s.Start))
	}
	return steps
}

// StepAt is the step of a search plan at load (concurrency, users or rate, by
// Search.Over) for segment name, numbered i, with the ladder's window settings and its
// Estimated wall time.
func (p *Plan) StepAt(i int, name string, load float64) Step {
	s := p.Ladder.Search
	switch s.Schedule() {
	case ScheduleRate:
		return p.newStep(i, name, ScheduleRate, 0, load)
	case ScheduleUsers:
		return p.newUsersStep(i, name, int(math.Round(load)))
	}
	return p.newStep(i, name, ScheduleConcurrency, int(math.Round(load)), 0)
}

// SearchEstimate is the most wall time a search plan's steps take (a bound for
// planning, not a prediction: a search usually stops earlier): every search running its
// MaxSteps steps, each taking its StepBound at the load among the search's start, max
// and smallest load where that is largest. The target's start-up and preflight are not
// included.
func (p *Plan) SearchEstimate() (steps int, d time.Duration) {
	s := p.Ladder.Search
	for _, o := range p.Steps() {
		if o.Schedule == ScheduleTrace {
			steps++
			d = addDur(d, p.StepBound(o))
			continue
		}
		var most time.Duration
		for _, load := range []float64{s.Start, s.Max, s.MinLoad()} {
			most = max(most, p.StepBound(p.StepAt(0, o.Segment, load)))
		}
		for range s.MaxSteps {
			d = addDur(d, most)
			steps++
		}
	}
	return steps, d
}

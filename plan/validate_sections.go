package plan

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"github.com/llmcap/llmcap/catalog"
)

// needsLadder reports whether some step will use the ladder's levels (a non-trace
// segment run alone, or the mix).
func (p *Plan) needsLadder() bool {
	if p.Ladder.Mix {
		return true
	}
	if p.Ladder.PerSegment != nil && !*p.Ladder.PerSegment {
		return false
	}
	for _, s := range p.Segments {
		if s.Trace == nil {
			return true
		}
	}
	return len(p.Segments) == 0
}

func (p *Plan) checkLadder(ps *problems) {
	l := p.Ladder
	p.checkLadderLevels(ps)
	p.checkSearch(ps)
	for i, c := range l.Concurrency {
		positiveInt(ps, fmt.Sprintf("ladder.concurrency[%d]", i), c)
		atMostInt(ps, fmt.Sprintf("ladder.concurrency[%d]", i), c, MaxLoad, "requests in flight, one connection each")
	}
	for i, r := range l.Rate {
		if r <= 0 {
			ps.add(fmt.Sprintf("ladder.rate[%d]", i), r, "must be > 0 (req/s)")
		}
		atMostFloat(ps, fmt.Sprintf("ladder.rate[%d]", i), r, MaxRate, "req/s")
	}
	p.checkUsers(ps)
	if !slices.Contains(Arrivals, l.Arrival) {
		ps.add("ladder.arrival", l.Arrival, "%s", oneOf(Arrivals))
	}
	if l.Burstiness <= 0 {
		ps.add("ladder.burstiness", l.Burstiness, "must be > 0 (gamma shape: 1 = Poisson, < 1 burstier)")
	}
	nonNegInt(ps, "ladder.max_concurrency", l.MaxConcurrency)
	atMostInt(ps, "ladder.max_concurrency", l.MaxConcurrency, MaxLoad, "requests in flight, one connection each")
	nonNegInt(ps, "ladder.warmup.requests", l.Warmup.Requests)
	atMostInt(ps, "ladder.warmup.requests", l.Warmup.Requests, MaxRequests, "requests per step")
	nonNegDur(ps, "ladder.warmup.duration", l.Warmup.Duration)
	nonNegDur(ps, "ladder.duration", l.Duration)
	nonNegInt(ps, "ladder.requests", l.Requests)
	atMostInt(ps, "ladder.requests", l.Requests, MaxRequests, "requests per step")
	if l.Duration == 0 && l.Requests == 0 && p.needsLadder() {
		ps.add("ladder.duration", l.Duration, "set ladder.duration and/or ladder.requests to bound each step's measurement window")
	}
	nonNegDur(ps, "ladder.grace", l.Grace)
	nonNegDur(ps, "ladder.cooldown", l.Cooldown)
	nonNegDur(ps, "ladder.step_timeout", l.StepTimeout)
	if l.PerSegment != nil && !*l.PerSegment && !l.Mix {
		ps.add("ladder.mix", false, "must be true when ladder.per_segment is false (otherwise nothing runs)")
	}
	if e := l.EarlyStop; e.Enabled {
		if e.Factor < 1 {
			ps.add("ladder.early_stop.factor", e.Factor, "must be >= 1")
		}
		positiveInt(ps, "ladder.early_stop.consecutive", e.Consecutive)
		atMostInt(ps, "ladder.early_stop.consecutive", e.Consecutive, MaxSearchSteps, "steps")
	}
}

// checkLadderLevels requires exactly one of ladder.concurrency, ladder.rate and
// ladder.users when some step uses the ladder's levels (at most one otherwise).
func (p *Plan) checkLadderLevels(ps *problems) {
	l := p.Ladder
	var set []string
	for _, f := range []struct {
		name string
		n    int
	}{{"concurrency", len(l.Concurrency)}, {"rate", len(l.Rate)}, {"users", len(l.Users)}} {
		if f.n > 0 {
			set = append(set, "ladder."+f.name)
		}
	}
	switch {
	case len(set) > 1:
		ps.add(set[len(set)-1], raw(strings.Join(set, " and ")),
			"set only one of ladder.concurrency, ladder.rate and ladder.users (a ladder has one schedule)")
	case len(set) == 0 && l.Search == nil && p.needsLadder():
		ps.add("ladder", raw("an empty ladder"), "must set ladder.concurrency (e.g. [1, 2, 4, 8]), ladder.rate (req/s), "+
			"ladder.users (e.g. [10, 50, 100], with sla.think_time) or ladder.search (e.g. {over: concurrency})")
	}
}

// checkUsers checks a users ladder: levels ≥ 1 and distinct, a think time to think
// (sla.think_time > 0) and a known ladder.think_time_dist.
func (p *Plan) checkUsers(ps *problems) {
	l := p.Ladder
	seen := map[int]int{}
	for i, u := range l.Users {
		path := fmt.Sprintf("ladder.users[%d]", i)
		if u < 1 {
			ps.add(path, u, "must be >= 1 (users)")
			continue
		}
		if u > MaxLoad {
			atMostInt(ps, path, u, MaxLoad, "users, each one a connection")
			continue
		}
		if j, dup := seen[u]; dup {
			ps.add(path, u, "must not repeat ladder.users[%d]", j)
			continue
		}
		seen[u] = i
	}
	if len(l.Users) > 0 && p.SLA.ThinkTime > MaxDuration {
		durationRange(ps, "sla.think_time", p.SLA.ThinkTime)
	}
	if len(l.Users) > 0 && p.SLA.ThinkTime <= 0 {
		ps.add("sla.think_time", p.SLA.ThinkTime, "must be > 0 with ladder.users (each user thinks this long on average between requests)")
	}
	if l.ThinkTimeDist != "" && !slices.Contains(ThinkTimeDists, l.ThinkTimeDist) {
		ps.add("ladder.think_time_dist", l.ThinkTimeDist, "%s", oneOf(ThinkTimeDists))
	}
}

// slaMaps returns the SLA latency maps by metric, in SLAMetrics order.
func (s SLA) slaMaps() []map[string]float64 {
	return []map[string]float64{s.TTFTMs, s.TTFOMs, s.ITLMs, s.E2EMs}
}

func (p *Plan) checkSLA(ps *problems) {
	for i, m := range p.SLA.slaMaps() {
		key := "sla." + SLAMetrics[i] + "_ms"
		for _, stat := range sortedKeys(m) {
			if !slices.Contains(Stats, stat) {
				ps.add(key+"."+stat, raw("statistic "+strconv.Quote(stat)), "%s", oneOf(Stats))
				continue
			}
			if m[stat] <= 0 {
				ps.add(key+"."+stat, m[stat], "must be > 0 (ms)")
			}
		}
	}
	if r := p.SLA.MaxErrorRate; r < 0 || r > 1 {
		ps.add("sla.max_error_rate", r, "must be between 0 and 1 (a fraction)")
	}
	if len(p.Ladder.Users) == 0 { // a users ladder needs it > 0 (checkUsers)
		nonNegDur(ps, "sla.think_time", p.SLA.ThinkTime)
	}
}

func sortedKeys(m map[string]float64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func (p *Plan) checkCapture(ps *problems) {
	c := p.Capture
	if !c.Enabled {
		return
	}
	if !slices.Contains(CaptureModes, c.Mode) {
		ps.add("capture.mode", c.Mode, "%s", oneOf(CaptureModes))
	}
	if c.Mode == "session" && c.SessionName == "" {
		ps.add("capture.session_name", raw(""), "session mode needs the name of the running nsys session (nsys sessions list)")
	}
	if c.Mode == "launch" && p.Target.Launch == nil {
		ps.add("capture.mode", c.Mode, "launch mode needs target.launch (the server command to run under nsys)")
	}
	for i, s := range c.Steps {
		pre := fmt.Sprintf("capture.steps[%d].", i)
		if s.Segment != MixSegment && p.segment(s.Segment) == nil {
			ps.add(pre+"segment", s.Segment, "must be a segment name or %q", MixSegment)
		}
		nonNegInt(ps, pre+"concurrency", s.Concurrency)
		atMostInt(ps, pre+"concurrency", s.Concurrency, MaxLoad, "requests in flight")
		if s.Rate < 0 {
			ps.add(pre+"rate", s.Rate, "must be >= 0")
		}
		atMostFloat(ps, pre+"rate", s.Rate, MaxRate, "req/s")
	}
	nonNegDur(ps, "capture.duration", c.Duration)
	nonNegDur(ps, "capture.delay", c.Delay)
	p.checkCaptureTrace(ps)
	p.checkCaptureSteps(ps)
}

func (p *Plan) checkReport(ps *problems) {
	r := p.Report
	for i, f := range r.Formats {
		if !slices.Contains(ReportFormats, f) {
			ps.add(fmt.Sprintf("report.formats[%d]", i), f, "%s", oneOf(ReportFormats))
		}
	}
	if r.GPUHourUSD < 0 {
		ps.add("report.gpu_hour_usd", r.GPUHourUSD, "must be >= 0")
	}
	if r.PowerUSDPerKWh < 0 {
		ps.add("report.power_usd_per_kwh", r.PowerUSDPerKWh, "must be >= 0")
	}
	for i, u := range r.TargetUsers {
		positiveInt(ps, fmt.Sprintf("report.target_users[%d]", i), u)
	}
	if r.Headroom < 0 || r.Headroom >= 1 {
		ps.add("report.headroom", r.Headroom, "must be >= 0 and < 1 (a spare-capacity fraction)")
	}
	nonNegInt(ps, "report.gpus_per_replica", r.GPUsPerReplica)
	if r.XLSXMaxRows < 0 || r.XLSXMaxRows > MaxXLSXRows {
		ps.add("report.xlsx_max_rows", r.XLSXMaxRows, "must be >= 0 and <= %d (Excel's rows per sheet less the note and header; 0: %d)", MaxXLSXRows, DefaultXLSXMaxRows)
	}
	p.checkWhatIfGPUs(ps)
}

// Constraints returns the SLA latency constraints sorted by metric (ttft, ttfo, itl,
// e2e) and then statistic (p50, p90, p95, p99, mean); unknown statistics are skipped.
func (p *Plan) Constraints() []Constraint {
	var out []Constraint
	for i, m := range p.SLA.slaMaps() {
		for _, stat := range Stats {
			if v, ok := m[stat]; ok {
				out = append(out, Constraint{Metric: SLAMetrics[i], Stat: stat, ThresholdMs: v})
			}
		}
	}
	return out
}

// checkCatalogNames requires the simulator's GPU and model to be catalog names: the
// embedded catalog's plus target.simulator.catalog's (whose entries add to it), and the
// override to follow the catalog schema (catalog.Load's errors name its entry and field).
func (s Simulator) checkCatalogNames(ps *problems) {
	const pre = "target.simulator."
	cat, err := s.catalog()
	if err != nil {
		if pe := (*fs.PathError)(nil); !errors.As(err, &pe) { // an unreadable file is reported by checkFile
			ps.add(pre+"catalog", s.Catalog, "must be a catalog like configs/catalog.yaml (%v)", err)
		}
		return
	}
	gpus, models := cat.Names()
	if g, ok := cat.GPU(s.GPU); s.GPU != "" && !ok {
		ps.add(pre+"gpu", s.GPU, "must be a catalog GPU: %s", strings.Join(gpus, ", "))
	} else if ok {
		if err := g.Validate(); err != nil { // the simulator's roofline needs its figures
			ps.add(pre+"gpu", s.GPU, "must be a complete catalog entry (%v)", err)
		}
	}
	if m, ok := cat.Model(s.Model); s.Model != "" && !ok {
		ps.add(pre+"model", s.Model, "must be a catalog model: %s", strings.Join(models, ", "))
	} else if ok {
		if err := m.Validate(); err != nil {
			ps.add(pre+"model", s.Model, "must be a complete catalog entry (%v)", err)
		}
	}
}

// checkWhatIfGPUs requires each report.what_if_gpus entry to name, once, a complete GPU
// of the catalog the analysis projects from (the embedded one with
// target.simulator.catalog merged on top; names match case-insensitively, as the
// analysis matches them), so a bad entry fails the plan instead of a warning after the
// sweep.
func (p *Plan) checkWhatIfGPUs(ps *problems) {
	if len(p.Report.WhatIfGPUs) == 0 {
		return
	}
	cat, err := p.Target.Simulator.catalog()
	if err != nil {
		return // reported at target.simulator.catalog
	}
	gpus, _ := cat.Names()
	seen := map[string]int{}
	for i, name := range p.Report.WhatIfGPUs {
		path := fmt.Sprintf("report.what_if_gpus[%d]", i)
		g, ok := cat.GPUFold(name)
		switch {
		case !ok:
			ps.add(path, name, "must be a catalog GPU: %s", strings.Join(gpus, ", "))
		case g.Validate() != nil:
			ps.add(path, name, "must be a complete catalog entry (%v)", g.Validate())
		}
		key := strings.ToLower(name)
		if j, dup := seen[key]; dup {
			ps.add(path, name, "must not repeat report.what_if_gpus[%d]", j)
		} else {
			seen[key] = i
		}
	}
}

// catalog returns the embedded catalog with target.simulator.catalog merged on top.
func (s Simulator) catalog() (*catalog.Catalog, error) { return catalog.Load(s.Catalog) }

// HasLatencySLA reports whether the SLA has at least one latency constraint (TTFT,
// TTFO, ITL or E2E); without one, the capacity (users within the SLA) is undefined.
func (s SLA) HasLatencySLA() bool {
	for _, m := range s.slaMaps() {
		if len(m) > 0 {
			return true
		}
	}
	return false
}

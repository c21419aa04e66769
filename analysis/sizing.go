package analysis

import (
	"fmt"
	"math"
	"strings"

	"github.com/llmcap/llmcap/catalog"
	"github.com/llmcap/llmcap/plan"
)

// hoursPerMonth is the hours in an average month used for monthly cost (365·24/12).
const hoursPerMonth = 730

// defaultHeadroom is the spare capacity kept per replica when the plan sets none.
const defaultHeadroom = 0.2

// sizing holds the deployment facts sizing needs.
type sizing struct {
	gpu            string
	model          string
	gpusPerReplica int
	gpuHourUSD     float64
	headroom       float64
	targets        []int
	// cat is the GPU and model catalog of the run (nil: none); catWarn says why the
	// plan's catalog override was not applied ("" when it was, or when there is none).
	cat     *catalog.Catalog
	catWarn string
}

func sizingOf(p *plan.Plan) sizing {
	s := sizing{gpu: p.Report.GPU, model: p.Target.Model, gpusPerReplica: p.Report.GPUsPerReplica,
		gpuHourUSD: p.Report.GPUHourUSD, headroom: p.Report.Headroom, targets: p.Report.TargetUsers}
	s.cat, s.catWarn = sizingCatalog(p)
	if p.Target.IsSimulator() {
		if s.gpu == "" {
			s.gpu = p.Target.Simulator.GPU
		}
		if p.Target.Simulator.Model != "" {
			s.model = p.Target.Simulator.Model
		}
		if s.gpusPerReplica <= 0 {
			s.gpusPerReplica = p.Target.Simulator.TensorParallel
		}
	}
	if s.gpusPerReplica <= 0 {
		s.gpusPerReplica = 1
	}
	if s.headroom <= 0 || s.headroom >= 1 {
		s.headroom = defaultHeadroom
	}
	return s
}

// whatIfRows sizes each target user count for the measured GPU and, projected by
// roofline scaling, for each what-if GPU. Each row is priced as measuredPrice and
// projectedPrice say.
func whatIfRows(c Capacity, sz sizing, whatIf []string) ([]WhatIf, []string) {
	var rows []WhatIf
	var warns []string
	if c.Method == MethodBelowFirstStep || c.Method == MethodNoData || c.UsersWithThinkTime <= 0 {
		if len(sz.targets) == 0 {
			return nil, nil
		}
		return nil, []string{fmt.Sprintf("sizing not possible: no load met the SLA (%s), so no number of replicas serves the target users; what-if rows are left out",
			orDash(c.LimitingConstraint))}
	}
	if sz.catWarn != "" && (len(whatIf) > 0 || len(sz.targets) > 0 && sz.gpuHourUSD <= 0) {
		warns = append(warns, sz.catWarn)
	}
	add := func(gpu string, projected bool, factor float64, price gpuPrice) {
		for _, t := range sz.targets {
			rows = append(rows, sizeRow(c, sz, gpu, projected, factor, price, t))
		}
	}
	measured := measuredPrice(sz)
	add(sz.gpu, false, 1, measured)
	if len(whatIf) == 0 {
		return rows, warns
	}
	base, ok := sz.cat.GPUFold(sz.gpu)
	if !ok {
		return rows, append(warns, fmt.Sprintf("what-if projection skipped: GPU %q not in the catalog", sz.gpu))
	}
	if err := base.Validate(); err != nil {
		return rows, append(warns, fmt.Sprintf("what-if projection skipped: %v", err))
	}
	model, known := sz.cat.ModelFold(sz.model)
	for _, name := range whatIf {
		g, ok := sz.cat.GPUFold(name)
		if !ok {
			warns = append(warns, fmt.Sprintf("what-if GPU %q not in the catalog", name))
			continue
		}
		if err := g.Validate(); err != nil {
			warns = append(warns, fmt.Sprintf("what-if GPU %s skipped: %v", g.Name, err))
			continue
		}
		if !weightsFit(model, known, g, sz.gpusPerReplica) {
			warns = append(warns, fmt.Sprintf("what-if GPU %s skipped: %s's weights (%.1f GB) do not fit in %d × %.0f GB × %.0f%%",
				g.Name, model.Name, model.WeightBytes()/1e9, sz.gpusPerReplica, g.HBMGB, 100*hbmUsableFrac))
			continue
		}
		add(g.Name, true, rooflineFactor(base, g, c.Bottleneck), projectedPrice(g, measured))
	}
	return rows, warns
}

// sizeRow computes one what-if row at price (USD per GPU-hour and its source).
func sizeRow(c Capacity, sz sizing, gpu string, projected bool, factor float64, price gpuPrice, target int) WhatIf {
	w := WhatIf{GPU: gpu, Projected: projected, TargetUsers: target, Headroom: sz.headroom,
		UsersPerReplica: math.Floor(c.UsersWithThinkTime * factor), GPUHourUSD: price.usd,
		PriceSource: price.source, SamePriceAssumed: price.source == PriceMeasuredAssumed}
	usable := w.UsersPerReplica * (1 - sz.headroom)
	if usable <= 0 {
		return w
	}
	w.Replicas = int(math.Ceil(float64(target) / usable))
	w.GPUs = w.Replicas * sz.gpusPerReplica
	w.CostPerMonthUSD = float64(w.GPUs) * price.usd * hoursPerMonth
	if tok := c.OutputTokensPerSAtCapacity * factor * (1 - sz.headroom); tok > 0 {
		w.CostPerMOutputUSD = float64(sz.gpusPerReplica) * price.usd / (tok * 3600) * 1e6
	}
	return w
}

// answerSentence states the headline in one plain sentence.
func answerSentence(a *Analysis, sz sizing) string {
	c := a.Overall
	who := "One replica"
	if sz.gpu != "" {
		who = "One " + sz.gpu
		if sz.gpusPerReplica > 1 {
			who = fmt.Sprintf("One %d×%s replica", sz.gpusPerReplica, sz.gpu)
		}
	}
	if sz.model != "" {
		who += " serving " + sz.model
	}
	src := ""
	if a.OverallSource != "" && a.OverallSource != plan.MixSegment && len(a.Segments) > 1 {
		src = fmt.Sprintf(" (tightest segment %q)", a.OverallSource)
	}
	switch {
	case c.Method == MethodNoData:
		return fmt.Sprintf("%s%s has no capacity verdict: %s. %s", who, src, orDash(c.BottleneckEvidence),
			c.Advice) + speedUpNote(a)
	case c.Method == MethodBelowFirstStep && c.cause != causeSLA: // hung or undetermined: no SLA to relax
		return fmt.Sprintf("%s%s cannot be sized at the lowest load tested. %s", who, src, c.Advice) + speedUpNote(a)
	case c.Bottleneck == RegimeErrors && c.Method == MethodBelowFirstStep:
		return fmt.Sprintf("%s%s cannot be sized: %s (error-rate bound %s) — fix the target before capacity can be measured.",
			who, src, c.BottleneckEvidence, strings.TrimPrefix(c.LimitingConstraint, "error rate ≤ ")) + speedUpNote(a)
	case c.Method == MethodBelowFirstStep && c.FirstStepSaturated:
		one, many := ladderWords(a.Schedule)
		return fmt.Sprintf("%s%s misses the SLA (%s) already at the lowest %s tested: it cannot keep up, so requests wait in line; test lower %s to find what one replica serves.",
			who, src, orDash(c.LimitingConstraint), one, many) + speedUpNote(a)
	case c.Method == MethodBelowFirstStep:
		why := "no load met it"
		if c.BottleneckEvidence != "" {
			why = c.BottleneckEvidence
		}
		return fmt.Sprintf("%s%s misses the SLA (%s) already at the lowest load tested: %s, so no number of replicas meets it; relax the SLA or use a faster deployment.",
			who, src, orDash(c.LimitingConstraint), why) + speedUpNote(a)
	case a.Schedule == plan.ScheduleTrace:
		return fmt.Sprintf("%s%s meets the SLA on the replayed trace (%s requests/s); replay at other speeds (trace.time_scale) to find the limit.",
			who, src, rateNum(c.MaxRateWithinSLA)) + speedUpNote(a)
	}
	s := fmt.Sprintf("%s%s keeps %s within the SLA", who, src, answerLoad(a, c))
	if f := inFlightWords(a, c); f != "" {
		s += " — " + f
	}
	if c.ClientLimited {
		s += " (what the load generator's own limit let through, not the server's limit)"
	}
	return s + "." + sizingWords(a, c, sz) + speedUpNote(a)
}

// answerLoad is the answer's one number of users (or, with no think time, requests
// in flight; for a rate ladder without users, the rate), qualified as "at least" for a
// lower bound and "about" for a modelled or estimated figure: "186 users (who pause
// 10 s between requests)", "at least 12 requests in flight", "about 20.2 requests/s".
func answerLoad(a *Analysis, c Capacity) string {
	var load string
	about := c.Method == MethodModel || c.Method == MethodInterpolated
	switch {
	case c.ThinkTimeS > 0 && c.Users > 0:
		noun := "users"
		if c.Users == 1 {
			noun = "user"
		}
		load = fmt.Sprintf("%s %s (who pause %s s between requests)", commaInt(float64(c.Users)), noun, fmtNum(c.ThinkTimeS))
		about = about || c.UsersSource == UsersConverted
	case a.Schedule == plan.ScheduleRate:
		load = rateNum(c.MaxRateWithinSLA) + " requests/s"
	default:
		load = commaInt(c.MaxConcurrencyWithinSLA) + requestsWord(math.Floor(c.MaxConcurrencyWithinSLA+1e-9)) + " in flight"
	}
	switch {
	case c.Method == MethodAtLeast:
		return "at least " + load
	case about:
		return "about " + load
	}
	return load
}

// inFlightWords is the answer's second figure: the requests in flight (or the rate)
// behind its users, "about 17 requests in flight", "20.2 requests/s"; "" when the
// answer's number already is it.
func inFlightWords(a *Analysis, c Capacity) string {
	if c.ThinkTimeS <= 0 || c.Users <= 0 {
		return ""
	}
	if a.Schedule == plan.ScheduleRate {
		return rateNum(c.MaxRateWithinSLA) + " requests/s"
	}
	n := roundTo(c.MaxConcurrencyWithinSLA, 0)
	if c.UsersSource == UsersMeasured {
		return "about " + fmtNum(n) + requestsWord(n) + " in flight"
	}
	n = roundTo(c.MaxConcurrencyWithinSLA, 1)
	return fmtNum(n) + requestsWord(n) + " in flight"
}

// requestsWord is " request" for exactly one, else " requests".
func requestsWord(n float64) string {
	if n == 1 {
		return " request"
	}
	return " requests"
}

// sizingWords is the answer's sizing sentence for the largest measured target: " 5,000
// users need 34 GPUs, about $62,050 a month." (replicas named when one holds several
// GPUs, "at most" when the capacity is a lower bound, machines for a CPU server, no
// cost without a price); "" when there is no sizing row.
func sizingWords(a *Analysis, c Capacity, sz sizing) string {
	var big *WhatIf // the largest measured target
	for i := range a.WhatIf {
		if w := &a.WhatIf[i]; !w.Projected && w.Replicas > 0 && (big == nil || w.TargetUsers > big.TargetUsers) {
			big = w
		}
	}
	if big == nil {
		return ""
	}
	need := "need"
	if c.Method == MethodAtLeast { // the capacity is a lower bound, so the replicas an upper one
		need = "need at most"
	}
	what := plural(big.GPUs, deviceNoun(sz.gpu))
	if big.GPUs != big.Replicas {
		what = fmt.Sprintf("%s (%s)", plural(big.Replicas, "replica"), what)
	}
	s := fmt.Sprintf(" %s users %s %s", commaInt(float64(big.TargetUsers)), need, what)
	if big.CostPerMonthUSD > 0 {
		s += fmt.Sprintf(", about $%s a month", commaInt(math.Round(big.CostPerMonthUSD)))
	}
	return s + "."
}

// speedUpNote is the answer's caveat for a simulator that ran faster than real time.
func speedUpNote(a *Analysis) string {
	if a.SpeedUp <= 0 || a.SpeedUp == 1 {
		return ""
	}
	return fmt.Sprintf(" Caution: the simulator ran %s× faster than real time, so these latencies and this capacity are not real-time figures.", fmtNum(a.SpeedUp))
}

// DeviceNoun names the unit a replica runs on: "GPU", or "machine" when report.gpu
// (or a what-if row's GPU) names a CPU (e.g. "2-core CPU" for an Ollama CPU server,
// the catalog's "cpu-slow"). Every output sizes and prices in this unit.
func DeviceNoun(gpu string) string { return deviceNoun(gpu) }

// deviceNoun is DeviceNoun.
func deviceNoun(gpu string) string {
	if strings.Contains(strings.ToLower(gpu), "cpu") {
		return "machine"
	}
	return "GPU"
}

// plural renders "1 replica" or "3 replicas" (with thousands separators).
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return commaInt(float64(n)) + " " + word + "s"
}

// commaInt renders x rounded down to an integer with thousands separators.
func commaInt(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "?"
	}
	s := fmt.Sprintf("%d", int64(math.Floor(x+1e-9)))
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		return "-" + s
	}
	return s
}

// HeadroomText says, in plain words, how the replicas of the sizing rows keep headroom
// (a fraction in [0, 1)): "Each server (replica) is planned at 80% of its capacity,
// leaving 20% headroom." The CLI summary and the reports print it under the sizing
// table; the setting (report.headroom) is named in the glossary and the capacity
// section, not here.
func HeadroomText(headroom float64) string {
	if headroom <= 0 {
		return "Each server (replica) is planned at 100% of its capacity, with no headroom."
	}
	return fmt.Sprintf("Each server (replica) is planned at %s%% of its capacity, leaving %s%% headroom.",
		fmtNum(roundTo(100*(1-headroom), 1)), fmtNum(roundTo(100*headroom, 1)))
}

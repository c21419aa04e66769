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
		return fmt.Sprintf("%s%s misses the SLA (%s) already at the lowest load tested: %s; test lower rates to find what one replica serves.",
			who, src, orDash(c.LimitingConstraint), c.BottleneckEvidence) + speedUpNote(a)
	case c.Method == MethodBelowFirstStep:
		why := "no load met it"
		if c.BottleneckEvidence != "" {
			why = c.BottleneckEvidence
		}
		return fmt.Sprintf("%s%s misses the SLA (%s) already at the lowest load tested: %s, so no number of replicas meets it; relax the SLA or use a faster deployment.",
			who, src, orDash(c.LimitingConstraint), why) + speedUpNote(a)
	case a.Schedule == plan.ScheduleTrace:
		return fmt.Sprintf("%s%s meets the SLA on the replayed trace (%.2f requests/s); replay at other speeds (trace.time_scale) to find the limit.",
			who, src, c.MaxRateWithinSLA) + speedUpNote(a)
	}
	s := fmt.Sprintf("%s%s handles %s within %s (%s)", who, src, loadPhrase(a), orWord(c.LimitingConstraint, "the SLA"), boundPhrase(c))
	if c.ThinkTimeS > 0 && c.UsersSource != UsersMeasured { // measured users are the headline itself
		s += fmt.Sprintf(", i.e. %s users with %s s think time (%s)", commaInt(float64(c.Users)), fmtNum(c.ThinkTimeS), convertedNote(a, c))
	}
	var big *WhatIf // the largest measured target
	for i := range a.WhatIf {
		if w := &a.WhatIf[i]; !w.Projected && w.Replicas > 0 && (big == nil || w.TargetUsers > big.TargetUsers) {
			big = w
		}
	}
	if big != nil {
		need := "need" // at_least: the capacity is a lower bound, so the replicas an upper one
		if c.Method == MethodAtLeast {
			need = "need at most"
		}
		s += fmt.Sprintf("; %s users %s %s (%s)", commaInt(float64(big.TargetUsers)), need,
			plural(big.Replicas, "replica"), plural(big.GPUs, deviceNoun(sz.gpu)))
		if big.CostPerMonthUSD > 0 {
			s += fmt.Sprintf(", about $%s/month", commaInt(math.Round(big.CostPerMonthUSD)))
		}
	}
	return s + "." + speedUpNote(a)
}

// loadPhrase states the headline load: "511 concurrent users", "at least 60.00
// requests/s (the highest load tested; no limit reached)", "191 users thinking ~10 s
// between requests (exponential) (measured with closed populations …)", or a
// projection.
func loadPhrase(a *Analysis) string {
	c := a.Overall
	users := "concurrent users"
	if commaInt(c.MaxConcurrencyWithinSLA) == "1" {
		users = "concurrent user"
	}
	load, inFlight := fmt.Sprintf("%s %s", commaInt(c.MaxConcurrencyWithinSLA), users), ""
	var notes []string
	switch {
	case a.Schedule == plan.ScheduleRate:
		load = fmt.Sprintf("%.2f requests/s", c.MaxRateWithinSLA)
		inFlight = "about " + fmtNum(roundTo(c.MaxConcurrencyWithinSLA, 1)) + " requests in flight"
	case c.UsersSource == UsersMeasured:
		var how string
		load, how = usersHeadline(a, c)
		notes = append(notes, how)
		inFlight = "about " + fmtNum(roundTo(c.MaxConcurrencyWithinSLA, 1)) + " requests in flight"
	}
	loadText := func(x float64) string {
		if a.Schedule == plan.ScheduleRate {
			return fmt.Sprintf("%.2f requests/s", x)
		}
		return commaInt(x)
	}
	switch c.Method {
	case MethodAtLeast:
		load = "at least " + load
		notes = append(notes, "the highest load tested; no limit reached")
	case MethodModel:
		load = "about " + load
		notes = append(notes, "projected by the model beyond the highest load tested, "+loadText(c.PassLoad))
	case MethodInterpolated:
		load = "about " + load
		notes = append(notes, fmt.Sprintf("the queueing model's estimate between %s, which met the SLA, and %s, which broke it",
			loadText(c.PassLoad), loadText(c.FailLoad)))
	}
	switch {
	case c.OfferedRateRps > 0 && c.ClientLimited:
		notes = append(notes, fmt.Sprintf("what the client's own limit let through of %.2f requests/s scheduled, not the server's limit", c.OfferedRateRps))
	case c.OfferedRateRps > 0:
		notes = append(notes, fmt.Sprintf("what the server completed of %.2f requests/s offered", c.OfferedRateRps))
	}
	if inFlight != "" {
		notes = append(notes, inFlight)
	}
	if len(notes) > 0 {
		load += " (" + strings.Join(notes, "; ") + ")"
	}
	return load
}

// boundPhrase names what limits the headline: "queue-bound", "no bottleneck reached",
// or the failing requests.
func boundPhrase(c Capacity) string {
	switch c.Bottleneck {
	case RegimeNone, "":
		return "no bottleneck reached"
	case RegimeErrors:
		if c.cause == causeHung {
			return "beyond it requests hang (the server looks hung, not loaded): " + c.BottleneckEvidence
		}
		return "beyond it requests fail: " + c.BottleneckEvidence
	}
	return string(c.Bottleneck) + "-bound"
}

func orWord(s, word string) string {
	if s == "" {
		return word
	}
	return s
}

// speedUpNote is the answer's caveat for a simulator that ran faster than real time.
func speedUpNote(a *Analysis) string {
	if a.SpeedUp <= 0 || a.SpeedUp == 1 {
		return ""
	}
	return fmt.Sprintf(" Caution: the simulator ran %s× faster than real time, so these latencies and this capacity are not real-time figures.", fmtNum(a.SpeedUp))
}

// deviceNoun names the unit a replica runs on: "GPU", or "machine" when report.gpu
// names a CPU (e.g. "2-core CPU" for an Ollama CPU server).
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

// HeadroomText says how the replicas of the sizing rows keep headroom (a fraction in
// [0, 1)): "Replicas keep 20% headroom (report.headroom): each is planned for 80% of its
// users/replica." The CLI summary and the reports print it under the sizing table.
func HeadroomText(headroom float64) string {
	return fmt.Sprintf("Replicas keep %s%% headroom (report.headroom): each is planned for %s%% of its users/replica.",
		fmtNum(roundTo(100*headroom, 1)), fmtNum(roundTo(100*(1-headroom), 1)))
}

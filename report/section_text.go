package report

import (
	"fmt"
	"strings"

	"github.com/llmcap/llmcap/analysis"
)

// The words and tables of the report's sections, shared by the PDF and the HTML report
// so each sentence lives in one place: every function returns plain strings (headers
// and rows for tables), never layout.

// evidenceIntro opens the Evidence section that follows the executive summary.
const evidenceIntro = "The technical basis of the executive summary, for the engineer who checks it. Terms are explained in the glossary at the end of this section."

// Labels of the executive summary's plain lines (analysis.Headline) and of the
// Evidence section's technical ones.
const (
	labelLimit     = "What limits it"
	labelAction    = "What to do"
	labelCertainty = "How sure"
	labelBinding   = "Binding constraint"
	labelAdvice    = "What to do, in the engine's settings"
)

// headlineLines are the executive summary's labelled plain lines (label, text), the
// empty ones left out.
func headlineLines(h analysis.Headline) [][2]string {
	var out [][2]string
	for _, l := range [][2]string{{labelLimit, h.Limit}, {labelAction, h.Action}, {labelCertainty, h.Certainty}} {
		if l[1] != "" {
			out = append(out, l)
		}
	}
	return out
}

// capacityPlanHeading is the executive summary's heading of the sizing table.
func capacityPlanHeading(a *analysis.Analysis) string {
	return "Capacity plan (target users → replicas → " + unitNoun(a) + "s → cost)"
}

// modelIntro explains the queueing model above the fit table.
const modelIntro = "Each segment's ladder is fitted with a queueing model: up to the effective number of slots TTFT stays near the prefill time; " +
	"past it, requests queue and TTFT grows linearly with concurrency at slope 1 / X_max. ITL follows base + per-sequence × batch. " +
	"R² measures the TTFT fit (below 0.8 the model is a poor description of the measurements: trust the measured steps, not its projections); " +
	"the residuals are measured − predicted TTFT per step."

// noFitChartsText replaces the fit, Pareto and CDF charts when no request succeeded.
const noFitChartsText = "No request succeeded, so there are no model-fit, Pareto or TTFT CDF charts."

// groundTruthIntro introduces the simulator's resolved settings.
const groundTruthIntro = "The embedded simulator's resolved settings: what the fitted model should recover (e.g. slots ≈ max_num_seqs)."

// serverIntro introduces the scraped server-metrics charts.
const serverIntro = "Scraped from the server's Prometheus endpoint during the sweep; shaded bands are the steps."

// appendixCaption explains the appendix table's columns.
const appendixCaption = "Latencies in ms; tok/s: output tokens per second, in total and per user; SS: steady state reached."

// segmentCapacityText is the sentence under a segment's heading: its capacity, range,
// method, bottleneck, binding constraint and throughput at capacity.
func segmentCapacityText(a *analysis.Analysis, seg analysis.SegmentAnalysis) string {
	c := seg.Capacity
	return fmt.Sprintf("Capacity: %s (range %s, %s). Bottleneck: %s. Binding constraint: %s. Throughput at capacity: %s req/s, %s output tokens/s.",
		capacityText(a, c), rangeText(c), methodText(c.Method), orDash(c.Bottleneck), analysis.BindingText(c),
		auto(c.ThroughputAtCapacity), auto(c.OutputTokensPerSAtCapacity))
}

// stepTable is a segment's step table: headers and one row per step (load, requests,
// errors, TTFT p50/p95/p99 ms, ITL p50 ms, req/s, goodput req/s, output tok/s, SLA ✓/✗,
// regime).
func stepTable(a *analysis.Analysis, seg analysis.SegmentAnalysis) ([]string, [][]string) {
	var data [][]string
	for _, s := range seg.Steps {
		sla := "✓"
		switch {
		case leftOut(s):
			sla = "–" // left out of the capacity: its verdict does not count
		case !s.MeetsSLA:
			sla = "✗"
		}
		ttft, itl := shown(s.TTFTMs), shown(s.ITLMs)
		data = append(data, []string{loadText(s.Load), num(float64(s.Requests), 0), pct(s.ErrorRate), auto(ttft.P50), auto(ttft.P95),
			auto(ttft.P99), auto(itl.P50), auto(s.RequestThroughput), auto(s.Goodput), auto(s.OutputTokenThroughput), sla, orDash(s.Regime)})
	}
	return []string{loadName(a), "requests", "errors", "TTFT p50 ms", "TTFT p95 ms", "TTFT p99 ms", "ITL p50 ms",
		"req/s", "goodput req/s", "output tok/s", "SLA", "regime"}, data
}

// fitTable is the model-fit table: one row per segment (and the mix).
func fitTable(a *analysis.Analysis) ([]string, [][]string) {
	var data [][]string
	for _, seg := range allSegments(a) {
		f := seg.Fit
		if f == nil {
			data = append(data, []string{seg.Segment, "no fit", "", "", "", "", "", ""})
			continue
		}
		if f.Underdetermined {
			data = append(data, []string{seg.Segment, fmt.Sprintf("fit from %d steps: too few to identify the model", f.FitSteps), "", "", "", "", "", ""})
			continue
		}
		xMax := auto(f.ServiceRate)
		switch {
		case !f.SlotsIdentified:
			xMax = "–"
		case seg.FromMix:
			xMax += " (mix)" // fitted to the mix's loads: the whole server's X_max
		}
		data = append(data, []string{seg.Segment, slotsText(f), xMax, auto(f.BaseTTFTMs), fmt.Sprintf("%s + %s·n", auto(f.DecodeBaseMs), auto(f.DecodePerSeqMs)),
			auto(f.PrefillMsPerKToken), fitR2Text(f.R2), auto(maxAbs(f.Residuals))})
	}
	return []string{"segment", "slots (95% CI)", "X_max req/s", "base TTFT ms", "ITL ms (n = batch)", "prefill ms / 1k tok", "R²", "max |resid.| ms"}, data
}

// sizingHeading is the capacity section's heading of the sizing table.
func sizingHeading(a *analysis.Analysis) string {
	return "Target users → replicas → " + unitNoun(a) + "s → cost"
}

// modelChartNames are the model section's charts in order: each segment's fit, the
// Pareto front, each segment's TTFT CDF (the run may lack some).
func modelChartNames(a *analysis.Analysis) []string {
	var names []string
	for _, seg := range allSegments(a) {
		names = append(names, "fit-"+slugify(seg.Segment))
	}
	names = append(names, "pareto")
	for _, seg := range allSegments(a) {
		names = append(names, "cdf-"+slugify(seg.Segment))
	}
	return names
}

// capacityIntro is the paragraph that opens the capacity section: the definition of
// capacity, how users per replica are counted and the replicas formula.
func capacityIntro(a *analysis.Analysis) string {
	users := "Users per replica convert it with the think time (users = X · (R + Z), an estimate, rounded down to whole users)"
	if isUsers(a) {
		users = "Users per replica are that capacity, measured with users thinking between requests (rounded down to whole users)"
	}
	return fmt.Sprintf("Capacity is the largest %s at which every SLA constraint holds (%s). %s; replicas = ⌈target users ÷ (users per replica × (1 − headroom))⌉ with headroom %s.",
		loadName(a), constraintsText(a.Constraints), users, shareText(headroom(a)))
}

// capacityTable is every segment's capacity: headers and one row per segment (a segment
// analysed from the mix's records shows the mix's users, marked "(mix)").
func capacityTable(a *analysis.Analysis) ([]string, [][]string) {
	var data [][]string
	for _, seg := range allSegments(a) {
		c := seg.Capacity
		users := capacityUsersText(c)
		if seg.FromMix && users != "–" {
			users += " (mix)" // the mix's users, of whom this segment sends its share
		}
		data = append(data, []string{seg.Segment, capacityText(a, c), rangeText(c), methodText(c.Method),
			orDash(c.Bottleneck), auto(c.ThroughputAtCapacity), users})
	}
	return []string{"segment", "capacity", "range", "method", "bottleneck", "req/s at cap.", "users / replica"}, data
}

// sizingNotes are the notes under the capacity section's sizing table: GPUs per
// replica and price, how $ / M output tokens is computed, and the energy columns'
// price and method when the table has them.
func sizingNotes(a *analysis.Analysis) []string {
	notes := []string{
		fmt.Sprintf("%ss per replica: %d. Price: %s per %s-hour, %d hours a month. The XLSX workbook's Summary sheet recomputes this table for any input.",
			unitNoun(a), gpusPerReplica(a), sizingUSDCents(gpuHourUSD(a)), unitNoun(a), hoursPerMonth),
		fmt.Sprintf("$ / M output tokens = price of one replica's %ss per hour ÷ (output tokens/s at capacity × (1 − headroom %s) × 3,600) × 1,000,000: "+
			"the cost of a million generated tokens when every replica runs fully loaded up to its headroom.", unitNoun(a), shareText(headroom(a))),
	}
	if n := energyCostNote(a); n != "" {
		notes = append(notes, n)
	}
	return notes
}

// whatIfRows is the sizing table, in GPUs or machines (sizingHeaders), with "—" for a
// missing price and the replicas of a lower-bound capacity marked "at most" (basisText):
// headers and one row per what-if GPU, with the energy columns (energyCostHeaders)
// when a row prices the GPUs' energy.
func whatIfRows(a *analysis.Analysis) ([]string, [][]string) {
	var data [][]string
	energy := hasEnergyCost(a.WhatIf)
	for _, w := range a.WhatIf {
		r := []string{w.GPU, basisText(a, w), usersText(w.UsersPerReplica), num(float64(w.TargetUsers), 0),
			num(float64(w.Replicas), 0), num(float64(w.GPUs), 0), sizingPrice(w), sizingUSD(w.CostPerMonthUSD), sizingUSDCents(w.CostPerMOutputUSD)}
		if energy {
			r = append(r, energyCostCells(w)...)
		}
		data = append(data, r)
	}
	hdr := sizingHeaders(a)
	if energy {
		hdr = append(hdr, energyCostHeaders...)
	}
	return hdr, data
}

// slaTable is the SLA: one row per constraint, then the error budget.
func slaTable(a *analysis.Analysis) ([]string, [][]string) {
	var data [][]string
	for _, c := range a.Constraints {
		data = append(data, []string{strings.ToUpper(c.Metric), c.Stat, "≤ " + ms(c.ThresholdMs)})
	}
	maxErr := a.Plan.SLA.MaxErrorRate
	if maxErr <= 0 {
		maxErr = 0.01
	}
	data = append(data, []string{"error rate", "all requests", "≤ " + pct(maxErr)})
	return []string{"metric", "statistic", "threshold"}, data
}

// segmentsTable is the plan's segments with their mix shares and lengths (the analysed
// segments when the plan lists none).
func segmentsTable(a *analysis.Analysis) ([]string, [][]string) {
	p := a.Plan
	var segs [][]string
	var planWeights []float64
	for _, s := range p.Segments {
		planWeights = append(planWeights, s.Weight)
	}
	shares := weightShares(planWeights)
	for i, s := range p.Segments {
		segs = append(segs, []string{s.Name, shareText(shares[i]), distText(s.PromptTokens, s.Trace), distText(s.OutputTokens, s.Trace), multiTurnText(s.MultiTurn)})
	}
	if len(segs) == 0 {
		shares := segmentShares(a)
		for i, s := range a.Segments {
			segs = append(segs, []string{s.Segment, shareText(shares[i]), "–", "–", "–"})
		}
	}
	return []string{"segment", "mix share", "prompt tokens", "output tokens", "multi-turn"}, segs
}

// methodologyParas are the methodology section's paragraphs.
func methodologyParas() []string {
	return []string{
		"Metrics follow AIPerf's definitions. TTFT is the time from sending a request to the first streamed event carrying content or reasoning; " +
			"ITL is (E2E − TTFT) ÷ (output tokens − 1), defined for two or more output tokens; E2E ends at the last content event.",
		"Percentiles interpolate linearly between closest ranks over the successful requests of each step's measurement window (warm-up excluded); " +
			"failed requests are counted separately as the error rate.",
		"Throughput is completed requests (and tokens) over the span from the first request to the last response of the window. " +
			"Goodput counts only requests meeting every SLA constraint (inclusive ≤).",
		"Capacity is interpolated between measured steps where possible; method \"model\" marks a projection beyond the last step from the fitted queueing model. " +
			"What-if rows for other GPUs are roofline projections (prefill ∝ FLOPS, decode ∝ memory bandwidth), not measurements.",
		"Caveats: results hold for the measured prompt/output length mix, engine settings and software versions; steps that did not reach steady state " +
			"and steps with errors above the SLA's error budget are flagged on page 1.",
	}
}

// appendixTable is every segment's full per-step statistics (latencies in ms).
func appendixTable(a *analysis.Analysis) ([]string, [][]string) {
	hdr := []string{"segment", loadName(a), "TTFT p50", "TTFT p95", "TTFT p99", "TTFO p95", "ITL p50", "ITL p95", "E2E p95",
		"tok/s", "per user", "SS"}
	var data [][]string
	for _, seg := range allSegments(a) {
		for _, s := range seg.Steps {
			steady := "yes"
			if !s.SteadyState {
				steady = "no"
			}
			ttft, ttfo, itl, e2e := shown(s.TTFTMs), shown(s.TTFOMs), shown(s.ITLMs), shown(s.E2EMs)
			data = append(data, []string{clipRunes(seg.Segment, 13), loadText(s.Load), auto(ttft.P50), auto(ttft.P95), auto(ttft.P99),
				auto(ttfo.P95), auto(itl.P50), auto(itl.P95), auto(e2e.P95), auto(s.OutputTokenThroughput),
				auto(s.PerUserOutputTokensPerS), steady})
		}
	}
	return hdr, data
}

// The section headings every paged format shows, in report order (the kernels'
// heading is profileHeading; a segment's is segmentHeading).
const (
	headSummary     = "Executive summary"
	headEvidence    = "Evidence"
	headWorkload    = "SLA and workload"
	headModel       = "The model and its fit"
	headCapacity    = "Capacity"
	headMethodology = "Methodology and caveats"
	headServer      = "Server metrics"
	headAppendix    = "Appendix: all steps"
)

// segmentHeading is a segment's results heading.
func segmentHeading(segment string) string { return "Results: " + segment }

// footerText is the line at the foot of every page: the tool version and the command
// that renders the report again.
func footerText(in *input) string {
	return toolText(in.a) + " · reproducible with: llmcap report " + runDirText(in)
}

// toolText is the llmcap that ran the sweep: its version and commit, "llmcap dev
// (67b5c33e2ddb-dirty)"; the version alone when the commit is unknown or the version
// names it (a pseudo-version, "llmcap v0.0.0-20261201193735-67b5c33e2ddb").
func toolText(a *analysis.Analysis) string {
	c := a.ToolCommit.String()
	if c == "" || strings.Contains(a.ToolVersion, strings.TrimSuffix(c, "-dirty")) {
		return "llmcap " + a.ToolVersion
	}
	return "llmcap " + a.ToolVersion + " (" + c + ")"
}

// driftHeading heads the output-drift section (analysis.Drift).
const driftHeading = "Output drift (temperature 0)"

// driftParas are the output-drift section's paragraphs: the probe's sentence, each
// changed prompt and where it changed (at most analysis.DriftListed), then the baseline's; nil
// for a run without the probe.
func driftParas(a *analysis.Analysis) []string {
	d := a.Drift
	if d == nil {
		return nil
	}
	out := append([]string{d.Text}, analysis.DriftChangeLines(d.Changed)...)
	if b := d.Baseline; b != nil {
		out = append(out, "Against "+b.Dir+": "+b.Text)
		out = append(out, analysis.DriftChangeLines(b.Changed)...)
	}
	return out
}

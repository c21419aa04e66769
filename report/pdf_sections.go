package report

import (
	"fmt"
	"strings"

	"github.com/johnfercher/maroto/v2/pkg/components/row"
	"github.com/johnfercher/maroto/v2/pkg/components/text"
	"github.com/johnfercher/maroto/v2/pkg/consts/align"
	"github.com/johnfercher/maroto/v2/pkg/consts/fontstyle"
	"github.com/johnfercher/maroto/v2/pkg/core"
	"github.com/johnfercher/maroto/v2/pkg/props"

	"github.com/llmcap/llmcap/analysis"
	"github.com/llmcap/llmcap/plan"
)

// summaryPage is page 1, for a manager: the answer, one line on what a user is, what
// limits capacity and what to do in plain words, how sure the report is, key numbers,
// the capacity plan and one line on the warnings. The technical material is the
// Evidence section (evidenceSection) on the next page.
func summaryPage(in *input) []core.Row {
	a := in.a
	h := a.Headline
	rows := []core.Row{heading("Executive summary")}
	if banner := speedUpBanner(a); banner != "" {
		rows = append(rows, boxed("⚠ "+banner+".", colWarnBG, props.Text{Size: 10.5, Style: fontstyle.Bold}), para(""))
	}
	rows = append(rows, boxed(a.Answer, colAnswerBG, props.Text{Size: 12, Style: fontstyle.Bold}))
	if h.Note != "" {
		rows = append(rows, para(h.Note, props.Text{Size: 8.5, Top: 1.5, Bottom: 1, Color: colGrey}))
	}
	for _, l := range [][2]string{{"What limits it", h.Limit}, {"What to do", h.Action}, {"How sure", h.Certainty}} {
		if l[1] != "" {
			rows = append(rows, labelledPara(l[0], l[1]))
		}
	}
	if errorsBound(a) {
		rows = append(rows, errorsTable(a.Errors)...)
	}
	rows = append(rows, subheading("Key numbers"))
	rows = append(rows, kvTable(plainNumbers(a))...)
	if len(a.WhatIf) > 0 {
		rows = append(rows, subheading("Capacity plan (target users → replicas → "+unitNoun(a)+"s → cost)"))
		rows = append(rows, whatIfTable(a)...)
		rows = append(rows, para(analysis.HeadroomText(a.WhatIf[0].Headroom), props.Text{Size: 8, Top: 1, Bottom: 1, Color: colGrey}))
		if n := samePriceNote(a.WhatIf); n != "" {
			rows = append(rows, para(n, props.Text{Size: 8, Top: 1, Bottom: 1, Color: colGrey}))
		}
	}
	if w := warningsLine(a, "Evidence, page 2"); w != "" {
		rows = append(rows, row.New(3), boxed("⚠ "+w, colWarnBG, props.Text{Size: 9}))
	}
	return rows
}

// labelledPara is a paragraph with a bold label in its own column ("What to do").
func labelledPara(label, s string) core.Row {
	return row.New().Add(
		text.NewCol(4, label, props.Text{Size: 9.5, Style: fontstyle.Bold, Top: 2}),
		text.NewCol(20, clipText(s), props.Text{Size: 9.5, Top: 2}),
	)
}

// evidenceSection follows page 1: the technical basis of its answer (binding
// constraint, bottleneck regime and its evidence, the engine-level advice, the
// technical key numbers, the plan's notes, every warning) and a glossary of the terms.
func evidenceSection(in *input) []core.Row {
	a := in.a
	c := a.Overall
	rows := []core.Row{heading("Evidence"),
		para("The technical basis of page 1, for the engineer who checks it. Terms are explained in the glossary at the end of this section.",
			props.Text{Size: 8.5, Top: 1, Bottom: 1, Color: colGrey}),
		para("Binding constraint: "+analysis.BindingText(c), props.Text{Size: 9.5, Style: fontstyle.Bold, Top: 1}),
		para("Bottleneck: "+evidenceVerdict(c)+".", props.Text{Size: 9.5, Top: 1}),
	}
	if ev := strings.TrimSpace(c.BottleneckEvidence); ev != "" {
		rows = append(rows, para("Evidence: "+ev, props.Text{Size: 8.5, Top: 1, Color: colGrey}))
	}
	if c.Advice != "" {
		rows = append(rows, para("What to do, in the engine's settings: "+c.Advice, props.Text{Size: 9.5, Top: 1, Bottom: 2}))
	}
	rows = append(rows, subheading("Key numbers (technical)"))
	rows = append(rows, kvTable(keyNumbers(a))...)
	if n := strings.TrimSpace(a.Plan.Report.Notes); n != "" {
		rows = append(rows, subheading("Notes"), para(n))
	}
	if ws := a.Warnings; len(ws) > 0 {
		rows = append(rows, subheading("Warnings"))
		if scope := warningScope(a, ws); scope != "" {
			rows = append(rows, para(scope, props.Text{Size: 8.5, Top: 0.5, Bottom: 1.5, Style: fontstyle.Bold}))
		}
		for _, w := range ws {
			rows = append(rows, boxed("⚠ "+w.Message, colWarnBG, props.Text{Size: 8.5}))
		}
	}
	rows = append(rows, subheading("Glossary"))
	return append(rows, kvTable(glossaryTerms)...)
}

// evidenceVerdict is the bottleneck verdict: the regime's description, or, when no
// load broke the SLA, that none was reached within the loads tested (the evidence then
// says what the highest load already shows).
func evidenceVerdict(c analysis.Capacity) string {
	if c.Bottleneck == analysis.RegimeNone || c.Bottleneck == "" {
		return "none reached within the loads tested"
	}
	return bottleneckVerdict(c.Bottleneck)
}

// whatIfTable is the sizing table, in GPUs or machines, with "—" for a missing price
// and the replicas of a lower-bound capacity marked "at most".
func whatIfTable(a *analysis.Analysis) []core.Row {
	var data [][]string
	for _, w := range a.WhatIf {
		data = append(data, []string{w.GPU, basisText(a, w), usersText(w.UsersPerReplica), num(float64(w.TargetUsers), 0),
			num(float64(w.Replicas), 0), num(float64(w.GPUs), 0), sizingPrice(w), sizingUSD(w.CostPerMonthUSD), sizingUSDCents(w.CostPerMOutputUSD)})
	}
	return table(sizingHeaders(a), []int{3, 4, 2, 3, 2, 2, 2, 3, 3}, data)
}

// errorsTable is the run's error breakdown for page 1: a sentence, then class, count
// and a one-line sample message per error class.
func errorsTable(e analysis.ErrorSummary) []core.Row {
	rows := []core.Row{subheading("Errors"), para(errorsSummaryText(e), props.Text{Size: 9, Top: 1, Bottom: 1})}
	data := errorRows(e)
	if len(data) == 0 {
		return rows
	}
	return append(rows, textTable([]string{"error class", "count", "sample message"}, []int{5, 3, 16}, data)...)
}

// thinkTimeText states the think time and how users are counted: measured by a users
// ladder, or estimated from the capacity (users = throughput × (latency + think time)).
func thinkTimeText(a *analysis.Analysis) string {
	z := num(a.Plan.SLA.ThinkTime.Seconds(), 1)
	if isUsers(a) {
		return fmt.Sprintf("Think time between a user's requests: %s s on average (%s). Users are measured: each step drove that many users, "+
			"each waiting for its answer and then thinking before its next request.", z, a.Plan.Ladder.ThinkDist())
	}
	return fmt.Sprintf("Think time between a user's requests: %s s (users are estimated: throughput × (latency + think time)).", z)
}

// workloadSection states the SLA, the segments and their mix weights, and the ladder.
func workloadSection(in *input) []core.Row {
	a := in.a
	p := a.Plan
	rows := []core.Row{heading("SLA and workload"), subheading("SLA")}
	var sla [][]string
	for _, c := range a.Constraints {
		sla = append(sla, []string{strings.ToUpper(c.Metric), c.Stat, "≤ " + ms(c.ThresholdMs)})
	}
	maxErr := p.SLA.MaxErrorRate
	if maxErr <= 0 {
		maxErr = 0.01
	}
	sla = append(sla, []string{"error rate", "all requests", "≤ " + pct(maxErr)})
	rows = append(rows, table([]string{"metric", "statistic", "threshold"}, []int{8, 8, 8}, sla)...)
	rows = append(rows, para(thinkTimeText(a)))
	rows = append(rows, subheading("Segments and mix"))
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
	rows = append(rows, table([]string{"segment", "mix share", "prompt tokens", "output tokens", "multi-turn"}, []int{5, 3, 6, 6, 4}, segs)...)
	rows = append(rows, subheading("Ladder and target"), para(ladderText(a)))
	if d := strings.TrimSpace(p.Description); d != "" {
		rows = append(rows, para(d))
	}
	return rows
}

// distText describes a token distribution.
func distText(d plan.Dist, tr *plan.Trace) string {
	if tr != nil {
		return "trace " + tr.Format
	}
	switch d.Kind {
	case plan.DistFixed:
		return num(d.Value, 0)
	case plan.DistUniform:
		return fmt.Sprintf("uniform %s–%s", num(d.Min, 0), num(d.Max, 0))
	case plan.DistNormal, plan.DistLognormal:
		return fmt.Sprintf("%s %s ± %s", d.Kind, num(d.Mean, 0), num(d.StdDev, 0))
	case plan.DistEmpirical:
		return "empirical " + d.Column
	}
	return orDash(d.Kind)
}

// multiTurnText describes a multi-turn setting.
func multiTurnText(m *plan.MultiTurn) string {
	if m == nil {
		return "no"
	}
	return fmt.Sprintf("%d turns", m.Turns)
}

// ladderText describes the ladder and the target server.
func ladderText(a *analysis.Analysis) string {
	p := a.Plan
	var levels []string
	for _, c := range p.Ladder.Concurrency {
		levels = append(levels, fmt.Sprint(c))
	}
	for _, r := range p.Ladder.Rate {
		levels = append(levels, auto(r))
	}
	target := p.Target.URL
	if p.Target.IsSimulator() {
		s := p.Target.Simulator
		target = fmt.Sprintf("embedded simulator (%s, %s, tensor parallel %d, max_num_seqs %d)", s.GPU, s.Model, max(1, s.TensorParallel), s.MaxNumSeqs)
	}
	mix := ""
	if p.Ladder.Mix {
		mix = " The weighted mix of all segments was also driven as its own ladder."
	}
	return fmt.Sprintf("Schedule: %s; load levels: %s. Measurement window per step: %s. Target: %s, model %s.%s",
		orDash(a.Schedule), orDash(strings.Join(levels, ", ")), p.Ladder.Duration, target, orDash(p.Target.Model), mix)
}

// segmentSection is one segment's results: its capacity, charts and step table.
func segmentSection(in *input, seg analysis.SegmentAnalysis, byName map[string]Chart) []core.Row {
	a := in.a
	c := seg.Capacity
	rows := []core.Row{heading("Results: " + seg.Segment),
		para(fmt.Sprintf("Capacity: %s (range %s, %s). Bottleneck: %s. Binding constraint: %s. Throughput at capacity: %s req/s, %s output tokens/s.",
			capacityText(a, c), rangeText(c), methodText(c.Method), orDash(c.Bottleneck), analysis.BindingText(c),
			auto(c.ThroughputAtCapacity), auto(c.OutputTokensPerSAtCapacity)))}
	if ev := strings.TrimSpace(c.BottleneckEvidence); ev != "" {
		rows = append(rows, para("Evidence: "+ev, props.Text{Size: 8.5, Top: 1, Bottom: 1, Color: colGrey}))
	}
	slug := slugify(seg.Segment)
	if !segmentSucceeded(seg) {
		rows = append(rows, para(noSuccessText+".", props.Text{Size: 9, Top: 2, Bottom: 1}))
	}
	rows = appendRows(rows, chartRow(byName, "ttft-"+slug), chartRow(byName, "throughput-"+slug), chartRow(byName, "itl-"+slug))
	rows = append(rows, subheading("Steps"))
	var data [][]string
	for _, s := range seg.Steps {
		sla := "✓"
		if !s.MeetsSLA {
			sla = "✗"
		}
		ttft, itl := shown(s.TTFTMs), shown(s.ITLMs)
		data = append(data, []string{loadText(s.Load), num(float64(s.Requests), 0), pct(s.ErrorRate), auto(ttft.P50), auto(ttft.P95),
			auto(ttft.P99), auto(itl.P50), auto(s.RequestThroughput), auto(s.Goodput), auto(s.OutputTokenThroughput), sla, orDash(s.Regime)})
	}
	rows = append(rows, table([]string{loadName(a), "requests", "errors", "TTFT p50 ms", "TTFT p95 ms", "TTFT p99 ms", "ITL p50 ms",
		"req/s", "goodput req/s", "output tok/s", "SLA", "regime"}, []int{3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 2}, data)...)
	return rows
}

// modelSection is the fitted model per segment, its fit quality, and the fit, CDF and
// Pareto charts.
func modelSection(in *input, byName map[string]Chart) []core.Row {
	a := in.a
	rows := []core.Row{heading("The model and its fit"),
		para("Each segment's ladder is fitted with a queueing model: up to the effective number of slots TTFT stays near the prefill time; " +
			"past it, requests queue and TTFT grows linearly with concurrency at slope 1 / X_max. ITL follows base + per-sequence × batch. " +
			"R² measures the TTFT fit; the residuals are measured − predicted TTFT per step.")}
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
		if !f.SlotsIdentified {
			xMax = "–"
		}
		data = append(data, []string{seg.Segment, slotsText(f), xMax, auto(f.BaseTTFTMs), fmt.Sprintf("%s + %s·n", auto(f.DecodeBaseMs), auto(f.DecodePerSeqMs)),
			auto(f.PrefillMsPerKToken), num(f.R2, 3), auto(maxAbs(f.Residuals))})
	}
	rows = append(rows, autoTable([]string{"segment", "slots (95% CI)", "X_max req/s", "base TTFT ms", "ITL ms (n = batch)", "prefill ms / 1k tok", "R²", "max |resid.| ms"},
		[]int{4, 4, 2, 3, 4, 3, 2, 2}, data)...)
	if !anySucceeded(a) {
		rows = append(rows, para("No request succeeded, so there are no model-fit, Pareto or TTFT CDF charts.", props.Text{Size: 9, Top: 2, Bottom: 1}))
	}
	for _, seg := range allSegments(a) {
		rows = appendRows(rows, chartRow(byName, "fit-"+slugify(seg.Segment)))
	}
	rows = appendRows(rows, chartRow(byName, "pareto"))
	for _, seg := range allSegments(a) {
		rows = appendRows(rows, chartRow(byName, "cdf-"+slugify(seg.Segment)))
	}
	if gt := a.GroundTruth; len(gt) > 0 {
		rows = append(rows, subheading("Ground truth (simulator settings)"),
			para("The embedded simulator's resolved settings: what the fitted model should recover (e.g. slots ≈ max_num_seqs).",
				props.Text{Size: 8.5, Top: 1, Bottom: 1, Color: colGrey}))
		rows = append(rows, kvTable(groundTruthRows(gt))...)
	}
	return rows
}

// maxAbs is the largest absolute finite value (NaN when none).
func maxAbs(v []float64) float64 {
	m, ok := 0.0, false
	for _, x := range v {
		if finite(x) {
			m, ok = max(m, max(x, -x)), true
		}
	}
	if !ok {
		return nanValue
	}
	return m
}

// textTable is a table whose columns are all left-aligned except the second (a count):
// for text such as error classes and messages.
func textTable(headers []string, sizes []int, rows [][]string) []core.Row {
	mk := func(cells []string, header bool) core.Row {
		cols := make([]core.Col, 0, len(sizes))
		for i, size := range sizes {
			v := ""
			if i < len(cells) {
				v = cells[i]
			}
			p := props.Text{Size: 7, Top: 1, Bottom: 1, Left: 0.8, Right: 0.8}
			if i == 1 {
				p.Align = align.Right
			}
			if header {
				p.Style = fontstyle.Bold
			}
			cols = append(cols, text.NewCol(size, v, p))
		}
		return row.New().Add(cols...) // auto height: a long message wraps instead of overflowing
	}
	out := []core.Row{mk(headers, true).WithStyle(&props.Cell{BackgroundColor: colHeaderBG})}
	for i, r := range rows {
		tr := mk(r, false)
		if i%2 == 1 {
			tr = tr.WithStyle(&props.Cell{BackgroundColor: colZebra})
		}
		out = append(out, tr)
	}
	return out
}

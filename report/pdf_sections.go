package report

import (
	"fmt"
	"slices"
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
	rows := []core.Row{heading(headSummary)}
	if banner := speedUpBanner(a); banner != "" {
		rows = append(rows, boxed("⚠ "+banner+".", colWarnBG, props.Text{Size: 10.5, Style: fontstyle.Bold}), para(""))
	}
	rows = append(rows, boxed(a.Answer, colAnswerBG, props.Text{Size: 12, Style: fontstyle.Bold}))
	if h.Note != "" {
		rows = append(rows, para(h.Note, props.Text{Size: 8.5, Top: 1.5, Bottom: 1, Color: colGrey}))
	}
	for _, l := range headlineLines(h) {
		rows = append(rows, labelledPara(l[0], l[1]))
	}
	if errorsBound(a) {
		rows = append(rows, errorsTable(a)...)
	}
	rows = append(rows, subheading("Key numbers"))
	rows = append(rows, kvTable(plainNumbers(a))...)
	if len(a.WhatIf) > 0 {
		rows = append(rows, subheading(capacityPlanHeading(a)))
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
	rows := []core.Row{heading(headEvidence),
		para(evidenceIntro, props.Text{Size: 8.5, Top: 1, Bottom: 1, Color: colGrey}),
		para(labelBinding+": "+analysis.BindingText(c), props.Text{Size: 9.5, Style: fontstyle.Bold, Top: 1}),
		para("Bottleneck: "+evidenceVerdict(c)+".", props.Text{Size: 9.5, Top: 1}),
	}
	if ev := strings.TrimSpace(c.BottleneckEvidence); ev != "" {
		rows = append(rows, para("Evidence: "+ev, props.Text{Size: 8.5, Top: 1, Color: colGrey}))
	}
	if c.Advice != "" {
		rows = append(rows, para(labelAdvice+": "+c.Advice, props.Text{Size: 9.5, Top: 1, Bottom: 2}))
	}
	rows = append(rows, subheading("Key numbers (technical)"))
	rows = append(rows, kvTable(keyNumbers(a))...)
	if n := strings.TrimSpace(a.Plan.Report.Notes); n != "" {
		rows = append(rows, subheading("Notes"), para(n))
	}
	if ps := driftParas(a); len(ps) > 0 {
		rows = append(rows, subheading(driftHeading), para(ps[0], props.Text{Size: 9.5, Top: 1}))
		for _, l := range ps[1:] {
			rows = append(rows, para(l, props.Text{Size: 8.5, Top: 0.5, Color: colGrey}))
		}
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

// whatIfTable is the sizing table (whatIfRows) laid out for the PDF.
func whatIfTable(a *analysis.Analysis) []core.Row {
	hdr, data := whatIfRows(a)
	if len(hdr) > len(sizingHeaders(a)) { // with the energy columns
		return table(hdr, []int{2, 4, 2, 2, 2, 2, 2, 2, 2, 2, 2}, data)
	}
	return table(hdr, []int{3, 5, 2, 2, 2, 2, 2, 3, 3}, data)
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

// errorsTable is the run's error breakdown for page 1: a sentence, then what failed in
// plain words (errorPlainRows), the count and a one-line sample message per error class.
func errorsTable(a *analysis.Analysis) []core.Row {
	rows := []core.Row{subheading("Errors"), para(errorsSummaryText(a.Errors), props.Text{Size: 9, Top: 1, Bottom: 1})}
	data := errorPlainRows(a)
	if len(data) == 0 {
		return rows
	}
	return append(rows, textTable(errorPlainHeaders, []int{6, 2, 16}, data)...)
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

// workloadSection states the SLA, the segments and their mix weights, and the ladder:
// three blocks, so the section can start at the foot of a page.
func workloadSection(in *input) []block {
	a := in.a
	p := a.Plan
	sla := block{heading(headWorkload), subheading("SLA")}
	hdr, data := slaTable(a)
	sla = append(sla, table(hdr, []int{8, 8, 8}, data)...)
	sla = append(sla, para(thinkTimeText(a)))
	segs := block{subheading("Segments and mix")}
	hdr, data = segmentsTable(a)
	segs = append(segs, table(hdr, []int{5, 3, 6, 6, 4}, data)...)
	ladder := block{subheading("Ladder and target"), para(ladderText(a))}
	if d := strings.TrimSpace(p.Description); d != "" {
		ladder = append(ladder, para(d))
	}
	return []block{sla, segs, ladder}
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
	for _, u := range p.Ladder.Users {
		levels = append(levels, fmt.Sprint(u))
	}
	if len(levels) == 0 { // a capacity search: the loads it measured
		levels = measuredLoads(a)
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

// measuredLoads are the distinct loads of every segment's steps, ascending (a
// capacity search's levels, which the plan does not list).
func measuredLoads(a *analysis.Analysis) []string {
	var loads []float64
	for _, seg := range allSegments(a) {
		for _, st := range seg.Steps {
			if finite(st.Load) {
				loads = append(loads, st.Load)
			}
		}
	}
	slices.Sort(loads)
	var out []string
	for _, l := range slices.Compact(loads) {
		out = append(out, loadText(l))
	}
	return out
}

// segmentSection is one segment's results as one block (one page where it fits): its
// capacity, the TTFT chart across the page, the throughput and ITL charts side by
// side (the throughput chart with its caption), and the step table.
func segmentSection(in *input, seg analysis.SegmentAnalysis, byName map[string]Chart) []block {
	a := in.a
	c := seg.Capacity
	rows := []core.Row{heading(segmentHeading(seg.Segment)), para(segmentCapacityText(a, seg))}
	if ev := strings.TrimSpace(c.BottleneckEvidence); ev != "" {
		rows = append(rows, para("Evidence: "+ev, props.Text{Size: 7.5, Top: 0.5, Bottom: 1, Color: colGrey}))
	}
	slug := slugify(seg.Segment)
	if !segmentSucceeded(seg) {
		rows = append(rows, para(noSuccessText+".", props.Text{Size: 9, Top: 2, Bottom: 1}))
	}
	rows = append(rows, chartRow(byName, "ttft-"+slug)...)
	ttft, ok := byName["ttft-"+slug]
	rows = appendRows(rows, captionRow(ttft, ok, pdfGrid))
	for _, b := range chartPairs(byName, "throughput-"+slug, "itl-"+slug) {
		rows = append(rows, b...)
	}
	tput, ok := byName["throughput-"+slug]
	rows = appendRows(rows, captionRow(tput, ok, pdfHalfCols))
	rows = append(rows, subheading("Steps"))
	hdr, data := stepTable(a, seg)
	rows = append(rows, table(hdr, []int{3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 2}, data)...)
	if hdr, data := telemetryTable(a, seg); hdr != nil {
		rows = append(rows, subheading(telemetryHeading))
		rows = append(rows, table(hdr, evenSizes(len(hdr)), data)...)
		if n := telemetryNote(seg); n != "" {
			rows = append(rows, tableNoteRow(n, props.Text{Size: 8, Top: 1, Color: colGrey}))
		}
	}
	return []block{rows}
}

// captionRow is chart ch's caption (Chart.Caption) in small grey type, across cols
// of the page's grid from the left (the rest blank); nil when the chart has none or
// was not drawn.
func captionRow(ch Chart, ok bool, cols int) core.Row {
	if !ok || ch.Err != nil || len(ch.PNG) == 0 || ch.Caption == "" {
		return nil
	}
	r := row.New().Add(text.NewCol(cols, ch.Caption, props.Text{Size: 7, Top: 0.5, Bottom: 1, Left: 2, Right: 2, Color: colGrey}))
	if cols < pdfGrid {
		r.Add(text.NewCol(pdfGrid-cols, "", props.Text{Size: 7}))
	}
	return r
}

// modelSection is the fitted model per segment, its fit quality, and the fit, Pareto
// and CDF charts two side by side: one block for the heading and the fit table, one
// per chart pair, one for the simulator's ground truth.
func modelSection(in *input, byName map[string]Chart) []block {
	a := in.a
	head := block{heading(headModel), para(modelIntro)}
	hdr, data := fitTable(a)
	head = append(head, table(hdr, []int{3, 4, 2, 2, 4, 2, 5, 2}, data)...)
	if !anySucceeded(a) {
		head = append(head, para(noFitChartsText, props.Text{Size: 9, Top: 2, Bottom: 1}))
	}
	names := modelChartNames(a)
	out := append([]block{head}, chartPairs(byName, names...)...)
	if gt := a.GroundTruth; len(gt) > 0 {
		b := block{subheading("Ground truth (simulator settings)"),
			para(groundTruthIntro, props.Text{Size: 8.5, Top: 1, Bottom: 1, Color: colGrey})}
		kv := kvTable(groundTruthRows(gt))
		n := min(len(kv), tableHeadRows)
		out = append(out, append(b, kv[:n]...)) // the heading keeps its first rows; the rest flows
		out = append(out, rowBlocks(kv[n:])...)
	}
	return out
}

// poorFitR2 is the R² below which the reports flag a model fit as poor.
const poorFitR2 = 0.8

// fitR2Text is a fit's R² with 3 decimals, flagged "— poor fit" below poorFitR2.
func fitR2Text(r2 float64) string {
	if q := fitQualityText(r2); q != "" {
		return num(r2, 3) + " — " + q
	}
	return num(r2, 3)
}

// fitQualityText is "poor fit" for an R² below poorFitR2, else "" (also for an
// unknown R²).
func fitQualityText(r2 float64) string {
	if finite(r2) && r2 < poorFitR2 {
		return "poor fit"
	}
	return ""
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

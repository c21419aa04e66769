package report

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"math"
	"strconv"
	"strings"

	"github.com/llmcap/llmcap/analysis"
	"github.com/llmcap/llmcap/rundir"
)

// The HTML report's template, style sheet and script, inlined into report.html so the
// file is self-contained (no fetch of any font, script or image).
//
//go:embed html/page.tmpl html/page.css html/page.js
var htmlFiles embed.FS

// htmlTemplate is the parsed page template (html/template: every value is escaped for
// its context, so plan names and notes cannot inject markup).
var htmlTemplate = template.Must(template.New("page.tmpl").ParseFS(htmlFiles, "html/page.tmpl"))

// htmlTable is a table of the HTML report: headers and rows of cells.
type htmlTable struct {
	Headers []string
	Rows    [][]htmlCell
	// Sortable tables sort by a column when its header is clicked.
	Sortable bool
}

// htmlCell is one table cell: its text and, for a number, the value a click on the
// header sorts by ("" for text).
type htmlCell struct{ Text, Sort string }

// htmlChart is one chart: its inline SVG (with hover points), or the note shown in
// its place.
type htmlChart struct {
	Name, Title string
	SVG         template.HTML
	Missing     string
	Caption     string // Chart.Caption: how to read the chart
}

// htmlSegment is one segment's results section.
type htmlSegment struct {
	ID, Heading, Capacity, Evidence, NoSuccess string
	Charts                                     []htmlChart
	Steps                                      htmlTable
	// Telemetry is the GPU and cache telemetry per step (nil without any), with its
	// heading and note.
	Telemetry                       *htmlTable
	TelemetryHeading, TelemetryNote string
}

// htmlCapture is one Nsight Systems capture shown in full.
type htmlCapture struct {
	Title, Text string
	Table       htmlTable
}

// htmlPage is everything the template shows, in the PDF's section order.
type htmlPage struct {
	Title, Run, Footer string
	CSS                template.CSS
	JS                 template.JS
	Head               map[string]string

	// The executive summary (the PDF's page 1).
	Banner, Answer, Note string
	Lines                [][2]string // label, text: analysis.Headline's plain lines
	ErrorsText           string
	Errors               *htmlTable
	PlainNumbers         []keyValue
	PlanHeading          string
	WhatIf               *htmlTable
	HeadroomText         string
	SamePriceNote        string
	WarningsLine         string

	// The Evidence section.
	EvidenceIntro, Binding, Bottleneck, Evidence, Advice string
	Labels                                               map[string]string
	KeyNumbers                                           []keyValue
	Notes, WarningScope                                  string
	Warnings                                             []string
	// DriftHeading and Drift are the output-drift section (driftParas).
	DriftHeading string
	Drift        []string
	Glossary     []keyValue

	SLA, SegmentsTable          htmlTable
	ThinkTime, Ladder, Describe string

	Segments []htmlSegment

	ModelIntro, NoFitCharts string
	Fit                     htmlTable
	ModelCharts             []htmlChart
	GroundTruthIntro        string
	GroundTruth             []keyValue

	CapacityIntro string
	SizingHeading string
	Capacity      htmlTable
	SizingNotes   []string

	KernelHeading, OthersHeading string
	Captures                     []htmlCapture
	OtherCaptures                []string

	Methodology []string

	ServerIntro  string
	ServerCharts []htmlChart

	AppendixCaption string
	Appendix        htmlTable
}

// writeHTML renders report.html to path: one self-contained file with the PDF's
// sections, the charts as inline SVG and sortable step tables.
func writeHTML(path string, in *input, charts []Chart) error {
	b, err := renderHTML(in, charts)
	if err != nil {
		return err
	}
	return rundir.WriteFileAtomic(path, b)
}

// renderHTML is report.html's bytes. Errors: a template or file-embedding failure.
func renderHTML(in *input, charts []Chart) ([]byte, error) {
	page, err := buildHTMLPage(in, charts)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := htmlTemplate.Execute(&buf, page); err != nil {
		return nil, fmt.Errorf("html template: %w", err)
	}
	return buf.Bytes(), nil
}

// buildHTMLPage fills the page from the shared section texts (section_text.go,
// summary.go, verdicts.go, kernels.go) so the HTML says what the PDF says.
func buildHTMLPage(in *input, charts []Chart) (*htmlPage, error) {
	css, js, err := htmlAssets()
	if err != nil {
		return nil, err
	}
	a := in.a
	p := &htmlPage{
		Title: title(a), Run: fmt.Sprintf("run %s · %s", a.RunID, dateText(in.date)), Footer: footerText(in),
		CSS: template.CSS(css), JS: template.JS(js),
		Head: map[string]string{"summary": headSummary, "evidence": headEvidence, "workload": headWorkload, "model": headModel, "capacity": headCapacity,
			"methodology": headMethodology, "server": headServer, "appendix": headAppendix},
	}
	fillHTMLSummary(p, a)
	fillHTMLWorkload(p, a)
	byName := htmlCharts(in, charts)
	fillHTMLSegments(p, a, byName)
	fillHTMLModel(p, a, byName)
	fillHTMLCapacity(p, a)
	fillHTMLKernels(p, a)
	p.Methodology = methodologyParas()
	for _, name := range []string{"server-queue", "server-kv"} {
		if c, ok := byName[name]; ok {
			p.ServerCharts = append(p.ServerCharts, c)
		}
	}
	if len(p.ServerCharts) > 0 {
		p.ServerIntro = serverIntro
	}
	p.AppendixCaption = appendixCaption
	p.Appendix = sortable(newHTMLTable(appendixTable(a)))
	return p, nil
}

// fillHTMLSummary fills the executive summary, as the PDF's page 1.
func fillHTMLSummary(p *htmlPage, a *analysis.Analysis) {
	p.Banner = speedUpBanner(a)
	p.Answer = a.Answer
	p.Note = a.Headline.Note
	p.Lines = headlineLines(a.Headline)
	if errorsBound(a) {
		p.ErrorsText = errorsSummaryText(a.Errors)
		if rows := errorPlainRows(a); len(rows) > 0 {
			t := newHTMLTable(errorPlainHeaders, rows)
			p.Errors = &t
		}
	}
	p.PlainNumbers = plainNumbers(a)
	if len(a.WhatIf) > 0 {
		t := sortable(newHTMLTable(whatIfRows(a)))
		p.WhatIf = &t
		p.PlanHeading = capacityPlanHeading(a)
		p.HeadroomText = analysis.HeadroomText(a.WhatIf[0].Headroom)
		p.SamePriceNote = samePriceNote(a.WhatIf)
	}
	p.WarningsLine = warningsLine(a, headEvidence+", below")
	fillHTMLEvidence(p, a)
}

// fillHTMLEvidence fills the Evidence section: the technical basis of the summary and
// the glossary (the PDF's evidenceSection).
func fillHTMLEvidence(p *htmlPage, a *analysis.Analysis) {
	c := a.Overall
	p.EvidenceIntro = evidenceIntro
	p.Labels = map[string]string{"binding": labelBinding, "advice": labelAdvice}
	p.Binding = analysis.BindingText(c)
	p.Bottleneck = evidenceVerdict(c)
	p.Evidence = strings.TrimSpace(c.BottleneckEvidence)
	p.Advice = c.Advice
	p.KeyNumbers = keyNumbers(a)
	p.Notes = strings.TrimSpace(a.Plan.Report.Notes)
	p.DriftHeading, p.Drift = driftHeading, driftParas(a)
	for _, w := range a.Warnings {
		p.Warnings = append(p.Warnings, w.Message)
	}
	p.WarningScope = warningScope(a, a.Warnings)
	p.Glossary = glossaryTerms
}

// fillHTMLWorkload fills the SLA and workload section.
func fillHTMLWorkload(p *htmlPage, a *analysis.Analysis) {
	p.SLA = newHTMLTable(slaTable(a))
	p.ThinkTime = thinkTimeText(a)
	p.SegmentsTable = newHTMLTable(segmentsTable(a))
	p.Ladder = ladderText(a)
	p.Describe = strings.TrimSpace(a.Plan.Description)
}

// fillHTMLSegments fills one results section per segment (and the mix).
func fillHTMLSegments(p *htmlPage, a *analysis.Analysis, byName map[string]htmlChart) {
	for _, seg := range allSegments(a) {
		slug := slugify(seg.Segment)
		s := htmlSegment{ID: "segment-" + slug, Heading: segmentHeading(seg.Segment), Capacity: segmentCapacityText(a, seg),
			Evidence: strings.TrimSpace(seg.Capacity.BottleneckEvidence), Steps: sortable(newHTMLTable(stepTable(a, seg)))}
		if !segmentSucceeded(seg) {
			s.NoSuccess = noSuccessText + "."
		}
		if hdr, data := telemetryTable(a, seg); hdr != nil {
			t := sortable(newHTMLTable(hdr, data))
			s.Telemetry, s.TelemetryHeading, s.TelemetryNote = &t, telemetryHeading, telemetryNote(seg)
		}
		for _, kind := range []string{"ttft", "throughput", "itl"} {
			if c, ok := byName[kind+"-"+slug]; ok {
				s.Charts = append(s.Charts, c)
			}
		}
		p.Segments = append(p.Segments, s)
	}
}

// fillHTMLModel fills the model-fit section: the fit table, the fit, Pareto and CDF
// charts, and the simulator's ground truth.
func fillHTMLModel(p *htmlPage, a *analysis.Analysis, byName map[string]htmlChart) {
	p.ModelIntro = modelIntro
	p.Fit = newHTMLTable(fitTable(a))
	if !anySucceeded(a) {
		p.NoFitCharts = noFitChartsText
	}
	names := modelChartNames(a)
	for _, n := range names {
		if c, ok := byName[n]; ok {
			p.ModelCharts = append(p.ModelCharts, c)
		}
	}
	if gt := a.GroundTruth; len(gt) > 0 {
		p.GroundTruthIntro = groundTruthIntro
		p.GroundTruth = groundTruthRows(gt)
	}
}

// fillHTMLCapacity fills the capacity section.
func fillHTMLCapacity(p *htmlPage, a *analysis.Analysis) {
	p.CapacityIntro = capacityIntro(a)
	p.Capacity = sortable(newHTMLTable(capacityTable(a)))
	if len(a.WhatIf) > 0 {
		p.SizingNotes = sizingNotes(a)
		p.SizingHeading = sizingHeading(a)
	}
}

// fillHTMLKernels fills the captured-profiles section (nothing without captures).
func fillHTMLKernels(p *htmlPage, a *analysis.Analysis) {
	if len(a.Kernels) == 0 {
		return
	}
	p.KernelHeading = profileHeading(a)
	var others int
	for _, k := range a.Kernels {
		if !shownInFull(a, k) {
			p.OtherCaptures = append(p.OtherCaptures, captureTitle(a, k)+": "+captureSummaryText(k, true))
			others++
			continue
		}
		c := htmlCapture{Title: captureTitle(a, k), Text: kneeText(k) + captureSummaryText(k, false) + " Profile: " + profileDir(k) + "."}
		if hdr, data := captureTable(k); len(data) > 0 {
			c.Table = newHTMLTable(hdr, data)
		}
		p.Captures = append(p.Captures, c)
	}
	if others > 0 {
		p.OthersHeading = othersHeading(others < len(a.Kernels))
	}
}

// newHTMLTable makes a table from headers and rows, with each number's sort key.
func newHTMLTable(headers []string, rows [][]string) htmlTable {
	t := htmlTable{Headers: headers}
	for _, r := range rows {
		cells := make([]htmlCell, len(r))
		for i, v := range r {
			cells[i] = htmlCell{Text: v, Sort: sortKey(v)}
		}
		t.Rows = append(t.Rows, cells)
	}
	return t
}

// sortable marks t sortable by its columns.
func sortable(t htmlTable) htmlTable {
	t.Sortable = true
	return t
}

// sortKey is the number a table cell shows ("1,234", "12.5%", "≥ 16 users", "$2.50",
// "412 ms"), formatted for the page's script to sort by; "" when the cell does not
// start with a number (text, "–").
func sortKey(s string) string {
	s = strings.TrimSpace(s)
	for _, p := range []string{"≥ ", "≤ ", "$"} {
		s = strings.TrimPrefix(s, p)
	}
	end := 0
	for end < len(s) && strings.ContainsRune("0123456789.,-+e", rune(s[end])) {
		end++
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(s[:end], ",", ""), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	if strings.TrimSpace(s[end:]) == "s" {
		v *= 1000 // ms() switches to seconds from 10 s
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// htmlAssets are the stylesheet and script every HTML report inlines.
func htmlAssets() (css, js []byte, err error) {
	if css, err = htmlFiles.ReadFile("html/page.css"); err != nil {
		return nil, nil, fmt.Errorf("html css: %w", err)
	}
	if js, err = htmlFiles.ReadFile("html/page.js"); err != nil {
		return nil, nil, fmt.Errorf("html script: %w", err)
	}
	return css, js, nil
}

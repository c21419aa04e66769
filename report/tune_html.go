package report

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/llmcap/llmcap/rundir"
)

// The tune report's HTML: one self-contained file with the PDF's sections (the run
// report's style sheet and script, inlined), the chart as inline SVG whose points show
// their trial on hover, one sortable table of every trial with the fail reasons whole,
// and each failed trial's server log tail.

// tuneTemplateText is the tune page's template; the tables, key-value lists and the
// chart are page.tmpl's "table", "kv" and "chart".
//
//go:embed html/tune.tmpl
var tuneTemplateText string

// tuneHTMLTemplate is the parsed tune page.
var tuneHTMLTemplate = template.Must(template.Must(template.New("tune.tmpl").Parse(tuneTemplateText)).ParseFS(htmlFiles, "html/page.tmpl"))

// tuneCSS is the tune page's style on top of page.css.
const tuneCSS = `pre.code { background: #eef0f3; padding: .6rem .8rem; border-radius: 4px; overflow-x: auto; font: .85rem/1.45 ui-monospace, "DejaVu Sans Mono", "Liberation Mono", monospace; white-space: pre-wrap; overflow-wrap: anywhere; }
pre.log { font-size: .75rem; max-height: 24rem; overflow-y: auto; }
.gain { font-size: 1.1rem; font-weight: 700; margin: .6rem 0; }
#trials td { white-space: nowrap; }
#trials td:last-child { white-space: normal; min-width: 32rem; }`

// tuneHTMLPage is everything the tune template shows.
type tuneHTMLPage struct {
	Title, Sub, Footer string
	CSS, TuneCSS       template.CSS
	JS                 template.JS
	Head               map[string]string

	Answer, Gain, Command string
	Facts                 []keyValue
	Notes                 []string

	Chart htmlChart

	TrialsIntro string
	Trials      htmlTable

	FailedIntro string
	Failed      []tuneHTMLFailed

	Plan  []keyValue
	Space *htmlTable
}

// tuneHTMLFailed is one failed trial's entry.
type tuneHTMLFailed struct {
	Trial                                   int
	Heading, Settings, Reason, Log, LogPath string
}

// writeTuneHTML renders tune-report.html to path.
func writeTuneHTML(path string, in *tuneInput, chart Chart) error {
	b, err := renderTuneHTML(in, chart)
	if err != nil {
		return fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	return rundir.WriteFileAtomic(path, b)
}

// renderTuneHTML is tune-report.html's bytes.
func renderTuneHTML(in *tuneInput, chart Chart) ([]byte, error) {
	css, js, err := htmlAssets()
	if err != nil {
		return nil, err
	}
	r := in.result
	p := &tuneHTMLPage{
		Title: tuneTitle(in), Sub: tuneDirText(in) + " · " + dateText(in.meta.StartedAt), Footer: tuneFooterText(in),
		CSS: template.CSS(css), TuneCSS: template.CSS(tuneCSS), JS: template.JS(js),
		Head: map[string]string{"summary": headTuneSummary, "front": headTuneFront, "trials": headTuneTrials,
			"failed": headTuneFailed, "search": headTunePlan},
		Answer: tuneOr(r.Answer), Gain: tuneGainSentence(in), Command: tuneCommandText(r.Command, r.Env),
		Facts: tuneSummaryFacts(in), Notes: tuneNotes(in),
		Chart:       tuneHTMLChart(in, chart),
		TrialsIntro: "One row per trial, in the order run; click a header to sort. Marks: baseline (the starting configuration), recommended, front (on the Pareto front).",
		Trials:      sortable(newHTMLTable(tuneAllColumnsTable(in))),
		Plan:        tunePlanFacts(in),
	}
	if hdr, data := tuneSpaceTable(in); len(data) > 0 {
		t := newHTMLTable(hdr, data)
		p.Space = &t
	}
	failed := tuneFailed(in)
	if len(failed) > 0 {
		p.FailedIntro = tuneFailedIntro(len(failed))
	}
	for _, t := range failed {
		p.Failed = append(p.Failed, tuneHTMLFailed{Trial: t.Trial, Heading: tuneFailedHeading(t), Settings: tuneSettingsText(in, t),
			Reason: tuneOr(t.FailReason), Log: strings.TrimRight(t.ServerLogTail, "\n"), LogPath: filepath.ToSlash(rundir.TrialDir(".", t.Trial)) + "/server.log"})
	}
	var buf bytes.Buffer
	if err := tuneHTMLTemplate.ExecuteTemplate(&buf, "tune.tmpl", p); err != nil {
		return nil, fmt.Errorf("html template: %w", err)
	}
	return buf.Bytes(), nil
}

// tuneAllColumnsTable is every trial with every column of the PDF's two tables, the
// marks in words and the fail reasons whole.
func tuneAllColumnsTable(in *tuneInput) ([]string, [][]string) {
	hdr, rows := tuneResultsTable(in, false)
	rhdr, rrows := tuneResourcesTable(in, 0)
	hdr = append(hdr, rhdr[2:]...)
	for i := range rows {
		rows[i] = append(rows[i], rrows[i][2:]...)
	}
	return hdr, rows
}

// tuneHTMLChart is the chart as inline SVG with a hover target on every trial's point,
// or its note.
func tuneHTMLChart(in *tuneInput, c Chart) htmlChart {
	hc := htmlChart{Name: c.Name, Title: chartLabel(c), Caption: c.Caption}
	if c.Err != nil || len(c.SVG) == 0 {
		hc.Missing = chartMissingText(c)
		return hc
	}
	hc.SVG = inlineSVG(c, tuneChartHits(in))
	return hc
}

// tuneChartHits places a hover target on each plotted trial, through the same plot's
// data transform as its SVG (rebuilt and laid out at the chart's size).
func tuneChartHits(in *tuneInput) (hits []hitPoint) {
	defer func() {
		if recover() != nil { // a degenerate axis: the chart stays, without hover targets
			hits = nil
		}
	}()
	d := tunePoints(in)
	p, err := tuneFrontPlot(in, d)
	if err != nil {
		return nil
	}
	c := draw.New(vgsvg.New(ChartWidth, ChartHeight))
	da := p.DataCanvas(layoutLegend(c, p).Plot) // the canvas drawChart draws the plot on
	trX, trY := p.Transforms(&da)
	_, logY := p.Y.Scale.(plot.LogScale)
	h := float64(ChartHeight.Points())
	for _, pt := range d.all {
		if logY && pt.y <= 0 {
			continue
		}
		hits = append(hits, hitPoint{x: float64(trX(pt.x).Points()), y: h - float64(trY(pt.y).Points()), tip: tuneTip(in, pt.trial)})
	}
	return hits
}

// tuneTip is a trial's hover text: "trial 7 (generation 2): users within the SLA 186,
// TTFT p95 at 32 users 412 ms; max_num_seqs 128; recommended, front".
func tuneTip(in *tuneInput, n int) string {
	t := in.trial(n)
	if t == nil {
		return fmt.Sprintf("trial %d", n)
	}
	var vals []string
	for _, o := range in.objectives {
		vals = append(vals, tuneMetricLabel(in, o.Metric)+" "+tuneObjectiveCell(t, o.Metric))
	}
	s := fmt.Sprintf("trial %d (generation %d): %s", t.Trial, t.Generation, strings.Join(vals, ", "))
	if set := tuneSettingsText(in, t); set != "" {
		s += "; " + set
	}
	if m := tuneMarks(in, t); len(m) > 0 {
		s += "; " + strings.Join(m, ", ")
	}
	return s
}

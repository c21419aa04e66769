package report

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"path/filepath"
	"strings"

	"github.com/llmcap/llmcap/compare"
	"github.com/llmcap/llmcap/rundir"
)

// The comparison's HTML: one self-contained file (the run report's style sheet and
// script inlined) with the verdict, the plan diff, the runs side by side, the sortable
// delta table (significant cells marked) and the overlaid curves as inline SVG.

//go:embed html/compare.tmpl
var compareTemplateText string

// compareHTMLTemplate is the parsed comparison page (page.tmpl's "table" and "chart").
var compareHTMLTemplate = template.Must(template.Must(template.New("compare.tmpl").Parse(compareTemplateText)).ParseFS(htmlFiles, "html/page.tmpl"))

// compareCSS is the comparison page's style on top of page.css.
const compareCSS = `#deltas td { white-space: nowrap; }`

// compareHTMLPage is everything the comparison template shows.
type compareHTMLPage struct {
	Title, Sub, Footer string
	CSS, CompareCSS    template.CSS
	JS                 template.JS
	Head               map[string]string

	Verdict, SLA, RunsLine string
	Notes                  []string
	PlanIntro, NoPlanDiff  string
	PlanDiff               *htmlTable
	Runs                   htmlTable
	DeltaIntro             string
	Deltas                 *htmlTable
	Drift                  *compareHTMLDrift
	Charts                 []htmlChart
}

// compareHTMLDrift is the page's drift section (compare.DriftSection).
type compareHTMLDrift struct {
	Intro     string
	Sentences []string
	Runs      htmlTable
	Changes   *htmlTable
}

// compareHTMLDriftOf is d as the page shows it (nil without a drift section).
func compareHTMLDriftOf(d *compare.DriftSection) *compareHTMLDrift {
	if d == nil {
		return nil
	}
	t := cmpDriftTable(d)
	out := &compareHTMLDrift{Intro: cmpDriftIntro(d), Sentences: cmpDriftSentences(d), Runs: newHTMLTable(t.head, t.rows)}
	if ct := cmpDriftChangeTable(d); len(ct.rows) > 0 {
		ht := newHTMLTable(ct.head, ct.rows)
		out.Changes = &ht
	}
	return out
}

// writeCompareHTML renders compare.html to path.
func writeCompareHTML(path string, c *compare.Comparison, charts []Chart) error {
	b, err := renderCompareHTML(c, charts)
	if err != nil {
		return fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	return rundir.WriteFileAtomic(path, b)
}

// renderCompareHTML is compare.html's bytes. Errors: a template or asset failure.
func renderCompareHTML(c *compare.Comparison, charts []Chart) ([]byte, error) {
	css, js, err := htmlAssets()
	if err != nil {
		return nil, err
	}
	p := &compareHTMLPage{
		Title: cmpTitle + ": " + strings.Join(c.Labels, " vs "), Sub: fmt.Sprintf("baseline %s · %d runs", c.Baseline, len(c.Runs)),
		Footer: "llmcap compare", CSS: template.CSS(css), CompareCSS: template.CSS(compareCSS), JS: template.JS(js),
		Head:    map[string]string{"summary": "Verdict", "plan": cmpHeadPlan, "runs": cmpHeadRuns, "deltas": cmpHeadDeltas, "drift": cmpHeadDrift, "charts": "Curves"},
		Verdict: c.Verdict.Sentence, SLA: cmpSLAText(c), RunsLine: cmpRunsLine(c), Notes: c.Notes,
		PlanIntro: cmpPlanIntro, NoPlanDiff: cmpNoPlanDiff, DeltaIntro: cmpDeltaIntro(c), Drift: compareHTMLDriftOf(c.Drift),
	}
	if t := cmpPlanTable(c); len(t.rows) > 0 {
		ht := leftAligned(newHTMLTable(t.head, t.rows))
		p.PlanDiff = &ht
	}
	rt := cmpRunsTable(c)
	p.Runs = leftAligned(newHTMLTable(rt.head, rt.rows))
	if dt := cmpDeltaTable(c); len(dt.rows) > 0 {
		ht := sortable(newHTMLTable(dt.head, dt.rows))
		p.Deltas = &ht
	}
	for _, ch := range charts {
		hc := htmlChart{Name: ch.Name, Title: ch.Title, Caption: ch.Caption}
		if ch.Err != nil || len(ch.SVG) == 0 {
			hc.Missing = chartMissingText(ch)
		} else {
			hc.SVG = inlineSVG(ch, nil)
		}
		p.Charts = append(p.Charts, hc)
	}
	var buf bytes.Buffer
	if err := compareHTMLTemplate.ExecuteTemplate(&buf, "compare.tmpl", p); err != nil {
		return nil, fmt.Errorf("html template: %w", err)
	}
	return buf.Bytes(), nil
}

// leftAligned is t with every cell aligned left: a table with a column per run and a
// row per field mixes numbers, words and "–" in one row, and right-aligning only the
// cells that start with a number would set a row's cells at different edges.
func leftAligned(t htmlTable) htmlTable {
	for _, r := range t.Rows {
		for i := range r {
			r[i].Sort = ""
		}
	}
	return t
}

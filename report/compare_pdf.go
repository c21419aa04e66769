package report

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/johnfercher/maroto/v2/pkg/components/col"
	"github.com/johnfercher/maroto/v2/pkg/components/page"
	"github.com/johnfercher/maroto/v2/pkg/components/row"
	"github.com/johnfercher/maroto/v2/pkg/components/text"
	"github.com/johnfercher/maroto/v2/pkg/consts/align"
	"github.com/johnfercher/maroto/v2/pkg/consts/border"
	"github.com/johnfercher/maroto/v2/pkg/consts/fontstyle"
	"github.com/johnfercher/maroto/v2/pkg/core"
	"github.com/johnfercher/maroto/v2/pkg/props"

	"github.com/llmcap/llmcap/compare"
	"github.com/llmcap/llmcap/rundir"
)

// The comparison's PDF (compare.pdf), laid out like the run report's (pdf.go,
// pdf_layout.go): page 1 for a manager (the verdict large, the SLA, what differs, the
// capacity table, the notes); then the delta table, one table per later run against
// the baseline, its rows flowing across pages under a repeated header; the drift
// section; and the overlaid curves, two to a row.

const cmpHeadCharts = "Curves"

// writeComparePDF renders compare.pdf to path. Errors: a font that does not load, a
// document that does not generate, or the file (naming it).
func writeComparePDF(path string, c *compare.Comparison, charts []Chart) error {
	m, err := buildComparePDF(c, charts)
	if err != nil {
		return err
	}
	doc, err := m.Generate()
	if err != nil {
		return fmt.Errorf("generate %s: %w", filepath.Base(path), err)
	}
	return rundir.WriteFileAtomic(path, doc.GetBytes())
}

// buildComparePDF lays out the whole document (not yet generated).
func buildComparePDF(c *compare.Comparison, charts []Chart) (core.Maroto, error) {
	m, err := newPDFDoc(pdfDocInfo{title: cmpPDFTitle(c), creator: "llmcap compare", subject: "Comparison of runs " + strings.Join(c.Labels, ", ")})
	if err != nil {
		return nil, err
	}
	g := &gauge{Row: row.New(pdfHeaderGap), cfg: m.GetCurrentConfig(), headerH: pdfHeaderH + pdfHeaderGap}
	if err := m.RegisterHeader(cmpPDFHeader(c), g); err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	if err := m.RegisterFooter(row.New(pdfFooterH).Add(
		text.NewCol(18, "llmcap compare · made from the runs' run.json, records.jsonl, analysis and drift.jsonl", props.Text{Size: 7, Top: 2, Color: colGrey}),
		col.New(6))); err != nil {
		return nil, fmt.Errorf("footer: %w", err)
	}
	byName := map[string]Chart{}
	for _, ch := range charts {
		byName[ch.Name] = ch
	}
	flow(m, false, cmpSummaryPage(c))
	m.AddPages(page.New())
	place(m, g, cmpDeltaSection(c))
	place(m, g, cmpDriftPDFSection(c.Drift))
	place(m, g, cmpChartSection(c, byName))
	return m, nil
}

// cmpPDFTitle is the document's title: "Comparison: 32 vs 128".
func cmpPDFTitle(c *compare.Comparison) string {
	return cmpTitle + ": " + strings.Join(c.Labels, " vs ")
}

// cmpPDFHeader is the header on every page: the title left, the baseline right.
func cmpPDFHeader(c *compare.Comparison) core.Row {
	return row.New(pdfHeaderH).Add(
		text.NewCol(16, clipRunes(cmpPDFTitle(c), 80), props.Text{Size: 8.5, Style: fontstyle.Bold, Top: 1}),
		text.NewCol(8, fmt.Sprintf("baseline %s · %d runs", clipRunes(c.Baseline, 30), len(c.Runs)), props.Text{Size: 7, Align: align.Right, Top: 1, Color: colGrey}),
	).WithStyle(&props.Cell{BorderType: border.Bottom, BorderColor: colGrey, BorderThickness: 0.2})
}

// cmpSummaryPage is page 1: the verdict large on its box, the SLA and the runs, what
// differs, the capacity table and the notes.
func cmpSummaryPage(c *compare.Comparison) []core.Row {
	rows := []core.Row{heading("Verdict"),
		boxed(c.Verdict.Sentence, colAnswerBG, props.Text{Size: 14, Style: fontstyle.Bold}),
		para(cmpSLAText(c), props.Text{Size: 9.5, Top: 3, Bottom: 0.5}),
		para(cmpRunsLine(c), props.Text{Size: 8, Top: 0.5, Bottom: 1, Color: colGrey}),
		heading(cmpHeadPlan)}
	if len(c.PlanDiff) == 0 {
		rows = append(rows, para(cmpNoPlanDiff))
	} else {
		rows = append(rows, para(cmpPlanIntro, props.Text{Size: 8, Top: 0.5, Bottom: 1, Color: colGrey}))
		rows = append(rows, cmpPDFTable(cmpPlanTable(c), 8)...)
	}
	rows = append(rows, heading(cmpHeadRuns))
	rows = append(rows, cmpPDFTable(cmpRunsTable(c), 6)...)
	for _, n := range c.Notes {
		rows = append(rows, row.New(1.5), boxed("⚠ "+n, colWarnBG, props.Text{Size: 8.5}))
	}
	return rows
}

// cmpPDFTable is a table whose first column is first grid columns wide (at least a
// third of what is left to each other column) and the others share the rest.
func cmpPDFTable(t cmpTable, first int) []core.Row {
	n := len(t.head) - 1
	each := max(1, (pdfGrid-first)/max(1, n))
	sizes := []int{pdfGrid - each*n}
	for range n {
		sizes = append(sizes, each)
	}
	return table(t.head, sizes, t.rows)
}

// cmpDeltaSizes are the grid widths of cmpDeltaPairTable's columns.
var cmpDeltaSizes = []int{3, 2, 3, 2, 2, 2, 3, 4, 3}

// cmpDeltaSection is the delta table, one table per later run against the baseline:
// each table's header keeps its first rows with the heading above it; the rest flows
// across pages under a repeated header.
func cmpDeltaSection(c *compare.Comparison) []block {
	out := []block{{heading(cmpHeadDeltas), para(cmpDeltaIntro(c), props.Text{Size: 8, Top: 0.5, Bottom: 1, Color: colGrey})}}
	if len(c.Deltas) == 0 {
		return append(out, block{para("No load was measured by every run: nothing to compare at the same load.")})
	}
	for i := 1; i < len(c.Labels); i++ {
		t := cmpDeltaPairTable(c, i)
		head, tail := tableSplit(table(t.head, cmpDeltaSizes, t.rows))
		out = append(out, append(block{subheading(c.Labels[i] + " against " + c.Baseline)}, head...), tail)
	}
	return out
}

// cmpDriftPDFSection is the drift section: the findings (a run whose own repeats
// changed on a warning box), the runs' table and the outputs that differed; nothing
// without a drift section.
func cmpDriftPDFSection(d *compare.DriftSection) []block {
	if d == nil {
		return nil
	}
	b := block{heading(cmpHeadDrift), para(cmpDriftIntro(d), props.Text{Size: 8, Top: 0.5, Bottom: 1, Color: colGrey})}
	for _, s := range cmpDriftSentences(d) {
		if strings.HasPrefix(s, "Temperature 0 was not deterministic") {
			b = append(b, row.New(1.5), boxed("⚠ "+s, colWarnBG, props.Text{Size: 9}))
		} else {
			b = append(b, para(s, props.Text{Size: 9.5, Style: fontstyle.Bold, Top: 1, Bottom: 1}))
		}
	}
	t := cmpDriftTable(d)
	out := []block{append(b, table(t.head, []int{3, 4, 9, 8}, t.rows)...)}
	if ct := cmpDriftChangeTable(d); len(ct.rows) > 0 {
		head, tail := tableSplit(table(ct.head, []int{3, 2, 3, 8, 8}, ct.rows))
		out = append(out, append(block{subheading("Outputs that differed from " + d.Reference + "'s")}, head...), tail)
	}
	return out
}

// cmpChartSection is the overlaid curves, per segment two charts to a row (the
// compact PNG where it was drawn), each segment under its subheading.
func cmpChartSection(c *compare.Comparison, byName map[string]Chart) []block {
	if len(c.Curves) == 0 {
		return nil
	}
	var out []block
	for _, sc := range c.Curves {
		var names []string
		for _, k := range compareChartKinds {
			names = append(names, "compare-"+k.kind+"-"+slugify(sc.Segment))
		}
		pairs := chartPairs(byName, names...)
		if len(pairs) == 0 {
			continue
		}
		first := block{subheading("Segment " + sc.Segment)}
		if len(out) == 0 { // the heading stays with the first charts
			first = append(block{heading(cmpHeadCharts)}, first...)
		}
		pairs[0] = append(first, pairs[0]...)
		out = append(out, pairs...)
	}
	return out
}

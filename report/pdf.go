package report

import (
	_ "embed"
	"fmt"
	"math"
	"strings"
	"time"

	"codeberg.org/go-fonts/liberation/liberationmonoregular"
	"github.com/johnfercher/maroto/v2"
	"github.com/johnfercher/maroto/v2/pkg/components/col"
	"github.com/johnfercher/maroto/v2/pkg/components/page"
	"github.com/johnfercher/maroto/v2/pkg/components/row"
	"github.com/johnfercher/maroto/v2/pkg/components/text"
	"github.com/johnfercher/maroto/v2/pkg/config"
	"github.com/johnfercher/maroto/v2/pkg/consts/align"
	"github.com/johnfercher/maroto/v2/pkg/consts/border"
	"github.com/johnfercher/maroto/v2/pkg/consts/fontstyle"
	"github.com/johnfercher/maroto/v2/pkg/consts/orientation"
	"github.com/johnfercher/maroto/v2/pkg/consts/pagesize"
	"github.com/johnfercher/maroto/v2/pkg/core"
	"github.com/johnfercher/maroto/v2/pkg/core/entity"
	"github.com/johnfercher/maroto/v2/pkg/props"
	"github.com/johnfercher/maroto/v2/pkg/repository"
	"github.com/llmcap/llmcap/rundir"
)

// The embedded UTF-8 fonts (DejaVu Sans, see fonts/LICENSE): the built-in PDF fonts
// are cp1252 only, so ≤ ≥ μ → ✓ would print as garbage.
var (
	//go:embed fonts/DejaVuSans.ttf
	fontRegular []byte
	//go:embed fonts/DejaVuSans-Bold.ttf
	fontBold []byte
)

// PDF page layout, in millimetres (A4 portrait; 24-column grid).
const (
	pdfFamily     = "dejavu"
	pdfMargin     = 15.0
	pdfGrid       = 24
	pdfHeaderH    = 11.0
	pdfHeaderGap  = 3.0 // keeps the first row's opaque chart off the header's rule
	pdfFooterH    = 7.0
	pdfChartH     = 84.0 // ChartWidth×ChartHeight is 170×85 mm; the usable width is 180 mm
	pdfRowH       = 5.0
	pdfMaxTextLen = 1500 // one paragraph; longer text is cut so a row never exceeds a page
)

var (
	colHeaderBG = &props.Color{Red: 221, Green: 235, Blue: 247}
	colZebra    = &props.Color{Red: 245, Green: 245, Blue: 245}
	colAnswerBG = &props.Color{Red: 232, Green: 245, Blue: 233}
	colWarnBG   = &props.Color{Red: 255, Green: 243, Blue: 224}
	colGrey     = &props.Color{Red: 90, Green: 90, Blue: 90}
)

// writePDF renders the PDF report to path.
func writePDF(path string, in *input, charts []Chart) error {
	m, err := buildPDF(in, charts)
	if err != nil {
		return err
	}
	doc, err := m.Generate()
	if err != nil {
		return fmt.Errorf("generate: %w", err)
	}
	return rundir.WriteFileAtomic(path, doc.GetBytes())
}

// buildPDF lays out the whole document (not yet generated: GetStructure or Generate).
func buildPDF(in *input, charts []Chart) (core.Maroto, error) {
	a := in.a
	m, err := newPDFDoc(pdfDocInfo{title: title(a), creator: toolText(a), subject: "Capacity report for run " + a.RunID, date: in.date})
	if err != nil {
		return nil, err
	}
	g := &gauge{Row: row.New(pdfHeaderGap), cfg: m.GetCurrentConfig(), headerH: pdfHeaderH + pdfHeaderGap}
	if err := m.RegisterHeader(pdfHeader(in), g); err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	if err := m.RegisterFooter(pdfFooter(in)); err != nil {
		return nil, fmt.Errorf("footer: %w", err)
	}
	byName := map[string]Chart{}
	for _, c := range charts {
		byName[c.Name] = c
	}
	flow(m, false, summaryPage(in))
	evidencePages(m, g, in, byName)
	return m, nil
}

// evidencePages lays out everything after page 1: the SLA and workload with the
// capacity and sizing, each segment's results, the model, profiles, methodology,
// server metrics and the appendix. Each section's blocks continue the page where
// they fit it (no half-empty pages); a segment's results are one block, so
// they start a page of their own unless they fit the rest of the current one.
func evidencePages(m core.Maroto, g *gauge, in *input, byName map[string]Chart) {
	a := in.a
	m.AddPages(page.New())
	place(m, g, rowBlocks(evidenceSection(in))) // often taller than a page (every warning): it breaks between rows
	place(m, g, workloadSection(in))
	place(m, g, capacitySection(in))
	for _, seg := range allSegments(a) {
		place(m, g, segmentSection(in, seg, byName))
	}
	place(m, g, modelSection(in, byName))
	if len(a.Kernels) > 0 {
		place(m, g, kernelSection(in))
	}
	place(m, g, methodologySection(in))
	place(m, g, serverSection(byName))
	place(m, g, appendixSection(in))
}

// rowBlocks makes each row its own block, for a section that may break between any
// two rows.
func rowBlocks(rows []core.Row) []block {
	out := make([]block, len(rows))
	for i, r := range rows {
		out[i] = block{r}
	}
	return out
}

// pdfHeader is the header on every page: the title left, run id and date right.
func pdfHeader(in *input) core.Row {
	return row.New(pdfHeaderH).Add(
		text.NewCol(16, clipRunes(title(in.a), 80), props.Text{Size: 8.5, Style: fontstyle.Bold, Top: 1}),
		text.NewCol(8, fmt.Sprintf("run %s · %s", in.a.RunID, dateText(in.date)), props.Text{Size: 7, Align: align.Right, Top: 1, Color: colGrey}),
	).WithStyle(&props.Cell{BorderType: border.Bottom, BorderColor: colGrey, BorderThickness: 0.2})
}

// pdfFooter is the footer on every page.
func pdfFooter(in *input) core.Row {
	return row.New(pdfFooterH).Add(
		text.NewCol(18, footerText(in), props.Text{Size: 7, Top: 2, Color: colGrey}),
		col.New(6),
	)
}

// dateText formats the run date, or "date unknown".
func dateText(t time.Time) string {
	if t.IsZero() {
		return "date unknown"
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

// clipText cuts a paragraph to pdfMaxTextLen runes so its auto row fits a page.
func clipText(s string) string {
	r := []rune(s)
	if len(r) > pdfMaxTextLen {
		s = string(r[:pdfMaxTextLen]) + "…"
	}
	return breakLongWords(s, pdfMaxWordLen)
}

// pdfMaxWordLen is the longest run of characters without a space that the PDF prints
// as one word: maroto wraps lines only at spaces, so a longer word (a long model
// name, a URL) would run past the right margin and be cut off.
const pdfMaxWordLen = 48

// breakLongWords inserts a space into every word of s longer than n runes: after the
// last '/', '-', '_', '.' or ':' within its first n runes, else after n runes.
func breakLongWords(s string, n int) string {
	words := strings.Split(s, " ")
	for i, w := range words {
		r := []rune(w)
		var b strings.Builder
		for len(r) > n {
			cut := n
			for j := n - 1; j > n/2; j-- {
				if strings.ContainsRune("/-_.:", r[j]) {
					cut = j + 1
					break
				}
			}
			b.WriteString(string(r[:cut]) + " ")
			r = r[cut:]
		}
		if b.Len() > 0 {
			b.WriteString(string(r))
			words[i] = b.String()
		}
	}
	return strings.Join(words, " ")
}

// heading is a section heading row.
func heading(s string) core.Row {
	return text.NewRow(10, s, props.Text{Size: 13, Style: fontstyle.Bold, Top: 3})
}

// subheading is a sub-section heading row.
func subheading(s string) core.Row {
	return text.NewRow(8, s, props.Text{Size: 10.5, Style: fontstyle.Bold, Top: 2.5})
}

// para is a wrapped paragraph (auto height).
func para(s string, ps ...props.Text) core.Row {
	p := props.Text{Size: 9, Top: 1, Bottom: 1}
	if len(ps) > 0 {
		p = ps[0]
	}
	return text.NewAutoRow(clipText(s), p)
}

// boxed is a paragraph on a coloured background.
func boxed(s string, bg *props.Color, ps props.Text) core.Row {
	ps.Left, ps.Right, ps.Top, ps.Bottom = 2, 2, 2, 2
	return row.New().Add(text.NewCol(pdfGrid, clipText(s), ps)).WithStyle(&props.Cell{BackgroundColor: bg})
}

// appendRows appends the non-nil rows.
func appendRows(dst []core.Row, rows ...core.Row) []core.Row {
	for _, r := range rows {
		if r != nil {
			dst = append(dst, r)
		}
	}
	return dst
}

// table builds a header row and zebra data rows; sizes are grid columns (sum ≤ 24).
// Numeric columns (all but the first) are right-aligned.
func table(headers []string, sizes []int, rows [][]string) []core.Row {
	right := numericColumns(len(sizes), rows)
	hdr := tableRow(headers, sizes, right, true).WithStyle(&props.Cell{BackgroundColor: colHeaderBG})
	out := []core.Row{&tableHead{Row: hdr}}
	for i, r := range rows {
		tr := tableRow(r, sizes, right, false)
		if i%2 == 1 {
			tr = tr.WithStyle(&props.Cell{BackgroundColor: colZebra})
		}
		out = append(out, &tableData{Row: tr, head: hdr})
	}
	return out
}

// tableHead marks a table's header row, and tableData a data row (at most pdfRowH
// high unless a cell wraps) with its table's header, for flow.
type (
	tableHead struct{ core.Row }
	tableData struct {
		core.Row
		head core.Row
	}
)

// flow adds rows to the document, first starting a new page when newPage. Tables
// break across pages cleanly: a header row that would end a page with fewer than two
// data rows under it moves to the next page, and a data row that does not fit starts
// a new page under a repeat of its table's header.
func flow(m core.Maroto, newPage bool, rows []core.Row) {
	if newPage {
		m.AddPages(page.New())
	}
	flowFit(m, rows, m.FitlnCurrentPage, nil)
}

// flowFit is flow with fits telling whether h mm more fit on the current page. With
// height (a row's laid-out height in mm), any other row that does not fit starts a
// new page too, before maroto would: fits keeps a slack (pdfPageSlack) that maroto's
// own exact fit does not, and a page filled to its last fraction of a millimetre can
// overflow when drawn, which makes the PDF library break the page itself and shifts
// every later page against its header, footer and backgrounds.
func flowFit(m core.Maroto, rows []core.Row, fits func(h float64) bool, height func(core.Row) float64) {
	for i, r := range rows {
		if n, ok := r.(tableNote); ok {
			r = n.Row
		}
		switch r := r.(type) {
		case *tableHead:
			if !fits(4 * pdfRowH) {
				m.AddPages(page.New())
			}
		case *tableData:
			need := pdfRowH
			if note, ok := nextRow(rows, i).(tableNote); ok && height != nil {
				need += height(note) // the last row keeps its note with it
			}
			if !fits(need) {
				m.AddPages(page.New())
				m.AddRows(onGrid(r.head))
			}
		default:
			if height != nil && !fits(height(r)) {
				m.AddPages(page.New())
			}
		}
		m.AddRows(onGrid(r))
	}
}

// tableNote is the note under a table (tableNoteRow): flowFit keeps it on the page of
// the table's last row, moving that row over with it (under a repeated header) when
// the two do not fit the rest of the page.
type tableNote struct{ core.Row }

// tableNoteRow is text s as the note under the table it follows.
func tableNoteRow(s string, p props.Text) core.Row { return tableNote{para(s, p)} }

// nextRow is the row after rows[i] (nil after the last).
func nextRow(rows []core.Row, i int) core.Row {
	if i+1 < len(rows) {
		return rows[i+1]
	}
	return nil
}

// gridRow is a row whose height is rounded up to a multiple of pdfHeightGrid mm.
// maroto fills each page to exactly its height and lets the PDF library break the
// page at the next row; row heights such as 4.4 mm or 7 pt text lines sum with
// rounding errors, and a page summing a fraction of a nanometre over its height
// breaks early, at its footer, which then lands on a page of its own and shifts
// every later page against its header, footer and cell backgrounds. Heights that
// are multiples of a power of two sum exactly.
type gridRow struct{ core.Row }

// pdfHeightGrid is the height grid in mm (2⁻⁶: sums of multiples are exact).
const pdfHeightGrid = 1.0 / 64

// onGrid wraps r as a gridRow.
func onGrid(r core.Row) core.Row { return gridRow{r} }

// GetHeight is the wrapped row's height rounded up to the grid.
func (g gridRow) GetHeight(p core.Provider, c *entity.Cell) float64 {
	return math.Ceil(g.Row.GetHeight(p, c)/pdfHeightGrid) * pdfHeightGrid
}

// Render draws the wrapped row, then moves down by the rest of its gridded height.
func (g gridRow) Render(p core.Provider, c entity.Cell) {
	h := g.Row.GetHeight(p, &c)
	g.Row.Render(p, c)
	if rest := g.GetHeight(p, &c) - h; rest > 0 {
		p.CreateRow(rest)
	}
}

// tableRow is one table row, as tall as its tallest (wrapped) cell.
func tableRow(cells []string, sizes []int, right []bool, header bool) core.Row {
	return row.New().Add(tableCols(cells, sizes, right, header)...)
}

// numericColumns reports, for each of n columns, whether it is numeric: not the first,
// and every non-empty cell of rows in it starts like a number ("186", "$2.50",
// "≥ 16 users", "–", "✓"). Numeric columns are right-aligned, text columns left.
func numericColumns(n int, rows [][]string) []bool {
	out := make([]bool, n)
	for i := 1; i < n; i++ {
		out[i] = true
		for _, r := range rows {
			if i < len(r) && r[i] != "" && !strings.ContainsRune("0123456789+-−.$≥≤<>~–—✓✗", []rune(r[i])[0]) {
				out[i] = false
				break
			}
		}
	}
	return out
}

// tableCols are a table row's cells; numeric columns (right) right-aligned. Every cell
// keeps 1 mm under its last line, so descenders (g, p, y) are not painted over by the
// next row's background.
func tableCols(cells []string, sizes []int, right []bool, header bool) []core.Col {
	cols := make([]core.Col, 0, len(sizes))
	for i, size := range sizes {
		v := ""
		if i < len(cells) {
			v = cells[i]
		}
		p := props.Text{Size: 7, Top: 0.9, Bottom: 1, Left: 0.8, Right: 0.8}
		if i < len(right) && right[i] {
			p.Align = align.Right
		}
		if header {
			p.Style = fontstyle.Bold
		}
		cols = append(cols, text.NewCol(size, v, p))
	}
	return cols
}

// kvTable is a two-column label/value table.
func kvTable(kvs []keyValue) []core.Row {
	var out []core.Row
	for i, kv := range kvs {
		r := row.New().Add(
			text.NewCol(9, kv.Key, props.Text{Size: 8.5, Style: fontstyle.Bold, Top: 1, Bottom: 1, Left: 1}),
			text.NewCol(15, kv.Value, props.Text{Size: 8.5, Top: 1, Bottom: 1}),
		)
		if i%2 == 0 {
			r = r.WithStyle(&props.Cell{BackgroundColor: colZebra})
		}
		out = append(out, r)
	}
	return out
}

// pdfDocInfo is a report PDF's metadata.
type pdfDocInfo struct {
	title, creator, subject string
	date                    time.Time // zero: the Unix epoch (reproducible bytes)
	mono                    bool      // also load the monospace family (pdfMonoFamily)
}

// newPDFDoc is an empty report PDF: A4 portrait, the report's margins, grid, fonts,
// page numbers and metadata, in sequential mode. Errors: a font that does not load.
func newPDFDoc(info pdfDocInfo) (core.Maroto, error) {
	repo := repository.New().
		AddUTF8FontFromBytes(pdfFamily, fontstyle.Normal, fontRegular).
		AddUTF8FontFromBytes(pdfFamily, fontstyle.Bold, fontBold)
	if info.mono {
		repo = repo.AddUTF8FontFromBytes(pdfMonoFamily, fontstyle.Normal, liberationmonoregular.TTF)
	}
	fonts, err := repo.Load()
	if err != nil {
		return nil, fmt.Errorf("load fonts: %w", err)
	}
	date := info.date
	if date.IsZero() {
		date = time.Unix(0, 0).UTC()
	}
	cfg := config.NewBuilder().
		WithPageSize(pagesize.A4).WithOrientation(orientation.Vertical).
		WithLeftMargin(pdfMargin).WithTopMargin(pdfMargin).WithRightMargin(pdfMargin).WithBottomMargin(pdfMargin).
		WithMaxGridSize(pdfGrid).
		WithCustomFonts(fonts).WithDefaultFont(&props.Font{Family: pdfFamily, Size: 9}).
		WithPageNumber(props.PageNumber{Pattern: "Page {current} of {total}", Place: props.RightBottom, Family: pdfFamily, Size: 7, Color: colGrey}).
		WithTitle(info.title, true).WithAuthor("llmcap", true).WithCreator(info.creator, true).
		WithSubject(info.subject, true).WithCreationDate(date).
		WithSequentialMode().
		Build()
	return maroto.New(cfg), nil
}

package report

import (
	"github.com/johnfercher/maroto/v2/pkg/components/col"
	"github.com/johnfercher/maroto/v2/pkg/components/image"
	"github.com/johnfercher/maroto/v2/pkg/components/page"
	"github.com/johnfercher/maroto/v2/pkg/components/row"
	"github.com/johnfercher/maroto/v2/pkg/components/text"
	"github.com/johnfercher/maroto/v2/pkg/consts/extension"
	"github.com/johnfercher/maroto/v2/pkg/core"
	"github.com/johnfercher/maroto/v2/pkg/core/entity"
	"github.com/johnfercher/maroto/v2/pkg/props"
)

// Chart placement, in millimetres. A chart is rendered at ChartWidth×ChartHeight
// (170×85 mm, 2:1) and scaled into its cell keeping that aspect: pdfChartH fills the
// 180 mm usable width; pdfHalfChartH half of it (two charts side by side), drawn from
// the compact HalfChartWidth×HalfChartHeight rendering (110×55 mm, also 2:1).
const (
	pdfHalfChartH = 44.0
	pdfChartGap   = 4.0 // above every chart row: a chart's title never touches the axis label above it
	pdfHalfCols   = pdfGrid / 2
)

// block is rows that stay on one page where they fit one: a heading with what
// follows it, a chart row with its caption, a short table.
type block []core.Row

// gauge measures rows as the document will lay them out: it wraps a header row and
// keeps the provider and page cell maroto sizes that row with (RegisterHeader sizes
// the header before any content is added).
type gauge struct {
	core.Row
	provider core.Provider
	cell     entity.Cell
	cfg      *entity.Config
	headerH  float64 // the header's height in mm, counted twice by maroto's FitlnCurrentPage
}

// GetHeight records the provider and cell, then returns the wrapped row's height.
func (g *gauge) GetHeight(p core.Provider, c *entity.Cell) float64 {
	g.provider, g.cell = p, *c
	return g.Row.GetHeight(p, c)
}

// height is rows' total height in mm as maroto will lay them out (0 before the gauge
// has seen the provider).
func (g *gauge) height(rows []core.Row) float64 {
	if g == nil || g.provider == nil {
		return 0
	}
	var h float64
	for _, r := range rows {
		r.SetConfig(g.cfg)
		h += r.GetHeight(g.provider, &g.cell)
	}
	return h
}

// fits reports whether h mm more fit on the current page. maroto's FitlnCurrentPage
// adds the header's height to rows that already hold the header, so it is asked for
// h less the header.
func (g *gauge) fits(m core.Maroto, h float64) bool {
	return m.FitlnCurrentPage(h - g.headerH + pdfPageSlack)
}

// pdfPageSlack is the space in mm that placement leaves free at a page's foot:
// rows measured to fill a page exactly can draw a fraction of a millimetre taller.
const pdfPageSlack = 2.0

// rowHeight is one row's laid-out height in mm (see height).
func (g *gauge) rowHeight(r core.Row) float64 { return g.height([]core.Row{r}) }

// pageContentH is the height in mm a page holds between its header and its footer.
func (g *gauge) pageContentH() float64 {
	return g.cell.Height - g.headerH - pdfFooterH
}

// place adds blocks to the document: a block that does not fit the rest of the page
// starts a new one (a block taller than a page starts a page and breaks where it
// must, its tables under repeated headers: see flow). A block that starts with a
// table's data row (tableSplit's tail) continues the table of the block before it
// and flows from where that one ends; the two move to a new page together when
// they fit one page but not the rest of this one.
func place(m core.Maroto, g *gauge, blocks []block) {
	for i, b := range blocks {
		fits := func(h float64) bool { return g.fits(m, h) }
		if len(b) == 0 || isTail(b) {
			flowFit(m, b, fits, g.rowHeight)
			continue
		}
		h := g.height(b)
		if i+1 < len(blocks) && isTail(blocks[i+1]) {
			if whole := h + g.height(blocks[i+1]); whole < g.pageContentH()-1 {
				h = whole
			}
		}
		if !g.fits(m, min(h, g.pageContentH()-1)) {
			m.AddPages(page.New())
		}
		flowFit(m, b, fits, g.rowHeight)
	}
}

// isTail reports whether b continues a table (starts with a data row).
func isTail(b block) bool {
	if len(b) == 0 {
		return false
	}
	_, ok := b[0].(*tableData)
	return ok
}

// chartGap is the blank row above a chart row.
func chartGap() core.Row { return row.New(pdfChartGap) }

// chartCol is chart name as a column of size grid columns, or its one-line note when
// the chart is unavailable; nil when the run has no such chart.
func chartCol(byName map[string]Chart, name string, size int) core.Col {
	c, ok := byName[name]
	if !ok {
		return nil
	}
	if c.Err != nil || len(c.PNG) == 0 {
		return text.NewCol(size, chartMissingText(c), props.Text{Size: 8, Top: 2, Bottom: 1, Left: 1, Right: 1, Color: colGrey})
	}
	return image.NewFromBytesCol(size, halfPNG(c), extension.Png, props.Rect{Center: true, Percent: 100})
}

// halfPNG is the PNG of chart c for a half-width cell: the compact rendering
// (Chart.PNGHalf), whose text prints legibly there, else the full-size one.
func halfPNG(c Chart) []byte {
	if len(c.PNGHalf) > 0 {
		return c.PNGHalf
	}
	return c.PNG
}

// chartRow is a chart across the page under a gap, or a one-line note when the chart
// is unavailable; nil when the run has no such chart.
func chartRow(byName map[string]Chart, name string) []core.Row {
	c, ok := byName[name]
	if !ok {
		return nil
	}
	if c.Err != nil || len(c.PNG) == 0 {
		return []core.Row{para(chartMissingText(c), props.Text{Size: 8, Top: 1, Bottom: 1, Color: colGrey})}
	}
	return []core.Row{chartGap(), image.NewFromBytesRow(pdfChartH, c.PNG, extension.Png, props.Rect{Center: true, Percent: 100})}
}

// chartPairs lays out the named charts that were drawn two side by side, each pair
// under a gap, as one block per pair, then the notes of the unavailable ones (charts
// the run does not have are skipped).
func chartPairs(byName map[string]Chart, names ...string) []block {
	var cols []core.Col
	var notes block
	for _, n := range names {
		c, ok := byName[n]
		switch {
		case !ok:
		case c.Err != nil || len(c.PNG) == 0:
			notes = append(notes, chartRow(byName, n)...)
		default:
			cols = append(cols, chartCol(byName, n, pdfHalfCols))
		}
	}
	var out []block
	for i := 0; i < len(cols); i += 2 {
		pair := cols[i:min(i+2, len(cols))]
		if len(pair) == 1 {
			pair = append(pair, col.New(pdfHalfCols))
		}
		out = append(out, block{chartGap(), row.New(pdfHalfChartH).Add(pair...)})
	}
	if len(notes) > 0 {
		out = append(out, notes)
	}
	return out
}

// tableHeadRows is how many data rows stay with a table's header and the block
// above it (tableSplit).
const tableHeadRows = 3

// tableSplit cuts a table (table's rows) into its header with its first data rows,
// to keep with what precedes it, and the rest, a block that flows across pages.
func tableSplit(rows []core.Row) (head, tail []core.Row) {
	n := min(len(rows), 1+tableHeadRows)
	return rows[:n], rows[n:]
}

// rowsOf is blocks' rows in order.
func rowsOf(bs []block) []core.Row {
	var out []core.Row
	for _, b := range bs {
		out = append(out, b...)
	}
	return out
}

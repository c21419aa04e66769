package report

import (
	"math"
	"strings"
	"testing"
)

// fxPDFTree lays out the fixture's PDF (placeholder charts) and returns its tree.
func fxPDFTree(t *testing.T) *structNode {
	t.Helper()
	a := fxAnalysis()
	in, err := loadInput(fxWriteRunDir(t, a, 10), a)
	if err != nil {
		t.Fatal(err)
	}
	m, err := buildPDF(in, placeholderCharts(t, in))
	if err != nil {
		t.Fatal(err)
	}
	return toStructNode(m.GetStructure())
}

// detail is a numeric detail of a structure node (0 when absent).
func detail(n *structNode, key string) float64 {
	v, _ := n.Details[key].(float64)
	return v
}

// rowHeight is a row's laid-out height in mm.
func rowHeight(r *structNode) float64 {
	v, _ := r.Value.(float64)
	return v
}

// texts are the text nodes under n.
func texts(n *structNode) []*structNode {
	if n.Type == "text" {
		return []*structNode{n}
	}
	var out []*structNode
	for _, c := range n.Nodes {
		out = append(out, texts(c)...)
	}
	return out
}

// descenderRoom is the least room in mm under a text's last baseline in a row of
// height rowH. maroto puts line k's baseline at Top + k·fontHeight and sizes an auto
// row to Top + lines·fontHeight + Bottom, so the text has at most
// ⌊(rowH − Top − Bottom)/fontHeight⌋ lines; the room is what the row leaves under them.
func descenderRoom(txt *structNode, rowH float64) (room, descent float64) {
	fh := detail(txt, "prop_font_size") * 25.4 / 72 // pt → mm, maroto's font height
	top, bottom := detail(txt, "prop_top"), detail(txt, "prop_bottom")
	lines := math.Max(1, math.Floor((rowH-top-bottom)/fh+1e-6))
	return rowH - top - lines*fh, 0.24 * fh // DejaVu Sans descends 0.236 em
}

// TestPDFRowsKeepDescenders checks every row followed by a row with a background
// (table zebra and header rows, boxes): its texts keep room for descenders under
// their last line, which the next row's background would paint over ("lonq" for
// "long" in the model-fit table).
func TestPDFRowsKeepDescenders(t *testing.T) {
	checked := 0
	for pi, p := range fxPDFTree(t).Nodes {
		for ri := 0; ri+1 < len(p.Nodes); ri++ {
			r, next := p.Nodes[ri], p.Nodes[ri+1]
			if _, bg := next.Details["prop_background_color"]; !bg {
				continue
			}
			for _, txt := range texts(r) {
				s, _ := txt.Value.(string)
				if strings.TrimSpace(s) == "" {
					continue
				}
				checked++
				if room, descent := descenderRoom(txt, rowHeight(r)); room < descent-1e-9 {
					t.Errorf("page %d row %d (%.2f mm): %q has %.2f mm under its last line, descenders need %.2f", pi+1, ri+1, rowHeight(r), s, room, descent)
				}
			}
		}
	}
	if checked < 100 {
		t.Errorf("checked %d texts above a coloured row, want the tables' (≥ 100)", checked)
	}
}

// TestPDFChartsHaveGapAbove checks that every chart row (one or two images) has a
// blank row of at least pdfChartGap above it, so a chart's title never sits on the
// axis label of the chart above.
func TestPDFChartsHaveGapAbove(t *testing.T) {
	charts := 0
	for pi, p := range fxPDFTree(t).Nodes {
		for ri, r := range p.Nodes {
			if !hasImage(r) {
				continue
			}
			charts++
			if ri == 0 {
				t.Errorf("page %d starts with a chart row", pi+1)
				continue
			}
			above := p.Nodes[ri-1]
			if hasImage(above) || len(texts(above)) > 0 || rowHeight(above) < pdfChartGap {
				t.Errorf("page %d row %d: chart row under a row of %.1f mm (image %v, texts %d), want a blank gap ≥ %.0f mm",
					pi+1, ri+1, rowHeight(above), hasImage(above), len(texts(above)), pdfChartGap)
			}
		}
	}
	if charts < 10 {
		t.Errorf("saw %d chart rows, want the fixture's (≥ 10)", charts)
	}
}

// hasImage reports whether n holds an image.
func hasImage(n *structNode) bool {
	if n.Type == "bytesImage" {
		return true
	}
	for _, c := range n.Nodes {
		if hasImage(c) {
			return true
		}
	}
	return false
}

// TestPDFNoHalfEmptyPages checks that every page but page 1 (the executive summary,
// which stands alone by design) and the last leaves at most a third of its height
// between header and footer empty (the blank row maroto adds before a page's footer):
// short sections join a page instead of each starting one.
func TestPDFNoHalfEmptyPages(t *testing.T) {
	pages := fxPDFTree(t).Nodes
	contentH := 297 - 2*pdfMargin - pdfHeaderH - pdfHeaderGap - pdfFooterH
	for i, p := range pages[:len(pages)-1] {
		if i == 0 {
			continue
		}
		if n := len(p.Nodes); n >= 2 {
			if blank := rowHeight(p.Nodes[n-2]); blank > contentH/3 {
				t.Errorf("page %d leaves %.0f of %.0f mm empty, want ≤ a third", i+1, blank, contentH)
			}
		}
	}
}

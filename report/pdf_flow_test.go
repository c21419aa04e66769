package report

import (
	"fmt"
	"testing"

	"github.com/johnfercher/maroto/v2"
	"github.com/johnfercher/maroto/v2/pkg/config"
	"github.com/johnfercher/maroto/v2/pkg/core"
)

// pageRowTexts returns, per page, the first text of each row (the page's text skeleton).
func pageRowTexts(n *structNode) [][]string {
	var pages [][]string
	for _, p := range n.Nodes {
		if p.Type != "page" {
			continue
		}
		var rows []string
		for _, r := range p.Nodes {
			rows = append(rows, firstText(r))
		}
		pages = append(pages, rows)
	}
	return pages
}

func firstText(n *structNode) string {
	if n.Type == "text" {
		s, _ := n.Value.(string)
		return s
	}
	for _, c := range n.Nodes {
		if s := firstText(c); s != "" {
			return s
		}
	}
	return ""
}

// TestFlowRepeatsTableHeaders lays out a 150-row table after some text and checks that
// every page holding its rows starts them under the table's header, that no header is
// left at the foot of a page, and that every row appears once, in order.
func TestFlowRepeatsTableHeaders(t *testing.T) {
	m := maroto.New(config.NewBuilder().WithSequentialMode().Build())
	var rows [][]string
	for i := range 150 {
		rows = append(rows, []string{fmt.Sprintf("row %d", i), "x"})
	}
	flow(m, false, []core.Row{heading("Before the table"), para("Some text.")})
	flow(m, false, table([]string{"name", "value"}, []int{6, 6}, rows))
	pages := pageRowTexts(toStructNode(m.GetStructure()))
	if len(pages) < 3 {
		t.Fatalf("%d pages, want the table to span at least 3", len(pages))
	}
	next := 0
	for pi, p := range pages {
		sawHeader := false
		for ri, s := range p {
			switch {
			case s == "name":
				sawHeader = true
				if ri >= len(p)-1 || p[ri+1] != fmt.Sprintf("row %d", next) {
					t.Errorf("page %d: header not followed by row %d", pi+1, next)
				}
			case s == fmt.Sprintf("row %d", next):
				if !sawHeader {
					t.Errorf("page %d: row %d without a header above it on the page", pi+1, next)
				}
				next++
			}
		}
	}
	if next != len(rows) {
		t.Errorf("saw rows 0..%d in order, want all %d", next-1, len(rows))
	}
}

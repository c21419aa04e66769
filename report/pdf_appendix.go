package report

import (
	"github.com/johnfercher/maroto/v2/pkg/core"
	"github.com/johnfercher/maroto/v2/pkg/props"
)

// capacitySection is every segment's capacity, then the what-if sizing table: two blocks.
func capacitySection(in *input) []block {
	a := in.a
	rows := []core.Row{heading(headCapacity), para(capacityIntro(a))}
	hdr, data := capacityTable(a)
	rows = append(rows, table(hdr, []int{3, 3, 3, 7, 2, 3, 3}, data)...)
	out := []block{rows}
	if len(a.WhatIf) > 0 {
		rows := []core.Row{subheading(sizingHeading(a))}
		rows = append(rows, whatIfTable(a)...)
		if n := samePriceNote(a.WhatIf); n != "" {
			rows = append(rows, para(n, props.Text{Size: 8, Top: 1, Color: colGrey}))
		}
		for _, n := range sizingNotes(a) {
			rows = append(rows, para(n, props.Text{Size: 8.5, Top: 1, Color: colGrey}))
		}
		out = append(out, rows)
	}
	return out
}

// usdCents formats a price with cents.
func usdCents(v float64) string {
	if !finite(v) || v == 0 {
		return "–"
	}
	return "$" + num(v, 2)
}

// clipRunes shortens s to n runes with an ellipsis.
func clipRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// serverSection is the scraped server metrics charts across the page, the heading
// with the first (none when none were scraped).
func serverSection(byName map[string]Chart) []block {
	q, kv := chartRow(byName, "server-queue"), chartRow(byName, "server-kv")
	if q == nil && kv == nil {
		return nil
	}
	head := block{heading(headServer), para(serverIntro)}
	if q == nil {
		return []block{append(head, kv...)}
	}
	return []block{append(head, q...), kv}
}

// methodologySection explains how the numbers were measured and their caveats: one block.
func methodologySection(in *input) []block {
	paras := methodologyParas()
	rows := block{heading(headMethodology)}
	for _, p := range paras {
		rows = append(rows, para(p))
	}
	return []block{rows}
}

// appendixSection is the full per-step statistics of every segment: the heading with
// the table's first rows, then the rest of the table flowing across pages under
// repeated headers.
func appendixSection(in *input) []block {
	a := in.a
	rows := []core.Row{heading(headAppendix)}
	hdr, data := appendixTable(a)
	rows = append(rows, para(appendixCaption, props.Text{Size: 8, Color: colGrey, Bottom: 1}))
	head, tail := tableSplit(table(hdr, []int{3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1}, data))
	return []block{append(rows, head...), tail}
}

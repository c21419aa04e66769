package report

import (
	"github.com/johnfercher/maroto/v2/pkg/core"
	"github.com/johnfercher/maroto/v2/pkg/props"
)

// capacitySection is every segment's capacity and the what-if sizing table.
func capacitySection(in *input) []core.Row {
	a := in.a
	rows := []core.Row{heading(headCapacity), para(capacityIntro(a))}
	hdr, data := capacityTable(a)
	rows = append(rows, autoTable(hdr, []int{4, 4, 3, 3, 3, 3, 4}, data)...)
	if len(a.WhatIf) > 0 {
		rows = append(rows, subheading("Target users → replicas → GPUs → cost"))
		rows = append(rows, whatIfTable(a.WhatIf)...)
		if n := samePriceNote(a.WhatIf); n != "" {
			rows = append(rows, para(n, props.Text{Size: 8, Top: 1, Color: colGrey}))
		}
		for _, n := range sizingNotes(a) {
			rows = append(rows, para(n, props.Text{Size: 8.5, Top: 1, Color: colGrey}))
		}
	}
	return rows
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

// serverSection is the scraped server metrics charts (empty when none were scraped).
func serverSection(byName map[string]Chart) []core.Row {
	q, kv := chartRow(byName, "server-queue"), chartRow(byName, "server-kv")
	if q == nil && kv == nil {
		return nil
	}
	return appendRows([]core.Row{heading(headServer),
		para(serverIntro)}, q, kv)
}

// methodologySection explains how the numbers were measured and their caveats.
func methodologySection(in *input) []core.Row {
	paras := methodologyParas()
	rows := []core.Row{heading(headMethodology)}
	for _, p := range paras {
		rows = append(rows, para(p))
	}
	return rows
}

// appendixSection is the full per-step statistics of every segment.
func appendixSection(in *input) []core.Row {
	a := in.a
	rows := []core.Row{heading(headAppendix)}
	hdr, data := appendixTable(a)
	rows = append(rows, para(appendixCaption, props.Text{Size: 8, Color: colGrey, Bottom: 1}))
	rows = append(rows, table(hdr, []int{3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1}, data)...)
	return rows
}

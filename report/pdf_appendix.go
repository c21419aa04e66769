package report

import (
	"fmt"

	"github.com/johnfercher/maroto/v2/pkg/core"
	"github.com/johnfercher/maroto/v2/pkg/props"
)

// capacitySection is every segment's capacity and the what-if sizing table.
func capacitySection(in *input) []core.Row {
	a := in.a
	users := "Users per replica convert it with the think time (users = X · (R + Z), an estimate, rounded down to whole users)"
	if isUsers(a) {
		users = "Users per replica are that capacity, measured with users thinking between requests (rounded down to whole users)"
	}
	rows := []core.Row{heading("Capacity"),
		para(fmt.Sprintf("Capacity is the largest %s at which every SLA constraint holds (%s). %s; replicas = ⌈target users ÷ (users per replica × (1 − headroom))⌉ with headroom %s.",
			loadName(a), constraintsText(a.Constraints), users, shareText(headroom(a))))}
	var data [][]string
	for _, seg := range allSegments(a) {
		c := seg.Capacity
		data = append(data, []string{seg.Segment, capacityText(a, c), rangeText(c), methodText(c.Method),
			orDash(c.Bottleneck), auto(c.ThroughputAtCapacity), capacityUsersText(c)})
	}
	rows = append(rows, autoTable([]string{"segment", "capacity", "range", "method", "bottleneck", "req/s at cap.", "users / replica"},
		[]int{4, 4, 3, 3, 3, 3, 4}, data)...)
	if len(a.WhatIf) > 0 {
		rows = append(rows, subheading("Target users → replicas → "+unitNoun(a)+"s → cost"))
		rows = append(rows, whatIfTable(a)...)
		if n := samePriceNote(a.WhatIf); n != "" {
			rows = append(rows, para(n, props.Text{Size: 8, Top: 1, Color: colGrey}))
		}
		rows = append(rows, para(fmt.Sprintf("%ss per replica: %d. Price: %s per %s-hour, %d hours a month. The XLSX workbook's Summary sheet recomputes this table for any input.",
			unitNoun(a), gpusPerReplica(a), sizingUSDCents(gpuHourUSD(a)), unitNoun(a), hoursPerMonth), props.Text{Size: 8.5, Top: 1, Color: colGrey}))
		rows = append(rows, para(fmt.Sprintf("$ / M output tokens = price of one replica's GPUs per hour ÷ (output tokens/s at capacity × (1 − headroom %s) × 3,600) × 1,000,000: "+
			"the cost of a million generated tokens when every replica runs fully loaded up to its headroom.", shareText(headroom(a))), props.Text{Size: 8.5, Top: 1, Color: colGrey}))
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
	return appendRows([]core.Row{heading("Server metrics"),
		para("Scraped from the server's Prometheus endpoint during the sweep; shaded bands are the steps.")}, q, kv)
}

// methodologySection explains how the numbers were measured and their caveats.
func methodologySection(in *input) []core.Row {
	paras := []string{
		"Metrics follow AIPerf's definitions. TTFT is the time from sending a request to the first streamed event carrying content or reasoning; " +
			"ITL is (E2E − TTFT) ÷ (output tokens − 1), defined for two or more output tokens; E2E ends at the last content event.",
		"Percentiles interpolate linearly between closest ranks over the successful requests of each step's measurement window (warm-up excluded); " +
			"failed requests are counted separately as the error rate.",
		"Throughput is completed requests (and tokens) over the span from the first request to the last response of the window. " +
			"Goodput counts only requests meeting every SLA constraint (inclusive ≤).",
		"Capacity is interpolated between measured steps where possible; method \"model\" marks a projection beyond the last step from the fitted queueing model. " +
			"What-if rows for other GPUs are roofline projections (prefill ∝ FLOPS, decode ∝ memory bandwidth), not measurements.",
		"Caveats: results hold for the measured prompt/output length mix, engine settings and software versions; steps that did not reach steady state " +
			"and steps with errors above the SLA's error budget are flagged on page 1.",
	}
	rows := []core.Row{heading("Methodology and caveats")}
	for _, p := range paras {
		rows = append(rows, para(p))
	}
	return rows
}

// appendixSection is the full per-step statistics of every segment.
func appendixSection(in *input) []core.Row {
	a := in.a
	rows := []core.Row{heading("Appendix: all steps")}
	hdr := []string{"segment", loadName(a), "TTFT p50", "TTFT p95", "TTFT p99", "TTFO p95", "ITL p50", "ITL p95", "E2E p95",
		"tok/s", "per user", "SS"}
	var data [][]string
	for _, seg := range allSegments(a) {
		for _, s := range seg.Steps {
			steady := "yes"
			if !s.SteadyState {
				steady = "no"
			}
			ttft, ttfo, itl, e2e := shown(s.TTFTMs), shown(s.TTFOMs), shown(s.ITLMs), shown(s.E2EMs)
			data = append(data, []string{clipRunes(seg.Segment, 13), loadText(s.Load), auto(ttft.P50), auto(ttft.P95), auto(ttft.P99),
				auto(ttfo.P95), auto(itl.P50), auto(itl.P95), auto(e2e.P95), auto(s.OutputTokenThroughput),
				auto(s.PerUserOutputTokensPerS), steady})
		}
	}
	rows = append(rows, para("Latencies in ms; tok/s: output tokens per second, in total and per user; SS: steady state reached.", props.Text{Size: 8, Color: colGrey, Bottom: 1}))
	rows = append(rows, table(hdr, []int{3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1}, data)...)
	return rows
}

package report

import (
	"fmt"
	"strings"

	"github.com/llmcap/llmcap/analysis"
	"github.com/llmcap/llmcap/rundir"
)

// renderMarkdown renders summary.md: the answer, key numbers, warnings, per-segment
// capacities, the capacity table and links to the charts.
func renderMarkdown(in *input, charts []string) string {
	a := in.a
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", mdEscape(title(a)))
	fmt.Fprintf(&b, "Run `%s`", a.RunID)
	if !in.date.IsZero() {
		fmt.Fprintf(&b, ", %s UTC", in.date.Format("2006-01-02 15:04"))
	}
	b.WriteString(".\n\n")
	if banner := speedUpBanner(a); banner != "" {
		fmt.Fprintf(&b, "> **⚠ %s.**\n\n", mdEscape(banner))
	}
	fmt.Fprintf(&b, "**%s**\n\n", mdEscape(a.Answer))
	fmt.Fprintf(&b, "**Bottleneck:** %s.\n\n", bottleneckVerdict(a.Overall.Bottleneck))
	if errorsBound(a) {
		writeMarkdownErrors(&b, a.Errors)
	}
	fmt.Fprintf(&b, "**What to do:** %s\n\n", mdEscape(a.Overall.Advice))
	b.WriteString("## Key numbers\n\n| | |\n|---|---|\n")
	for _, kv := range keyNumbers(a) {
		fmt.Fprintf(&b, "| %s | %s |\n", mdEscape(kv.Key), mdEscape(kv.Value))
	}
	fmt.Fprintf(&b, "\n_%s_\n", glossary)
	if ws := a.Warnings; len(ws) > 0 {
		b.WriteString("\n## Warnings\n\n")
		if scope := warningScope(a, ws); scope != "" {
			fmt.Fprintf(&b, "%s\n\n", mdEscape(scope))
		}
		for _, w := range ws {
			fmt.Fprintf(&b, "- %s\n", mdEscape(w.Message))
		}
	}
	b.WriteString("\n## Segments\n\n| segment | mix share | capacity | range | method | bottleneck | binding constraint |\n|---|---:|---:|---|---|---|---|\n")
	for _, seg := range allSegments(a) {
		c := seg.Capacity
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", mdEscape(seg.Segment), shareText(shareOf(a, seg.Segment)),
			capacityText(a, c), rangeText(c), methodText(c.Method), orDash(c.Bottleneck), mdEscape(analysis.BindingText(c)))
	}
	writeMarkdownWhatIf(&b, a.WhatIf)
	writeMarkdownKernels(&b, a)
	if len(charts) > 0 {
		b.WriteString("\n## Charts\n\n")
		for _, c := range charts {
			if strings.HasSuffix(c, ".svg") {
				fmt.Fprintf(&b, "- [%s](%s)\n", strings.TrimSuffix(strings.TrimPrefix(c, DirCharts+"/"), ".svg"), c)
			}
		}
	}
	return b.String()
}

// writeMarkdownWhatIf writes the capacity (what-if) table.
func writeMarkdownWhatIf(b *strings.Builder, rows []analysis.WhatIf) {
	if len(rows) == 0 {
		return
	}
	b.WriteString("\n## Capacity plan\n\n| GPU | users/replica | target users | replicas | GPUs | $/GPU-hour | $/month | $/M output tokens | |\n|---|---:|---:|---:|---:|---:|---:|---:|---|\n")
	for _, w := range rows {
		note := "measured"
		if w.Projected {
			note = "projected"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %d | %d | %s | %s | %s | %s |\n", mdEscape(w.GPU), usersText(w.UsersPerReplica),
			num(float64(w.TargetUsers), 0), w.Replicas, w.GPUs, strings.ReplaceAll(whatIfPrice(w), "*", `\*`), usd(w.CostPerMonthUSD), costPerM(w.CostPerMOutputUSD), note)
	}
	fmt.Fprintf(b, "\n%s\n", mdEscape(analysis.HeadroomText(rows[0].Headroom)))
	if n := samePriceNote(rows); n != "" {
		fmt.Fprintf(b, "\n%s\n", strings.Replace(mdEscape(n), "*", `\*`, 1))
	}
}

// writeMarkdownErrors writes the run's error breakdown (class, count, sample message).
func writeMarkdownErrors(b *strings.Builder, e analysis.ErrorSummary) {
	fmt.Fprintf(b, "**Errors:** %s\n\n| error class | count | sample message |\n|---|---:|---|\n", errorsSummaryText(e))
	for _, r := range errorRows(e) {
		fmt.Fprintf(b, "| %s | %s | %s |\n", mdEscape(r[0]), r[1], mdEscape(r[2]))
	}
	b.WriteString("\n")
}

// costPerM formats a cost per million tokens with cents.
func costPerM(v float64) string {
	if !finite(v) || v == 0 {
		return "–"
	}
	return "$" + num(v, 2)
}

// mdEscape escapes the characters that break a Markdown table cell.
func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

// writeMarkdown writes summary.md.
func writeMarkdown(path string, in *input, charts []string) error {
	return rundir.WriteFileAtomic(path, []byte(renderMarkdown(in, charts)))
}

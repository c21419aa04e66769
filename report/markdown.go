package report

import (
	"fmt"
	"strings"
	"unicode"

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
	writeMarkdownSummary(&b, a)
	writeMarkdownEvidence(&b, a)
	writeMarkdownDrift(&b, a)
	b.WriteString("\n## Segments\n\n| segment | mix share | capacity | range | method | bottleneck | binding constraint |\n|---|---:|---:|---|---|---|---|\n")
	for _, seg := range allSegments(a) {
		c := seg.Capacity
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", mdEscape(seg.Segment), shareText(shareOf(a, seg.Segment)),
			capacityText(a, c), rangeText(c), methodText(c.Method), orDash(c.Bottleneck), mdEscape(analysis.BindingText(c)))
	}
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

// writeMarkdownSummary writes the part for a manager, as page 1 of the PDF: the
// answer, what a user is, what limits it, what to do, how sure, key numbers, the
// capacity plan and one line on the warnings.
func writeMarkdownSummary(b *strings.Builder, a *analysis.Analysis) {
	h := a.Headline
	fmt.Fprintf(b, "**%s**\n\n", mdEscape(a.Answer))
	if h.Note != "" {
		fmt.Fprintf(b, "_%s_\n\n", mdEscape(h.Note))
	}
	for _, l := range [][2]string{{"What limits it", h.Limit}, {"What to do", h.Action}, {"How sure", h.Certainty}} {
		if l[1] != "" {
			fmt.Fprintf(b, "**%s:** %s\n\n", l[0], mdEscape(l[1]))
		}
	}
	if errorsBound(a) {
		writeMarkdownErrors(b, a.Errors)
	}
	b.WriteString("## Key numbers\n\n| | |\n|---|---|\n")
	for _, kv := range plainNumbers(a) {
		fmt.Fprintf(b, "| %s | %s |\n", mdEscape(kv.Key), mdEscape(kv.Value))
	}
	writeMarkdownWhatIf(b, a)
	if w := warningsLine(a, "Evidence below"); w != "" {
		fmt.Fprintf(b, "\n**⚠ %s**\n", mdEscape(w))
	}
}

// writeMarkdownEvidence writes the technical basis of the summary: binding
// constraint, bottleneck and its evidence, the engine-level advice, the technical
// key numbers, notes, every warning and the glossary.
func writeMarkdownEvidence(b *strings.Builder, a *analysis.Analysis) {
	c := a.Overall
	b.WriteString("\n## Evidence\n\n")
	fmt.Fprintf(b, "**Binding constraint:** %s\n\n", mdEscape(analysis.BindingText(c)))
	fmt.Fprintf(b, "**Bottleneck:** %s.\n\n", evidenceVerdict(c))
	if ev := strings.TrimSpace(c.BottleneckEvidence); ev != "" {
		fmt.Fprintf(b, "Evidence: %s\n\n", mdEscape(ev))
	}
	if c.Advice != "" {
		fmt.Fprintf(b, "**What to do, in the engine's settings:** %s\n\n", mdEscape(c.Advice))
	}
	b.WriteString("### Key numbers (technical)\n\n| | |\n|---|---|\n")
	for _, kv := range keyNumbers(a) {
		fmt.Fprintf(b, "| %s | %s |\n", mdEscape(kv.Key), mdEscape(kv.Value))
	}
	if n := strings.TrimSpace(a.Plan.Report.Notes); n != "" {
		fmt.Fprintf(b, "\n### Notes\n\n%s\n", mdEscape(n))
	}
	if ws := a.Warnings; len(ws) > 0 {
		b.WriteString("\n### Warnings\n\n")
		if scope := warningScope(a, ws); scope != "" {
			fmt.Fprintf(b, "%s\n\n", mdEscape(scope))
		}
		for _, w := range ws {
			fmt.Fprintf(b, "- %s\n", mdEscape(w.Message))
		}
	}
	b.WriteString("\n### Glossary\n\n")
	for _, g := range glossaryTerms {
		fmt.Fprintf(b, "- **%s**: %s\n", g.Key, mdEscape(g.Value))
	}
}

// writeMarkdownWhatIf writes the capacity plan (sizing) table, in GPUs or machines.
func writeMarkdownWhatIf(b *strings.Builder, a *analysis.Analysis) {
	rows := a.WhatIf
	if len(rows) == 0 {
		return
	}
	hd := sizingHeaders(a)
	align := "|---|---|---:|---:|---:|---:|---:|---:|---:|"
	energy := hasEnergyCost(rows)
	if energy {
		hd, align = append(hd, energyCostHeaders...), align+"---:|---:|"
	}
	fmt.Fprintf(b, "\n## Capacity plan\n\n| %s |\n%s\n", strings.Join(hd, " | "), align)
	for _, w := range rows {
		fmt.Fprintf(b, "| %s | %s | %s | %s | %d | %d | %s | %s | %s |", mdEscape(w.GPU), basisText(a, w), usersText(w.UsersPerReplica),
			num(float64(w.TargetUsers), 0), w.Replicas, w.GPUs, strings.ReplaceAll(sizingPrice(w), "*", `\*`), sizingUSD(w.CostPerMonthUSD), sizingUSDCents(w.CostPerMOutputUSD))
		if energy {
			fmt.Fprintf(b, " %s |", strings.Join(energyCostCells(w), " | "))
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(b, "\n%s\n", mdEscape(analysis.HeadroomText(rows[0].Headroom)))
	if n := energyCostNote(a); n != "" {
		fmt.Fprintf(b, "\n%s\n", mdEscape(n))
	}
	if n := samePriceNote(rows); n != "" {
		fmt.Fprintf(b, "\n%s\n", mdEscape(n))
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

// mdEscape makes s (which may hold a plan's title, notes or model name: user text)
// plain text in Markdown: a backslash before each character Markdown would read as
// emphasis, code, a link, a heading, a table cell break or inline HTML (CommonMark:
// any ASCII punctuation may be backslash-escaped), newlines as spaces. An underscore
// inside a word (max_num_seqs) is left as is: CommonMark never reads it as emphasis.
func mdEscape(s string) string {
	var b strings.Builder
	rs := []rune(s)
	for i, r := range rs {
		switch {
		case r == '\n':
			b.WriteByte(' ')
			continue
		case r == '_' && i > 0 && i+1 < len(rs) && isWordRune(rs[i-1]) && isWordRune(rs[i+1]):
		case strings.ContainsRune("\\|*_`<>[]#~", r):
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// isWordRune reports whether r is a letter or digit.
func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// writeMarkdown writes summary.md.
func writeMarkdown(path string, in *input, charts []string) error {
	return rundir.WriteFileAtomic(path, []byte(renderMarkdown(in, charts)))
}

// writeMarkdownDrift writes the output-drift section (driftParas), when the run has one.
func writeMarkdownDrift(b *strings.Builder, a *analysis.Analysis) {
	ps := driftParas(a)
	if len(ps) == 0 {
		return
	}
	fmt.Fprintf(b, "\n## %s\n\n%s\n\n", driftHeading, mdEscape(ps[0]))
	for _, l := range ps[1:] {
		fmt.Fprintf(b, "- %s\n", mdEscape(l))
	}
}

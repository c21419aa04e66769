package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/llmcap/llmcap/compare"
)

// renderCompareMarkdown is compare.md: the verdict, the SLA, the plan diff, the runs'
// answers, the delta table, notes and links to the charts (paths relative to the
// comparison's directory).
func renderCompareMarkdown(c *compare.Comparison, charts []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s: %s\n\n", cmpTitle, mdEscape(strings.Join(c.Labels, " vs ")))
	fmt.Fprintf(&b, "**%s**\n\n%s\n\n%s\n\n", mdEscape(c.Verdict.Sentence), mdEscape(cmpSLAText(c)), mdEscape(cmpRunsLine(c)))
	fmt.Fprintf(&b, "## %s\n\n", cmpHeadPlan)
	if len(c.PlanDiff) == 0 {
		b.WriteString(cmpNoPlanDiff + "\n")
	} else {
		fmt.Fprintf(&b, "%s\n\n", cmpPlanIntro)
		writeMarkdownTable(&b, cmpPlanTable(c))
	}
	fmt.Fprintf(&b, "\n## %s\n\n", cmpHeadRuns)
	writeMarkdownTable(&b, cmpRunsTable(c))
	fmt.Fprintf(&b, "\n## %s\n\n%s\n\n", cmpHeadDeltas, mdEscape(cmpDeltaIntro(c)))
	if len(c.Deltas) > 0 {
		writeMarkdownTable(&b, cmpDeltaTable(c))
	}
	if d := c.Drift; d != nil {
		writeCompareMarkdownDrift(&b, d)
	}
	if len(c.Notes) > 0 {
		b.WriteString("\n## Notes\n\n")
		for _, n := range c.Notes {
			fmt.Fprintf(&b, "- %s\n", mdEscape(n))
		}
	}
	if len(charts) > 0 {
		b.WriteString("\n## Charts\n\n")
		for _, p := range charts {
			fmt.Fprintf(&b, "- [%s](%s)\n", strings.TrimSuffix(strings.TrimPrefix(p, DirCharts+"/"), ".svg"), p)
		}
	}
	return b.String()
}

// writeCompareMarkdownDrift writes the drift section: its findings as a list, the table of
// runs and the outputs that differed from the reference run's.
func writeCompareMarkdownDrift(b *strings.Builder, d *compare.DriftSection) {
	fmt.Fprintf(b, "\n## %s\n\n%s\n\n", cmpHeadDrift, mdEscape(cmpDriftIntro(d)))
	for _, s := range cmpDriftSentences(d) {
		fmt.Fprintf(b, "- %s\n", mdEscape(s))
	}
	b.WriteString("\n")
	writeMarkdownTable(b, cmpDriftTable(d))
	if t := cmpDriftChangeTable(d); len(t.rows) > 0 {
		b.WriteString("\n")
		writeMarkdownTable(b, t)
	}
}

// writeMarkdownTable writes a table, the first column left-aligned, the others right.
func writeMarkdownTable(b *strings.Builder, t cmpTable) {
	head, rows := t.head, t.rows
	esc := func(cells []string) []string {
		out := make([]string, len(cells))
		for i, s := range cells {
			out[i] = mdEscape(s)
		}
		return out
	}
	fmt.Fprintf(b, "| %s |\n|", strings.Join(esc(head), " | "))
	for i := range head {
		if i == 0 {
			b.WriteString("---|")
		} else {
			b.WriteString("---:|")
		}
	}
	b.WriteString("\n")
	for _, r := range rows {
		fmt.Fprintf(b, "| %s |\n", strings.Join(esc(r), " | "))
	}
}

// PrintCompare writes the comparison's summary for the console: the verdict, the SLA,
// the plan diff, the runs' answers, the delta table and the drift section (when the
// comparison has one) as aligned text columns.
// Errors: w's.
func PrintCompare(w io.Writer, c *compare.Comparison) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n%s\n\n", c.Verdict.Sentence, cmpSLAText(c))
	if len(c.PlanDiff) == 0 {
		b.WriteString(cmpNoPlanDiff + "\n")
	} else {
		b.WriteString(cmpHeadPlan + ":\n")
		writeTextTable(&b, cmpPlanTable(c))
	}
	b.WriteString("\n" + cmpHeadRuns + ":\n")
	writeTextTable(&b, cmpRunsTable(c))
	if len(c.Deltas) > 0 {
		fmt.Fprintf(&b, "\n%s (Δ against %s, 95%% bootstrap CI):\n", cmpHeadDeltas, c.Baseline)
		writeTextTable(&b, cmpDeltaTable(c))
	}
	if d := c.Drift; d != nil {
		b.WriteString("\n" + cmpHeadDrift + ":\n")
		for _, s := range cmpDriftSentences(d) {
			b.WriteString("  " + s + "\n")
		}
		writeTextTable(&b, cmpDriftTable(d))
	}
	for _, n := range c.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeTextTable writes head and rows in columns padded to their widest cell.
func writeTextTable(b *strings.Builder, t cmpTable) {
	head, rows := t.head, t.rows
	width := make([]int, len(head))
	for _, r := range append([][]string{head}, rows...) {
		for i, s := range r {
			width[i] = max(width[i], len([]rune(s)))
		}
	}
	for _, r := range append([][]string{head}, rows...) {
		var line strings.Builder
		for i, s := range r {
			line.WriteString("  " + s + strings.Repeat(" ", width[i]-len([]rune(s))))
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
}

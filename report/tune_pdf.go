package report

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/johnfercher/maroto/v2/pkg/components/col"
	"github.com/johnfercher/maroto/v2/pkg/components/page"
	"github.com/johnfercher/maroto/v2/pkg/components/row"
	"github.com/johnfercher/maroto/v2/pkg/components/text"
	"github.com/johnfercher/maroto/v2/pkg/consts/align"
	"github.com/johnfercher/maroto/v2/pkg/consts/border"
	"github.com/johnfercher/maroto/v2/pkg/consts/fontstyle"
	"github.com/johnfercher/maroto/v2/pkg/core"
	"github.com/johnfercher/maroto/v2/pkg/props"

	"github.com/llmcap/llmcap/rundir"
)

// The tune report's PDF, laid out like the run report's (pdf.go, pdf_layout.go): page 1
// for a manager (the answer, the exact launch command, the gain, the counts, why the
// search stopped) with the Pareto front chart where it fits; then, for the architects,
// every trial in two tables, the failed trials with their server logs, and the search.

// The tune PDF's monospace family (Liberation Mono, as gonum/plot ships it) and its
// character widths: a monospace glyph is 0.6 em wide, so a line of the command is
// wrapped by count (tuneMonoLines), with a shell line continuation where it breaks.
const (
	pdfMonoFamily  = "mono"
	pdfMonoSize    = 8.0
	pdfLogSize     = 6.5
	pdfPtMM        = 25.4 / 72
	pdfMonoEm      = 0.6
	pdfUsableWidth = 210 - 2*pdfMargin
	pdfMonoPad     = 2.0 // left and right padding of a monospace box, mm
)

// colCode is the background of a monospace box (the command, a server log).
var colCode = &props.Color{Red: 238, Green: 240, Blue: 243}

// writeTunePDF renders the tune PDF to path.
func writeTunePDF(path string, in *tuneInput, chart Chart) error {
	m, err := buildTunePDF(in, chart)
	if err != nil {
		return err
	}
	doc, err := m.Generate()
	if err != nil {
		return fmt.Errorf("generate %s: %w", filepath.Base(path), err)
	}
	return rundir.WriteFileAtomic(path, doc.GetBytes())
}

// buildTunePDF lays out the whole document (not yet generated).
func buildTunePDF(in *tuneInput, chart Chart) (core.Maroto, error) {
	m, err := newPDFDoc(pdfDocInfo{title: tuneTitle(in), creator: tuneToolText(in.meta),
		subject: "Tuning report for " + tuneDirText(in), date: in.meta.StartedAt, mono: true})
	if err != nil {
		return nil, err
	}
	g := &gauge{Row: row.New(pdfHeaderGap), cfg: m.GetCurrentConfig(), headerH: pdfHeaderH + pdfHeaderGap}
	if err := m.RegisterHeader(tunePDFHeader(in), g); err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	if err := m.RegisterFooter(row.New(pdfFooterH).Add(
		text.NewCol(18, tuneFooterText(in), props.Text{Size: 7, Top: 2, Color: colGrey}), col.New(6))); err != nil {
		return nil, fmt.Errorf("footer: %w", err)
	}
	flow(m, false, tuneSummaryPage(in))
	place(m, g, tuneFrontSection(chart))
	m.AddPages(page.New())
	place(m, g, tuneTrialSections(in))
	place(m, g, tuneFailedSection(in))
	place(m, g, tunePlanSection(in))
	return m, nil
}

// tunePDFHeader is the header on every page: the title left, the directory and date right.
func tunePDFHeader(in *tuneInput) core.Row {
	return row.New(pdfHeaderH).Add(
		text.NewCol(16, clipRunes(tuneTitle(in), 80), props.Text{Size: 8.5, Style: fontstyle.Bold, Top: 1}),
		text.NewCol(8, clipRunes(tuneDirText(in), 40)+" · "+dateText(in.meta.StartedAt), props.Text{Size: 7, Align: align.Right, Top: 1, Color: colGrey}),
	).WithStyle(&props.Cell{BorderType: border.Bottom, BorderColor: colGrey, BorderThickness: 0.2})
}

// tuneDirText names the tune directory: its base name.
func tuneDirText(in *tuneInput) string {
	return "tune " + filepath.Base(filepath.Clean(in.dir))
}

// tuneFooterText is the line at the foot of every page.
func tuneFooterText(in *tuneInput) string {
	return tuneToolText(in.meta) + " · made from the tune directory's " + rundir.FileTune + ", " + rundir.FileTrials +
		" and " + rundir.FileTuneResult
}

// tuneSummaryPage is page 1: the answer, the launch command, the gain in bold, the
// facts (counts, why it stopped, the recommended and baseline trials, the objectives)
// and the notes.
func tuneSummaryPage(in *tuneInput) []core.Row {
	r := in.result
	rows := []core.Row{heading(headTuneSummary),
		boxed(tuneOr(r.Answer), colAnswerBG, props.Text{Size: 12, Style: fontstyle.Bold}),
		para(tuneGainSentence(in), props.Text{Size: 11, Style: fontstyle.Bold, Top: 3, Bottom: 1}),
		subheading("Launch command"),
	}
	rows = append(rows, monoBox(tuneMonoLines(tuneCommandText(r.Command, r.Env), pdfMonoSize), pdfMonoSize)...)
	rows = append(rows, subheading("Key facts"))
	rows = append(rows, kvTable(tuneSummaryFacts(in))...)
	for _, n := range tuneNotes(in) {
		rows = append(rows, row.New(1.5), boxed("⚠ "+n, colWarnBG, props.Text{Size: 8.5}))
	}
	return rows
}

// tuneGainSentence is the gain as page 1's bold line, capitalised.
func tuneGainSentence(in *tuneInput) string {
	s := tuneGainText(in)
	if s != "" && s[0] >= 'a' && s[0] <= 'z' {
		s = strings.ToUpper(s[:1]) + s[1:]
	}
	return s + "."
}

// monoBox is lines of monospace text of size pt on a shaded box, one row per line.
func monoBox(lines []string, pt float64) []core.Row {
	bg := &props.Cell{BackgroundColor: colCode}
	lineH := pt * pdfPtMM * 1.35
	rows := []core.Row{row.New(1.5).WithStyle(bg)}
	for _, l := range lines {
		rows = append(rows, row.New(lineH).Add(text.NewCol(pdfGrid, l,
			props.Text{Family: pdfMonoFamily, Size: pt, Left: pdfMonoPad, Right: pdfMonoPad})).WithStyle(bg))
	}
	return append(rows, row.New(1.5).WithStyle(bg))
}

// tuneMonoLines wraps a shell command to the width of a monospace box at size pt:
// at spaces, each wrapped line ending in a shell continuation (" \"), and within a
// word only when it alone is longer than a line.
func tuneMonoLines(cmd string, pt float64) []string {
	width := monoChars(pt)
	var lines []string
	cur := ""
	for _, w := range strings.Split(cmd, " ") {
		for len([]rune(w)) > width-2 { // a word longer than a line: cut it
			if cur != "" {
				lines, cur = append(lines, cur+` \`), ""
			}
			r := []rune(w)
			lines, w = append(lines, string(r[:width-2])), string(r[width-2:])
		}
		switch {
		case cur == "":
			cur = w
		case len([]rune(cur))+1+len([]rune(w)) <= width-2:
			cur += " " + w
		default:
			lines, cur = append(lines, cur+` \`), "  "+w
		}
	}
	return append(lines, cur)
}

// monoChars is how many monospace characters of size pt fit a line of a monoBox.
func monoChars(pt float64) int {
	return int((pdfUsableWidth - 2*pdfMonoPad - 1) / (pdfMonoEm * pt * pdfPtMM))
}

// tuneFrontSection is the Pareto front chart with its caption: one block, on page 1
// where it fits.
func tuneFrontSection(chart Chart) []block {
	byName := map[string]Chart{chart.Name: chart}
	b := block{subheading(headTuneFront)}
	b = append(b, chartRow(byName, chart.Name)...)
	return []block{appendRows(b, captionRow(chart, true, pdfGrid))}
}

// tuneTrialSections are the two trial tables: settings and results, then resources
// and failures; each table's header keeps its first rows, the rest flows.
func tuneTrialSections(in *tuneInput) []block {
	hdr, data := tuneResultsTable(in, true)
	sizes, shown := tuneResultSizes(len(hdr), len(in.params), len(in.objectives))
	all := len(hdr)
	hdr, data = tuneColumns(hdr, data, shown)
	head, tail := tableSplit(table(tuneWrapHeaders(hdr, sizes), sizes, data))
	intro := "One row per trial, in the order run. " + tuneMarksNote
	if len(shown) < all {
		intro += " Parameters that do not fit the page are in the workbook."
	}
	out := []block{append(block{heading(headTuneTrials), para(intro, props.Text{Size: 8.5, Top: 1, Bottom: 1, Color: colGrey}),
		subheading("Settings and results")}, head...)}
	out = append(out, tail)
	rhdr, rdata := tuneResourcesTable(in, pdfTuneReasonRunes)
	rsizes := []int{1, 2, 2, 2, 4, 2, 2, 3, 6}
	rh, rt := tableSplit(table(tuneWrapHeaders(rhdr, rsizes), rsizes, rdata))
	out = append(out, append(block{subheading("Resources and failures"), para(
		"Fail reasons are cut to "+fmt.Sprint(pdfTuneReasonRunes)+" characters here; the workbook and the HTML report hold them whole.",
		props.Text{Size: 8, Top: 0.5, Bottom: 1, Color: colGrey})}, rh...))
	return append(out, rt)
}

// pdfTuneReasonRunes is how much of a fail reason the PDF's table shows.
const pdfTuneReasonRunes = 90

// tuneResultSizes are the grid widths of the results table's columns (n of them:
// trial, gen, marks, params parameters, objectives objectives, then the capacity when
// it is no objective, its method and the status) and the indexes of those shown: the
// parameters and objectives share what the other columns leave, two to four grid
// columns each; parameters that do not fit are left out (the workbook has them).
func tuneResultSizes(n, params, objectives int) (sizes, shown []int) {
	head, tail := []int{1, 1, 2}, []int{3, 2}
	if n-len(head)-params-objectives == 3 {
		tail = []int{2, 3, 2}
	}
	free := pdfGrid - sum(head) - sum(tail)
	fit := min(params+objectives, free/2)
	keptParams := max(0, fit-objectives)
	each := 2
	if fit > 0 {
		each = min(4, free/fit)
	}
	extra := free - each*fit
	for i, w := range head {
		shown, sizes = append(shown, i), append(sizes, w)
	}
	for i := range params + objectives {
		if i < params && i >= keptParams || len(sizes)-len(head) >= fit {
			continue
		}
		w := each
		if extra > 0 && each < 4 {
			w, extra = w+1, extra-1
		}
		shown, sizes = append(shown, len(head)+i), append(sizes, w)
	}
	for i, w := range tail {
		shown, sizes = append(shown, len(head)+params+objectives+i), append(sizes, w)
	}
	return sizes, shown
}

// sum is the sum of v.
func sum(v []int) int {
	s := 0
	for _, x := range v {
		s += x
	}
	return s
}

// tuneColumns keeps the columns of hdr and rows listed in keep, in order.
func tuneColumns(hdr []string, rows [][]string, keep []int) ([]string, [][]string) {
	pick := func(r []string) []string {
		out := make([]string, 0, len(keep))
		for _, i := range keep {
			if i < len(r) {
				out = append(out, r[i])
			}
		}
		return out
	}
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = pick(r)
	}
	return pick(hdr), out
}

// pdfHeaderCharMM is the width of a bold 7 pt character of the tables' headers, for
// tuneWrapHeaders: 0.75 em, a little over DejaVu Sans Bold's for the letters and '_'
// of a parameter name ("max_num_seqs" is 21 mm).
const pdfHeaderCharMM = 0.75 * 7 * pdfPtMM

// tuneWrapHeaders breaks each header word too wide for its column (sizes, in grid
// columns) after an '_' (a parameter name), so maroto, which wraps at spaces only,
// wraps it: the pieces are as long as fit, so two never share a line.
func tuneWrapHeaders(hdr []string, sizes []int) []string {
	out := make([]string, len(hdr))
	for i, h := range hdr {
		width := 1
		if i < len(sizes) {
			width = max(1, int((float64(sizes[i])*pdfUsableWidth/pdfGrid-1.6)/pdfHeaderCharMM))
		}
		words := strings.Split(h, " ")
		for j, w := range words {
			words[j] = breakAtUnderscores(w, width)
		}
		out[i] = strings.Join(words, " ")
	}
	return out
}

// breakAtUnderscores splits w after '_' into pieces of at most width runes where it can
// (a piece without '_' may be longer), joined by spaces.
func breakAtUnderscores(w string, width int) string {
	if len([]rune(w)) <= width || !strings.Contains(w, "_") {
		return w
	}
	parts := strings.SplitAfter(w, "_")
	var pieces []string
	cur := ""
	for _, p := range parts {
		if cur != "" && len([]rune(cur+p)) > width {
			pieces, cur = append(pieces, cur), ""
		}
		cur += p
	}
	return strings.Join(append(pieces, cur), " ")
}

// tuneFailedSection is each failed trial: its settings, the whole reason and the last
// lines of its server log; nothing when none failed.
func tuneFailedSection(in *tuneInput) []block {
	failed := tuneFailed(in)
	if len(failed) == 0 {
		return nil
	}
	out := []block{{heading(headTuneFailed), para(tuneFailedIntro(len(failed)), props.Text{Size: 8.5, Top: 1, Bottom: 1, Color: colGrey})}}
	logWidth := monoChars(pdfLogSize)
	for _, t := range failed {
		b := block{subheading(tuneFailedHeading(t))}
		if s := tuneSettingsText(in, t); s != "" {
			b = append(b, para("Settings: "+s, props.Text{Size: 8.5, Top: 0.5, Bottom: 0.5}))
		}
		b = append(b, para("Reason: "+tuneOr(t.FailReason), props.Text{Size: 8.5, Top: 0.5, Bottom: 1}))
		if t.ServerLogTail != "" {
			b = append(b, para(fmt.Sprintf("Last lines of its server.log (%s):", rundir.TrialDir(".", t.Trial)),
				props.Text{Size: 7.5, Top: 0.5, Bottom: 0.5, Color: colGrey}))
			b = append(b, monoBox(tuneLogLines(t.ServerLogTail, pdfTuneLogLines, logWidth), pdfLogSize)...)
		}
		out = append(out, b)
	}
	return out
}

// pdfTuneLogLines is how many lines of a failed trial's server log the PDF shows.
const pdfTuneLogLines = 15

// tuneFailedIntro introduces the failed trials.
func tuneFailedIntro(n int) string {
	return fmt.Sprintf("%s failed: the server did not start, was not ready in time, exited, or its capacity search failed. "+
		"Each trial's run directory is trials/NNNN in the tune directory; its server.log holds the whole log.", plural(n, "trial"))
}

// tunePlanSection is the search's settings and its space.
func tunePlanSection(in *tuneInput) []block {
	b := block{heading(headTunePlan)}
	b = append(b, kvTable(tunePlanFacts(in))...)
	out := []block{b}
	if hdr, data := tuneSpaceTable(in); len(data) > 0 {
		out = append(out, append(block{subheading("Search space")}, table(hdr, []int{6, 3, 7, 2, 2, 4}, data)...))
	}
	return out
}

package report

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"

	"github.com/xuri/excelize/v2"

	"github.com/llmcap/llmcap/rundir"
)

// The tune report's workbook: Summary (the answer, the launch command, the gain and
// the counts, then page 1's facts and the notes), Trials (one row per trial, every
// field of trials.jsonl, each parameter and objective a column of its own, the server
// log tail last) and Front (the plotted points and the front, with a native scatter
// chart of the front: the main objective against the second).

// Sheet names of the tune workbook.
const (
	SheetTuneSummary = "Summary"
	SheetTuneTrials  = "Trials"
	SheetTuneFront   = "Front"
)

// xlsxMaxCellRunes is the most characters a cell holds (Excel's limit is 32,767).
const xlsxMaxCellRunes = 32000

// tuneStyles are the tune workbook's styles beyond the run workbook's (styles).
type tuneStyles struct {
	styles
	mono, date, label int
}

// writeTuneXLSX writes tune-report.xlsx to path.
func writeTuneXLSX(path string, in *tuneInput) error {
	f, err := buildTuneXLSX(in)
	if err != nil {
		return fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	defer f.Close()
	return rundir.WriteAtomic(path, func(w io.Writer) error {
		_, err := f.WriteTo(w)
		return err
	})
}

// buildTuneXLSX builds the workbook in memory.
func buildTuneXLSX(in *tuneInput) (*excelize.File, error) {
	f := excelize.NewFile()
	if err := f.SetSheetName("Sheet1", SheetTuneSummary); err != nil {
		f.Close()
		return nil, err
	}
	for _, name := range []string{SheetTuneTrials, SheetTuneFront} {
		if _, err := f.NewSheet(name); err != nil {
			f.Close()
			return nil, fmt.Errorf("sheet %s: %w", name, err)
		}
	}
	st, err := newTuneStyles(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("styles: %w", err)
	}
	for _, step := range []func() error{
		func() error { return writeTuneSummarySheet(f, st, in) },
		func() error { return writeTuneTrialsSheet(f, st, in) },
		func() error { return writeTuneFrontSheet(f, st, in) },
	} {
		if err := step(); err != nil {
			f.Close()
			return nil, err
		}
	}
	f.SetActiveSheet(0)
	return f, nil
}

// newTuneStyles registers the workbook's styles.
func newTuneStyles(f *excelize.File) (tuneStyles, error) {
	base, err := newStyles(f)
	if err != nil {
		return tuneStyles{}, err
	}
	st := tuneStyles{styles: base}
	if st.mono, err = f.NewStyle(&excelize.Style{Font: &excelize.Font{Family: "Liberation Mono", Size: 10},
		Fill:      excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{"EEF0F3"}},
		Alignment: &excelize.Alignment{WrapText: true, Vertical: "top"}}); err != nil {
		return st, err
	}
	if st.label, err = f.NewStyle(&excelize.Style{Font: &excelize.Font{Bold: true}, Alignment: &excelize.Alignment{Vertical: "top"}}); err != nil {
		return st, err
	}
	dateFmt := "yyyy-mm-dd hh:mm:ss"
	st.date, err = f.NewStyle(&excelize.Style{CustomNumFmt: &dateFmt})
	return st, err
}

// writeTuneSummarySheet writes the Summary sheet: the answer, the command, the gain and
// counts as numbers, page 1's facts and the notes.
func writeTuneSummarySheet(f *excelize.File, st tuneStyles, in *tuneInput) error {
	sh, r := SheetTuneSummary, in.result
	set := func(cell string, v any, style int) {
		_ = f.SetCellValue(sh, cell, v)
		if style != 0 {
			_ = f.SetCellStyle(sh, cell, cell, style)
		}
	}
	_ = f.SetColWidth(sh, "A", "A", 34)
	_ = f.SetColWidth(sh, "B", "F", 20)
	if err := f.SetCellValue(sh, "A1", tuneTitle(in)); err != nil {
		return fmt.Errorf("summary: %w", err)
	}
	_ = f.SetCellStyle(sh, "A1", "A1", st.title)
	set("A2", tuneDirText(in)+", started "+dateText(in.meta.StartedAt), 0)
	merged := func(row int, v string, style int, fontPt float64) {
		a, z := cellName(1, row, false), cellName(6, row, false)
		set(a, v, style)
		_ = f.MergeCell(sh, a, z)
		_ = f.SetRowHeight(sh, row, wrappedRowHeight(v, tuneSummaryWidth, fontPt))
	}
	merged(3, tuneOr(r.Answer), st.boldWrap, 12)
	set("A5", "Launch command", st.bold)
	merged(6, tuneCommandText(r.Command, r.Env), st.mono, 10)
	row := 8
	for _, kv := range []struct {
		k     string
		v     any
		style int
	}{
		{"Gain over the starting configuration", tuneGainValue(in), st.pct1},
		{"Gain in words", tuneGainText(in), 0},
		{"Trials run", r.Trials, st.int0},
		{"Measured their configuration", r.OK, st.int0},
		{"Failed", r.Trials - r.OK, st.int0},
	} {
		set(cellName(1, row, false), kv.k, st.bold)
		set(cellName(2, row, false), kv.v, kv.style)
		row++
	}
	row++
	set(cellName(1, row, false), "Key facts", st.header)
	set(cellName(2, row, false), "", st.header)
	for _, kv := range tuneSummaryFacts(in) {
		row++
		set(cellName(1, row, false), kv.Key, st.label)
		merged2 := cellName(2, row, false)
		set(merged2, kv.Value, st.wrap)
		_ = f.MergeCell(sh, merged2, cellName(6, row, false))
		_ = f.SetRowHeight(sh, row, wrappedRowHeight(kv.Value, tuneSummaryWidth-34, 11))
	}
	for _, n := range tuneNotes(in) {
		row += 2
		merged(row, "⚠ "+n, st.wrap, 11)
	}
	return fitToPage(f, sh, "A1:"+cellName(6, row, false), false)
}

// tuneSummaryWidth is the width of the Summary's merged rows (A–F), in characters.
const tuneSummaryWidth = 34 + 5*20

// tuneGainValue is the gain as a fraction for a percentage cell, or nil without one.
func tuneGainValue(in *tuneInput) any {
	r := in.result
	if r.Baseline < 0 || r.Recommended < 0 {
		return nil
	}
	return r.GainOverBaseline
}

// tuneTrialColumn is one column of the Trials sheet: its header, style, width and
// the cell of a trial.
type tuneTrialColumn struct {
	header string
	style  int
	width  float64
	cell   func(t *rundir.Trial) any
}

// tuneTrialColumns are the Trials sheet's columns: every field of a trial, each
// parameter and objective its own column, the server log tail last.
func tuneTrialColumns(in *tuneInput, st tuneStyles) []tuneTrialColumn {
	mark := func(m string) func(t *rundir.Trial) any {
		return func(t *rundir.Trial) any { return yesNo(slices.Contains(tuneMarks(in, t), m)) }
	}
	cols := []tuneTrialColumn{
		{"trial", 0, 7, func(t *rundir.Trial) any { return t.Trial }},
		{"generation", 0, 10, func(t *rundir.Trial) any { return t.Generation }},
		{"baseline", 0, 9, mark("baseline")}, {"recommended", 0, 12, mark("recommended")}, {"front", 0, 7, mark("front")},
		{"status", 0, 8, func(t *rundir.Trial) any { return t.Status }},
	}
	for _, p := range in.params {
		cols = append(cols, tuneTrialColumn{p, 0, max(10, float64(len(p))+2), func(t *rundir.Trial) any { return t.Params[p] }})
	}
	for _, o := range in.objectives {
		cols = append(cols, tuneTrialColumn{tuneMetricHeader(in, o.Metric), st.num2, 16, func(t *rundir.Trial) any {
			if v, ok := tuneObjective(t, o.Metric); ok {
				return v
			}
			return nil
		}})
	}
	return append(cols, tuneFieldColumns(in, st)...)
}

// tuneFieldColumns are the Trials sheet's columns after the objectives.
func tuneFieldColumns(in *tuneInput, st tuneStyles) []tuneTrialColumn {
	num := func(v float64) any {
		if !finite(v) {
			return nil
		}
		return v
	}
	return []tuneTrialColumn{
		{"capacity (" + in.capacityMetric() + ")", st.num2, 12, func(t *rundir.Trial) any { return num(t.Capacity) }},
		{"capacity method", 0, 14, func(t *rundir.Trial) any { return t.CapacityMethod }},
		{"range low", st.num2, 10, func(t *rundir.Trial) any { return num(t.RangeLow) }},
		{"range high", st.num2, 10, func(t *rundir.Trial) any { return num(t.RangeHigh) }},
		{"bottleneck", 0, 12, func(t *rundir.Trial) any { return t.Bottleneck }},
		{"abandoned", 0, 10, func(t *rundir.Trial) any { return yesNo(t.Abandoned) }},
		{"search steps", st.int0, 8, func(t *rundir.Trial) any { return t.SearchSteps }},
		{"cold start (s)", st.num1, 10, func(t *rundir.Trial) any { return num(t.ColdStartS) }},
		{"peak RSS (MiB)", st.int0, 10, func(t *rundir.Trial) any { return num(t.PeakRSSMiB) }},
		{"GPU memory (MiB)", st.int0, 10, func(t *rundir.Trial) any { return num(t.GPUMemoryMiB) }},
		{"GPU memory source", 0, 12, func(t *rundir.Trial) any { return t.GPUMemorySource }},
		{"TTFT p95 at target load (ms)", st.ms, 14, func(t *rundir.Trial) any { return num(t.TTFTp95AtTargetMs) }},
		{"cost per user ($ / month)", st.usd2, 12, func(t *rundir.Trial) any { return num(t.CostPerUserMonth) }},
		{"fail class", 0, 10, func(t *rundir.Trial) any { return t.FailClass }},
		{"fail reason", st.wrap, 50, func(t *rundir.Trial) any { return clipRunes(t.FailReason, xlsxMaxCellRunes) }},
		{"started at (UTC)", st.date, 19, func(t *rundir.Trial) any { return t.StartedAt.UTC() }},
		{"wall time (s)", st.num1, 10, func(t *rundir.Trial) any { return num(t.WallS) }},
		{"point", 0, 16, func(t *rundir.Trial) any { return fmt.Sprint(t.Point) }},
		{"command", 0, 60, func(t *rundir.Trial) any { return tuneCommandText(t.Command, t.Env) }},
		{"server_log_tail", 0, 80, func(t *rundir.Trial) any { return tailRunes(t.ServerLogTail, xlsxMaxCellRunes) }},
	}
}

// yesNo is a flag as the workbook shows it ("yes" or "no": a filter lists both).
func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// tailRunes is the last n runes of s.
func tailRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[len(r)-n:])
}

// writeTuneTrialsSheet writes one row per trial, header frozen and filtered.
func writeTuneTrialsSheet(f *excelize.File, st tuneStyles, in *tuneInput) error {
	sh := SheetTuneTrials
	cols := tuneTrialColumns(in, st)
	hdr := make([]any, len(cols))
	for i, c := range cols {
		hdr[i] = c.header
		col, _ := excelize.ColumnNumberToName(i + 1)
		_ = f.SetColWidth(sh, col, col, c.width)
	}
	if err := f.SetSheetRow(sh, "A1", &hdr); err != nil {
		return fmt.Errorf("trials header: %w", err)
	}
	_ = f.SetCellStyle(sh, "A1", cellName(len(cols), 1, false), st.header)
	for i := range in.trials {
		t := &in.trials[i]
		row := make([]any, len(cols))
		for j, c := range cols {
			row[j] = c.cell(t)
		}
		if err := f.SetSheetRow(sh, cellName(1, i+2, false), &row); err != nil {
			return fmt.Errorf("trial %d: %w", t.Trial, err)
		}
		for j, c := range cols {
			if c.style != 0 {
				cell := cellName(j+1, i+2, false)
				_ = f.SetCellStyle(sh, cell, cell, c.style)
			}
		}
	}
	last := cellName(len(cols), max(2, len(in.trials)+1), false)
	if err := f.AutoFilter(sh, "A1:"+last, nil); err != nil {
		return fmt.Errorf("trials filter: %w", err)
	}
	if err := f.SetPanes(sh, &excelize.Panes{Freeze: true, XSplit: 1, YSplit: 1, TopLeftCell: "B2", ActivePane: "bottomRight"}); err != nil {
		return fmt.Errorf("trials panes: %w", err)
	}
	return printTable(f, sh)
}

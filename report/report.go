// Package report renders an Analysis (and the run directory's records) into the
// outputs people read: PDF, HTML, XLSX, charts, JSON, Markdown and CSV, one file per format.
//
// Write reads everything it needs from the run directory (records.jsonl,
// server-metrics.jsonl, run.json) plus the Analysis, so a report can be regenerated
// from a run directory alone. The output is reproducible: dates come from the run
// (run.json's started_at, else the first record), never from the wall clock.
package report

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"

	"github.com/llmcap/llmcap/analysis"
)

// Formats are the accepted report formats.
var Formats = []string{"pdf", "html", "xlsx", "charts", "json", "md", "csv"}

// Output file names inside the run directory.
const (
	FilePDF      = "report.pdf"
	FileHTML     = "report.html"
	FileXLSX     = "report.xlsx"
	FileJSON     = "report.json"
	FileMarkdown = "summary.md"
	FileStepsCSV = "steps.csv"
	DirCharts    = "charts"
)

// formatOutputs are the files each format writes, relative to the run directory (the
// charts' as a filepath.Glob pattern).
var formatOutputs = map[string][]string{
	"pdf": {FilePDF}, "html": {FileHTML}, "charts": {filepath.Join(DirCharts, "*")},
	"json": {FileJSON}, "md": {FileMarkdown}, "csv": {FileStepsCSV}, "xlsx": {FileXLSX, FileRecordsCSV},
}

// removeStaleTemps removes the temporary files that a killed earlier report left next to
// the outputs of the formats in want (rundir.RemoveTemps), so none outlives the next
// report. Errors: one that could not be removed.
func removeStaleTemps(dir string, want map[string]bool) error {
	for f := range want {
		for _, p := range formatOutputs[f] {
			if _, err := rundir.RemoveTemps(filepath.Join(dir, p)); err != nil {
				return fmt.Errorf("report %s: %w", f, err)
			}
		}
	}
	return nil
}

// Write renders a into the run directory dir in each of formats (nil = all). It reads
// records.jsonl and server-metrics.jsonl from dir when present (both are optional: the
// Requests sheet, records.csv, the CDF and the server charts are then empty or left
// out). It returns an error naming the format that failed; an unknown format is an
// error before anything is read or written. It first removes the temporary files a
// killed earlier report left next to the files it writes (rundir.RemoveTemps). Write is
// Load then Source.Write.
func Write(dir string, a *analysis.Analysis, formats []string) error {
	if _, err := normaliseFormats(formats); err != nil {
		return err
	}
	s, err := Load(dir, a)
	if err != nil {
		return err
	}
	return s.Write(formats)
}

// Source is a run directory read for its reports (Load): the analysis, the server
// metrics and what one streamed pass over records.jsonl keeps (request counts per step,
// the first send, the CDF charts' TTFT values), never every record. Several formats,
// also from concurrent Write calls, render from one Source.
type Source struct {
	in *input
	// workbookElsewhere: a concurrent Write call writes "xlsx", and with it records.csv
	// (ExpectWorkbook), so a Write of "csv" alone leaves records.csv to it.
	workbookElsewhere bool
}

// ExpectWorkbook tells s that another, concurrent Write call writes the "xlsx" format
// (and records.csv with it), so that a Write of "csv" without "xlsx" does not write
// records.csv a second time. Call it before any Write.
func (s *Source) ExpectWorkbook() { s.workbookElsewhere = true }

// SetXLSXMaxRows overrides run.json's report.xlsx_max_rows for the Requests sheet
// (n ≤ 0: the default, plan.DefaultXLSXMaxRows; at most plan.MaxXLSXRows). Call it
// before any Write.
func (s *Source) SetXLSXMaxRows(n int) { s.in.xlsxMaxRows = xlsxRowLimit(n) }

// Load reads dir's optional files next to the analysis a for Source.Write, streaming
// records.jsonl once. Errors: a is nil, dir is not a directory, or a file is unreadable.
func Load(dir string, a *analysis.Analysis) (*Source, error) {
	if a == nil {
		return nil, errors.New("report: nil analysis")
	}
	in, err := loadInput(dir, a)
	if err != nil {
		return nil, err
	}
	return &Source{in: in}, nil
}

// Write renders the Source into its run directory in each of formats (nil = all); see
// the package-level Write. The workbook and records.csv ("xlsx") read records.jsonl
// once more, streamed, in one pass; "csv" without "xlsx" (and without ExpectWorkbook)
// writes records.csv next to steps.csv, from a pass of its own.
func (s *Source) Write(formats []string) error {
	want, err := normaliseFormats(formats)
	if err != nil {
		return err
	}
	if err := removeStaleTemps(s.in.dir, want); err != nil {
		return err
	}
	recordsByCSV := want["csv"] && !want["xlsx"] && !s.workbookElsewhere
	if recordsByCSV {
		if _, err := rundir.RemoveTemps(filepath.Join(s.in.dir, FileRecordsCSV)); err != nil {
			return fmt.Errorf("report csv: %w", err)
		}
	}
	in, dir := s.in, s.in.dir
	// The workbook (dominated by the Requests sheet) needs no charts: build it, and
	// records.csv from the same pass, on another core while the charts and the PDF
	// are rendered.
	xlsxErr := make(chan error, 1)
	if want["xlsx"] {
		go func() { xlsxErr <- writeXLSXAndRecordsCSV(dir, in) }()
	} else {
		xlsxErr <- nil
	}
	err = writeRendered(dir, in, want)
	if err == nil && recordsByCSV {
		if err = writeRecordsCSV(dir, in); err != nil {
			err = fmt.Errorf("report csv: %w", err)
		}
	}
	if xerr := <-xlsxErr; xerr != nil && err == nil {
		err = fmt.Errorf("report xlsx: %w", xerr)
	}
	return err
}

// writeRendered writes the charts and every format except xlsx (the charts are built
// once, for the charts directory, the PDF and the HTML report alike).
func writeRendered(dir string, in *input, want map[string]bool) error {
	var charts []Chart
	if want["charts"] || want["pdf"] || want["html"] {
		charts = buildCharts(in)
	}
	if want["charts"] {
		if err := writeCharts(filepath.Join(dir, DirCharts), charts); err != nil {
			return fmt.Errorf("report charts: %w", err)
		}
	}
	files := chartFiles(want["charts"], charts)
	writers := []struct {
		format string
		fn     func() error
	}{
		{"pdf", func() error { return writePDF(filepath.Join(dir, FilePDF), in, charts) }},
		{"html", func() error { return writeHTML(filepath.Join(dir, FileHTML), in, charts) }},
		{"json", func() error { return writeJSON(filepath.Join(dir, FileJSON), in, files) }},
		{"md", func() error { return writeMarkdown(filepath.Join(dir, FileMarkdown), in, files) }},
		{"csv", func() error { return writeStepsCSV(filepath.Join(dir, FileStepsCSV), in) }},
	}
	for _, w := range writers {
		if !want[w.format] {
			continue
		}
		if err := w.fn(); err != nil {
			return fmt.Errorf("report %s: %w", w.format, err)
		}
	}
	return nil
}

// normaliseFormats turns a format list into a set; nil or empty means all formats.
func normaliseFormats(formats []string) (map[string]bool, error) {
	return formatSet(formats, Formats, "report", map[string]string{"markdown": "md"})
}

// formatSet turns a format list into a set of allowed's (case and spaces ignored,
// aliases mapped); nil or empty means every one. Errors, labelled: an unknown format.
func formatSet(formats, allowed []string, label string, aliases map[string]string) (map[string]bool, error) {
	if len(formats) == 0 {
		formats = allowed
	}
	want := map[string]bool{}
	for _, f := range formats {
		f = strings.ToLower(strings.TrimSpace(f))
		if a, ok := aliases[f]; ok {
			f = a
		}
		if !slices.Contains(allowed, f) {
			return nil, fmt.Errorf("%s: unknown format %q (want one of %s)", label, f, strings.Join(allowed, ", "))
		}
		want[f] = true
	}
	return want, nil
}

// input is everything a report is rendered from.
type input struct {
	dir string
	a   *analysis.Analysis
	// hasRecords is whether records.jsonl exists; requests is what one streamed pass
	// over it kept (readRequestStats): no report holds every record.
	hasRecords bool
	requests   requestStats
	metrics    []rundir.MetricSample
	// date is the run's start (run.json, else the first record); zero when unknown.
	date time.Time
	// xlsxMaxRows is the most request rows of the Requests sheet (plan report.xlsx_max_rows).
	xlsxMaxRows int
}

// loadInput reads the optional run-directory files next to the analysis; records.jsonl
// is streamed once (readRequestStats), and read again by the formats that write a row
// per request (the Requests sheet, records.csv).
func loadInput(dir string, a *analysis.Analysis) (*input, error) {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("report: run directory %q: not a directory", dir)
	}
	meta, metaErr := rundir.ReadMeta(dir)
	limit := 0
	if metaErr == nil {
		limit = meta.Plan.Report.XLSXMaxRows
	}
	in := &input{dir: dir, a: a, requests: newRequestStats(), xlsxMaxRows: xlsxRowLimit(limit)}
	var err error
	if _, statErr := os.Stat(filepath.Join(dir, rundir.FileRecords)); statErr == nil {
		in.hasRecords = true
		if in.requests, err = readRequestStats(dir, a); err != nil {
			return nil, err
		}
	}
	if in.metrics, _, err = rundir.ReadMetrics(dir); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	in.date = runDate(meta, in.requests.firstSentNs)
	return in, nil
}

// xlsxRowLimit is the Requests sheet's row limit for run.json's report.xlsx_max_rows
// (v): the default for 0 or less, at most plan.MaxXLSXRows (run.json is not
// validated again, and a larger limit would write a sheet longer than Excel's).
func xlsxRowLimit(v int) int {
	if v <= 0 {
		return plan.DefaultXLSXMaxRows
	}
	return min(v, plan.MaxXLSXRows)
}

// chartFiles lists the chart files (relative to the run directory) when they were written.
func chartFiles(written bool, charts []Chart) []string {
	if !written {
		return nil
	}
	var out []string
	for _, c := range charts {
		out = append(out, filepath.ToSlash(filepath.Join(DirCharts, c.Name+".svg")),
			filepath.ToSlash(filepath.Join(DirCharts, c.Name+".png")))
	}
	return out
}

package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/llmcap/llmcap/analysis"
	"github.com/llmcap/llmcap/report"
)

// renderGroups are the report formats rendered together, in order: the cheap text
// outputs first, then the charts with the PDF and the HTML report (which embed them). The workbook is
// rendered alongside them on another goroutine.
var renderGroups = [][]string{{"json", "md", "csv"}, {"charts", "pdf", "html"}}

// formatPaths are the outputs each report format writes in the run directory.
var formatPaths = map[string][]string{
	"json": {report.FileJSON}, "md": {report.FileMarkdown}, "csv": {report.FileStepsCSV},
	"charts": {report.DirCharts}, "pdf": {report.FilePDF}, "html": {report.FileHTML}, "xlsx": {report.FileXLSX, report.FileRecordsCSV},
}

// renderReport writes the report formats of dir (nil = all), honouring Ctrl-C between
// formats: after a signal it starts nothing new, finishes what is being written (a
// second Ctrl-C abandons it: exit 130, the partly written files removed), says which
// formats were written and returns an exit status 130 error — or nil when every format
// was written all the same.
func renderReport(ctx context.Context, w io.Writer, dir string, a *analysis.Analysis, formats []string) error {
	in := newInterrupter(ctx, os.Stderr)
	defer in.close()
	return in.render(dir, a, formats, renderOptions{})
}

// renderOptions are the report settings a command's flags give over run.json's plan.
type renderOptions struct {
	// xlsxMaxRows overrides report.xlsx_max_rows (0: the plan's).
	xlsxMaxRows int
}

// render is renderReport under the interrupter in.
func (in *interrupter) render(dir string, a *analysis.Analysis, formats []string, opts renderOptions) error {
	formats = normaliseFormats(formats)
	want := map[string]bool{}
	for _, f := range formats {
		want[f] = true
	}
	// records.jsonl is streamed once for every format (report.Load), then once more for
	// the workbook's rows.
	src, err := report.Load(dir, a)
	if err != nil {
		return fmt.Errorf("report %s: %w", dir, err)
	}
	if opts.xlsxMaxRows != 0 {
		src.SetXLSXMaxRows(opts.xlsxMaxRows)
	}
	var written []string
	xlsx := make(chan error, 1)
	xlsxStarted := want["xlsx"] && in.ctx.Err() == nil
	if xlsxStarted {
		src.ExpectWorkbook()
		end := in.start(report.FileXLSX, formatFiles(dir, "xlsx")...)
		go func() {
			defer end()
			xlsx <- src.Write([]string{"xlsx"})
		}()
	} else {
		xlsx <- nil
	}
	for _, g := range renderGroups {
		var these []string
		for _, f := range g {
			if want[f] {
				these = append(these, f)
			}
		}
		if len(these) == 0 || err != nil || in.ctx.Err() != nil {
			continue
		}
		files := formatFiles(dir, these...)
		if want["csv"] && !want["xlsx"] && slices.Contains(these, "csv") { // records.csv goes with csv
			files = append(files, filepath.Join(dir, report.FileRecordsCSV))
		}
		end := in.start(groupName(these), files...)
		if err = src.Write(these); err == nil {
			written = append(written, these...)
		}
		end()
	}
	if xerr := <-xlsx; xerr != nil && err == nil {
		err = xerr
	} else if xerr == nil && xlsxStarted {
		written = append(written, "xlsx")
	}
	if err != nil {
		return fmt.Errorf("report %s: %w", dir, err)
	}
	return interruptedRender(in.ctx, dir, formats, written)
}

// interruptedRender is nil unless ctx was cancelled before every format was written;
// then it is the exit-130 error naming what was and was not written.
func interruptedRender(ctx context.Context, dir string, formats, written []string) error {
	if ctx.Err() == nil {
		return nil
	}
	var missing []string
	for _, f := range formats {
		if !slices.Contains(written, f) {
			missing = append(missing, f)
		}
	}
	if len(missing) == 0 {
		fmt.Fprintf(os.Stderr, "interrupted, but every report format was written (%s)\n", listOr(written))
		return nil
	}
	return &exitError{code: 130, err: fmt.Errorf("interrupted while rendering the report in %s: written %s; not written %s "+
		"(render them with: llmcap report %s --format %s)", dir, listOr(written), listOr(missing),
		shellQuote(dir), strings.Join(missing, ","))}
}

// normaliseFormats lower-cases formats and reads "markdown" as "md"; none means all.
func normaliseFormats(formats []string) []string {
	if len(formats) == 0 {
		formats = report.Formats
	}
	norm := make([]string, 0, len(formats))
	for _, f := range formats {
		f = strings.ToLower(strings.TrimSpace(f))
		if f == "markdown" {
			f = "md"
		}
		norm = append(norm, f)
	}
	return norm
}

// formatFiles are the output paths of formats in dir.
func formatFiles(dir string, formats ...string) []string {
	var out []string
	for _, f := range formats {
		for _, p := range formatPaths[f] {
			out = append(out, filepath.Join(dir, p))
		}
	}
	return out
}

// groupName names a group of formats being written, by their files.
func groupName(formats []string) string {
	var names []string
	for _, f := range formats {
		names = append(names, formatPaths[f]...)
	}
	return strings.Join(names, ", ")
}

// analyzeInterruptible runs analyzeDir (which cannot stop midway) under in: after a
// first Ctrl-C during it, analysis.json is still written, then it returns the exit-130
// error; a second Ctrl-C abandons at once.
func (in *interrupter) analyzeInterruptible(w io.Writer, dir string) (*analysis.Analysis, error) {
	end := in.start("the analysis ("+analysis.FileAnalysis+")", filepath.Join(dir, analysis.FileAnalysis))
	a, err := analyzeDir(w, dir)
	end()
	if err != nil {
		return nil, err
	}
	if in.ctx.Err() != nil {
		return nil, &exitError{code: 130, err: fmt.Errorf("interrupted after the analysis: %s written, no report "+
			"format written (render them with: llmcap report %s)", filepath.Join(dir, analysis.FileAnalysis), shellQuote(dir))}
	}
	return a, nil
}

func listOr(l []string) string {
	if len(l) == 0 {
		return "none"
	}
	return strings.Join(l, ", ")
}

package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/llmcap/llmcap/analysis"
	"github.com/llmcap/llmcap/report"
)

// renderGroups are the report formats rendered together, in order: the cheap text
// outputs first, then the charts with the PDF (which embeds them). The workbook is
// rendered alongside them on another goroutine.
var renderGroups = [][]string{{"json", "md", "csv"}, {"charts", "pdf"}}

// renderReport writes the report formats of dir (nil = all), honouring Ctrl-C between
// groups of formats: after a signal it starts nothing new, waits for what is being
// written (a second Ctrl-C kills), says which formats were written and returns an
// exit status 130 error.
func renderReport(ctx context.Context, w io.Writer, dir string, a *analysis.Analysis, formats []string) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	want := map[string]bool{}
	if len(formats) == 0 {
		formats = report.Formats
	}
	norm := make([]string, 0, len(formats))
	for _, f := range formats {
		f = strings.ToLower(strings.TrimSpace(f))
		if f == "markdown" {
			f = "md"
		}
		want[f] = true
		norm = append(norm, f)
	}
	formats = norm
	var written []string
	xlsx := make(chan error, 1)
	xlsxStarted := want["xlsx"] && ctx.Err() == nil
	if xlsxStarted {
		go func() { xlsx <- report.Write(dir, a, []string{"xlsx"}) }()
	} else {
		xlsx <- nil
	}
	var err error
	for _, g := range renderGroups {
		var these []string
		for _, f := range g {
			if want[f] {
				these = append(these, f)
			}
		}
		if len(these) == 0 || err != nil || ctx.Err() != nil {
			continue
		}
		if err = report.Write(dir, a, these); err == nil {
			written = append(written, these...)
		}
	}
	if ctx.Err() != nil && xlsxStarted {
		stop() // a second Ctrl-C now ends the process
		fmt.Fprintln(os.Stderr, "interrupted: finishing report.xlsx (Ctrl-C again to abandon it)")
	}
	if xerr := <-xlsx; xerr != nil && err == nil {
		err = xerr
	} else if xerr == nil && xlsxStarted {
		written = append(written, "xlsx")
	}
	if err != nil {
		return fmt.Errorf("report %s: %w", dir, err)
	}
	if ctx.Err() != nil {
		var missing []string
		for _, f := range formats {
			if !slices.Contains(written, f) {
				missing = append(missing, f)
			}
		}
		return &exitError{code: 130, err: fmt.Errorf("interrupted while rendering the report in %s: written %s; not written %s "+
			"(render them with: llmcap report %s --format %s)", dir, listOr(written), listOr(missing), dir, strings.Join(missing, ","))}
	}
	return nil
}

func listOr(l []string) string {
	if len(l) == 0 {
		return "none"
	}
	return strings.Join(l, ", ")
}

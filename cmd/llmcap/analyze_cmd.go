package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"

	"github.com/spf13/cobra"

	"github.com/llmcap/llmcap/analysis"
	"github.com/llmcap/llmcap/report"
)

func newAnalyzeCmd(_ *globals) *cobra.Command {
	var baseline string
	cmd := &cobra.Command{
		Use:     "analyze RUN_DIR",
		Short:   "Analyse a run directory: write analysis.json and print the summary",
		Example: "  llmcap analyze runs/20261130-152000-demo\n  llmcap analyze runs/today --baseline runs/last-week",
		Args:    oneRunDir("analyze"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := noOut(cmd, "analyze", args[0]); err != nil {
				return err
			}
			if _, err := analyzeDirWith(cmd.OutOrStdout(), args[0], baseline); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "\nwrote %s\n", filepath.Join(args[0], analysis.FileAnalysis))
			return nil
		},
	}
	cmd.Flags().StringVar(&baseline, "baseline", "", "another run directory to compare the drift probe's outputs with (docs/drift.md)")
	return cmd
}

func newReportCmd(g *globals) *cobra.Command {
	var formats []string
	var xlsxMaxRows int
	cmd := &cobra.Command{
		Use:   "report RUN_DIR",
		Short: "Render a run directory's analysis as PDF, XLSX, charts, JSON, Markdown and CSV",
		Long: `report reads DIR/analysis.json and writes each format into DIR (for a tune directory,
one holding tune.json, it writes the tune report: tune-report.*). It runs the analysis
first when analysis.json is missing or stale (older than records.jsonl, steps.jsonl or
run.json, e.g. after llmcap sweep --resume, or recorded for another run state).
Without --format it uses the plan's report.formats.`,
		Example: "  llmcap report runs/demo\n  llmcap report runs/demo --format pdf,xlsx",
		Args:    oneRunDir("report"),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := args[0]
			if err := noOut(cmd, "report", dir); err != nil {
				return err
			}
			if fileExists(filepath.Join(dir, rundir.FileTune)) {
				return reportTune(cmd, dir, formats)
			}
			if xlsxMaxRows < 0 || xlsxMaxRows > plan.MaxXLSXRows {
				return usageErr(fmt.Errorf("--xlsx-max-rows %d: want 1..%d (Excel holds 1,048,576 rows per sheet)", xlsxMaxRows, plan.MaxXLSXRows))
			}
			want := formats
			if len(want) == 0 {
				want = runFormats(dir)
			}
			want, err := checkFormats(want)
			if err != nil && len(formats) > 0 {
				return usageErr(err) // a bad --format
			} else if err != nil {
				return err
			}
			in := newInterrupter(cmd.Context(), cmd.ErrOrStderr())
			defer in.close()
			a, err := reportAnalysis(g, in, cmd.OutOrStdout(), dir)
			if err != nil {
				return err
			}
			if err := in.render(dir, a, want, renderOptions{xlsxMaxRows: xlsxMaxRows}); err != nil {
				return err
			}
			printOutputs(cmd.OutOrStdout(), dir)
			return nil
		},
	}
	cmd.Flags().StringSliceVar(&formats, "format", nil, "formats to write: "+strings.Join(report.Formats, ","))
	cmd.Flags().IntVar(&xlsxMaxRows, "xlsx-max-rows", 0, fmt.Sprintf("most request rows on the workbook's Requests sheet, over the plan's report.xlsx_max_rows (1..%d; records.csv keeps every row)", plan.MaxXLSXRows))
	return cmd
}

// noOut refuses -o/--out for a command that writes into the run directory itself:
// the outputs are found (and kept current) next to the run's files; a run directory
// that cannot be written is copied first.
func noOut(cmd *cobra.Command, verb, dir string) error {
	f := cmd.Flags().Lookup("out")
	if f == nil || !f.Changed {
		return nil
	}
	return usageErr(fmt.Errorf("%s writes into the run directory %s; -o/--out %s is not supported here "+
		"(to write elsewhere, e.g. from a read-only run directory, copy it first: cp -r %s %s && llmcap %s %s)",
		verb, dir, f.Value.String(), shellQuote(dir), shellQuote(f.Value.String()), verb, shellQuote(f.Value.String())))
}

// oneRunDir requires exactly one argument, the run directory, with a usage line.
func oneRunDir(name string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) != 1 {
			return fmt.Errorf("usage: llmcap %s RUN_DIR (a run directory written by llmcap run or llmcap sweep)", name)
		}
		return nil
	}
}

// runFormats returns report.formats from dir/run.json's plan, or nil (all formats).
func runFormats(dir string) []string {
	meta, err := rundir.ReadMeta(dir)
	if err != nil {
		return nil
	}
	return meta.Plan.Report.Formats
}

// checkFormats normalises formats (lower case, "markdown" → "md") and rejects one
// report does not know, naming the allowed ones, before anything is analysed or written.
func checkFormats(formats []string) ([]string, error) {
	out := make([]string, 0, len(formats))
	for _, f := range formats {
		n := strings.ToLower(strings.TrimSpace(f))
		if n == "markdown" {
			n = "md"
		}
		if !slices.Contains(report.Formats, n) {
			return nil, fmt.Errorf("--format %q is not allowed: must be one of %s", f, strings.Join(report.Formats, ", "))
		}
		out = append(out, n)
	}
	return out, nil
}

// reportAnalysis reads dir's analysis.json, re-running the analysis (and saying why in
// one log line) when it is missing or stale. Its errors name dir: the analysis's do,
// a file error (*fs.PathError) names its path, others get "report DIR: ".
func reportAnalysis(g *globals, in *interrupter, w io.Writer, dir string) (*analysis.Analysis, error) {
	a, err := analysis.ReadJSON(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return in.analyzeInterruptible(w, dir)
	}
	if pe := (*fs.PathError)(nil); err != nil && !errors.As(err, &pe) {
		return nil, fmt.Errorf("report %s: %w", dir, err)
	}
	if err != nil {
		return nil, err
	}
	if why := staleAnalysis(dir, a); why != "" {
		g.log.Info("re-analysing the run: analysis.json is stale", "dir", dir, "reason", why)
		return in.analyzeInterruptible(w, dir)
	}
	return a, nil
}

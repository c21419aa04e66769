package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/llmcap/llmcap/analysis"
	"github.com/llmcap/llmcap/compare"
	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/report"
	"github.com/llmcap/llmcap/rundir"
)

// compareFlags are llmcap compare's own flags.
type compareFlags struct {
	labels  []string // --labels: one per run directory
	sla     []string // --sla KEY=VALUE: one SLA for every run
	formats []string // --format: the comparison report's formats
}

func newCompareCmd(g *globals) *cobra.Command {
	var f compareFlags
	cmd := &cobra.Command{
		Use:   "compare RUN_DIR RUN_DIR... -o DIR",
		Short: "Compare runs: what differs in their plans, capacity within the SLA, deltas at common loads, a verdict",
		Long: `compare reads two or more run directories (the first is the baseline) and writes one
comparison report into DIR: compare.json, compare.md, compare.html, compare.pdf,
compare.xlsx and charts/compare-* (--format picks some of them).
It shows what differs between the runs' resolved plans, each run's capacity within the
SLA with its range, bottleneck, users and cost, a delta table at the loads every run
measured (TTFT p50/p95, ITL p95, output throughput, goodput; each difference's 95%
bootstrap interval, marked significant or noise), a one-sentence verdict and, when two
or more runs have the output-drift probe (drift.jsonl), how many of their temperature-0
outputs match the baseline's and their own repeats. Each run's
analysis.json is used, re-run first when missing or stale (as llmcap report does).
Runs judged under different SLAs are refused unless --sla gives one: the baseline's SLA
with these keys set (like --set), under which every run is re-analysed without
rewriting its analysis.json. See docs/compare.md.`,
		Example: "  llmcap compare runs/seqs-32 runs/seqs-128 -o runs/seqs-compare --labels 32,128\n" +
			"  llmcap compare runs/a runs/b -o cmp --sla sla.ttft_ms.p95=800",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) < 2 {
				return fmt.Errorf("usage: llmcap compare RUN_DIR RUN_DIR... -o DIR (at least two run directories, the first the baseline)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return g.compare(cmd, args, f) },
	}
	cmd.Flags().StringSliceVar(&f.labels, "labels", nil, "the runs' names in tables and the verdict, one per run directory (default: each directory's base name)")
	cmd.Flags().StringArrayVar(&f.sla, "sla", nil, "judge every run under one SLA: the baseline's with this key set, e.g. --sla sla.ttft_ms.p95=800 (repeatable)")
	cmd.Flags().StringSliceVar(&f.formats, "format", nil, "formats to write, comma-separated: "+strings.Join(report.CompareFormats, ",")+" (default: all)")
	return cmd
}

// compare runs llmcap compare on the run directories dirs.
func (g *globals) compare(cmd *cobra.Command, dirs []string, f compareFlags) error {
	out := g.v.GetString("out")
	if out == "" {
		return usageErr(fmt.Errorf("compare: -o DIR is required: the directory the comparison report is written to"))
	}
	if err := checkCompareOut(out, dirs); err != nil {
		return usageErr(err)
	}
	if err := report.CheckCompareFormats(f.formats); err != nil {
		return usageErr(fmt.Errorf("--format: %w", err))
	}
	labels, err := compareLabels(dirs, f.labels)
	if err != nil {
		return usageErr(err)
	}
	ov := map[string]any{}
	for _, kv := range f.sla {
		k, v, err := plan.ParseSet(kv)
		if err != nil {
			return usageErr(fmt.Errorf("--sla: %w", err))
		}
		ov[k] = v
	}
	inputs, err := g.compareInputs(cmd, dirs, labels, ov)
	if err != nil {
		return err
	}
	c, err := compare.Compare(inputs, compare.Options{SLAOverridden: len(ov) > 0})
	if err != nil {
		return err
	}
	written, werr := report.WriteCompare(out, c, f.formats)
	if err := report.PrintCompare(cmd.OutOrStdout(), c); err != nil {
		return fmt.Errorf("compare: print: %w", err)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "\nwrote %d files in %s: %s\n", len(written), out, strings.Join(baseNames(out, written), ", "))
	return werr
}

// compareInputs are the runs with their analyses: each run's own (analysis.json,
// re-analysed when missing or stale, as llmcap report does) when ov is empty and the
// runs' SLAs agree; with --sla overrides ov every run analysed anew under the
// baseline's SLA with ov applied (nothing written).
func (g *globals) compareInputs(cmd *cobra.Command, dirs, labels []string, ov map[string]any) ([]compare.Input, error) {
	slas := make([]plan.SLA, len(dirs))
	for i, d := range dirs {
		meta, err := rundir.ReadMeta(d)
		if err != nil {
			return nil, fmt.Errorf("compare %s: %w", d, err)
		}
		slas[i] = meta.Plan.SLA
	}
	inputs := make([]compare.Input, len(dirs))
	if len(ov) > 0 {
		spec, err := compare.ResolveSLA(slas[0], ov)
		if err != nil {
			return nil, usageErr(err)
		}
		for i, d := range dirs {
			a, err := analysis.AnalyzeUnder(d, spec)
			if err != nil {
				return nil, err
			}
			inputs[i] = compare.Input{Label: labels[i], Dir: d, Analysis: a}
		}
		return inputs, nil
	}
	if err := compare.CheckSLA(labels, slas); err != nil {
		return nil, err
	}
	in := newInterrupter(cmd.Context(), cmd.ErrOrStderr())
	defer in.close()
	for i, d := range dirs {
		a, err := reportAnalysis(g, in, io.Discard, d)
		if err != nil {
			return nil, err
		}
		inputs[i] = compare.Input{Label: labels[i], Dir: d, Analysis: a}
	}
	return inputs, nil
}

// compareLabels are --labels (one per directory, all different), else each
// directory's base name (the path as given when two base names are the same).
func compareLabels(dirs, given []string) ([]string, error) {
	if len(given) > 0 {
		if len(given) != len(dirs) {
			return nil, fmt.Errorf("--labels gives %d labels for %d run directories: give one per run directory", len(given), len(dirs))
		}
		seen := map[string]bool{}
		out := make([]string, len(given))
		for i, l := range given {
			l = strings.TrimSpace(l)
			if l == "" || seen[l] {
				return nil, fmt.Errorf("--labels %s: each label must be non-empty and different", strings.Join(given, ","))
			}
			seen[l] = true
			out[i] = l
		}
		return out, nil
	}
	labels := make([]string, len(dirs))
	seen := map[string]int{}
	for i, d := range dirs {
		labels[i] = filepath.Base(filepath.Clean(d))
		seen[labels[i]]++
	}
	for i, d := range dirs {
		if seen[labels[i]] > 1 {
			labels[i] = d
		}
	}
	paths := map[string]bool{}
	for _, l := range labels {
		if paths[l] {
			return nil, fmt.Errorf("run directory %s is given twice, so two runs would have the label %q; labels must differ: pass one label per run, e.g. --labels %s",
				l, l, exampleLabels(len(dirs)))
		}
		paths[l] = true
	}
	return labels, nil
}

// exampleLabels is an example --labels value for n runs ("a,b,c").
func exampleLabels(n int) string {
	l := make([]string, n)
	for i := range l {
		l[i] = string(rune('a' + i%26))
	}
	return strings.Join(l, ",")
}

// checkCompareOut refuses an -o that is a run directory (it holds run.json) or one of
// the run directories compared: the report's files would be written among a run's.
func checkCompareOut(out string, dirs []string) error {
	if _, err := os.Stat(filepath.Join(out, rundir.FileRun)); err == nil {
		return fmt.Errorf("compare: -o %s is a run directory (it holds %s): give a new or separate directory for the comparison report", out, rundir.FileRun)
	}
	o := samePathKey(out)
	for _, d := range dirs {
		if samePathKey(d) == o {
			return fmt.Errorf("compare: -o %s is the run directory %s being compared: give a new or separate directory for the comparison report", out, d)
		}
	}
	return nil
}

// samePathKey is p made absolute, cleaned and, when it exists, with its links
// resolved, so that two spellings of one directory compare equal.
func samePathKey(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		p = real
	}
	return filepath.Clean(p)
}

// baseNames are paths relative to dir.
func baseNames(dir string, paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		if rel, err := filepath.Rel(dir, p); err == nil {
			out[i] = rel
		} else {
			out[i] = p
		}
	}
	return out
}

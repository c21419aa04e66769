package main

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/report"
	"github.com/llmcap/llmcap/rundir"
	"github.com/llmcap/llmcap/tune"
)

func newTuneCmd(g *globals) *cobra.Command {
	var resume string
	var formats []string
	cmd := &cobra.Command{
		Use:   "tune",
		Short: "Search the server's parameters for the setting that serves the most users within the SLA",
		Long: `tune launches the server of the plan's tune.launch template once per setting of tune.space
(NSGA-II, a grid or random settings), runs a short capacity search of the plan's workload
and SLA against each, stops it, and appends the trial to DIR/trials.jsonl. It ends with
the recommended setting, its exact launch command and the tune report (tune-report.*).
A server that fails to start or crashes is a failed trial, not a stopped search. Ctrl-C
or a crash keeps every finished trial; --resume DIR continues. See docs/tune.md.`,
		Example: `  llmcap tune -c configs/tune-sim.yaml -o runs/tune-sim
  llmcap tune --resume runs/tune-sim           # continue after Ctrl-C or a crash
  llmcap report runs/tune-sim                  # render the tune report again`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p, dir, err := g.tunePlan(resume)
			if err != nil {
				return err
			}
			return g.tune(cmd, p, dir, resume != "", formats)
		},
	}
	cmd.Flags().StringVar(&resume, "resume", "", "continue the tune in this directory (its plan file, or -c)")
	cmd.Flags().StringSliceVar(&formats, "format", nil, "tune report formats: pdf, html, xlsx, json, charts (default all)")
	return cmd
}

// tunePlan is the plan and directory of `llmcap tune`: -c's plan into -o (or
// runs/<time>-<name>-tune); with --resume DIR and no -c, the plan tune.json keeps (with
// the --set overrides the tune was started with), or -c's plan (tune.Run refuses one
// that differs from it but for the budget and the generations). tune.json masking
// secrets needs -c with the plan file.
func (g *globals) tunePlan(resume string) (*plan.Plan, string, error) {
	if resume == "" || g.v.GetString("config") != "" {
		if resume == "" && g.v.GetString("config") == "" {
			return nil, "", usageErr(errors.New("tune: give the plan with -c (e.g. -c configs/tune-sim.yaml), or --resume DIR"))
		}
		p, err := g.loadPlan()
		if err != nil {
			return nil, "", err
		}
		if p.Tune == nil {
			return nil, "", usageErr(errors.New("tune: the plan has no tune section (see configs/tune-sim.yaml and docs/tune.md)"))
		}
		dir := resume
		if dir == "" {
			dir = g.v.GetString("out")
		}
		if dir == "" {
			dir = filepath.Join("runs", time.Now().Format("20060102-150405")+"-"+p.Name+"-tune")
		}
		return p, dir, nil
	}
	if !fileExists(filepath.Join(resume, rundir.FileTune)) {
		return nil, "", fmt.Errorf("tune --resume %s: not a tune directory (no %s): start one with llmcap tune -c PLAN -o %s",
			resume, rundir.FileTune, shellQuote(resume))
	}
	meta, err := rundir.ReadTuneMeta(resume)
	if err != nil {
		return nil, "", fmt.Errorf("tune --resume: %w", err)
	}
	if len(meta.RedactedFields) > 0 {
		return nil, "", fmt.Errorf("tune --resume %s: tune.json keeps the plan with its secrets masked (%s): pass the plan file "+
			"with -c %s and the same --set overrides", resume, strings.Join(meta.RedactedFields, ", "), shellQuote(meta.PlanFile))
	}
	p := &meta.Plan
	if err := p.ResolveAPIKey(); err != nil {
		return nil, "", fmt.Errorf("tune --resume %s: %w", resume, err)
	}
	if err := p.Validate(); err != nil {
		return nil, "", fmt.Errorf("tune --resume %s: %w", resume, err)
	}
	return p, resume, nil
}

// tune runs the tune with Ctrl-C handling, then writes its report and prints the answer.
// It fails (exit 1) when no trial measured its setting.
func (g *globals) tune(cmd *cobra.Command, p *plan.Plan, dir string, resume bool, formats []string) error {
	if err := report.CheckTuneFormats(formats); err != nil {
		return usageErr(fmt.Errorf("--format: %w", err))
	}
	g.useSecrets(p)
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("tune: find this llmcap for {llmcap}: %w", err)
	}
	planFile := ""
	if c := g.v.GetString("config"); c != "" {
		planFile, _ = filepath.Abs(c)
	}
	build := currentBuild()
	res, err := tune.Run(ctx, p, tune.Options{Dir: dir, Resume: resume, PlanFile: planFile, Executable: exe,
		Version: build.Version, Commit: build.Commit, Logger: g.log})
	if res != nil {
		g.printTune(cmd, dir, res, formats)
	}
	switch {
	case errors.Is(err, tune.ErrInterrupted):
		return &exitError{code: exitInterrupt, err: fmt.Errorf("tune interrupted after %s: continue with: llmcap tune --resume %s",
			plural(res.Trials, "finished trial"), shellQuote(dir))}
	case err != nil:
		return err
	case res.Trials > 0 && res.OK == 0:
		return fmt.Errorf("tune: no trial measured its setting (%s in %s)", plural(res.Trials, "failed trial"), filepath.Join(dir, rundir.FileTrials))
	}
	return nil
}

// printTune writes the tune's report and prints its answer, its notes, the command and
// the files.
func (g *globals) printTune(cmd *cobra.Command, dir string, res *rundir.TuneResult, formats []string) {
	written, rerr := report.WriteTune(dir, formats)
	if rerr != nil {
		g.log.Warn("tune report", "err", rerr)
	}
	out := cmd.OutOrStdout()
	fmt.Fprintln(out, res.Answer)
	for _, n := range res.Notes {
		fmt.Fprintln(out, "note: "+n)
	}
	if len(res.Command) > 0 {
		fmt.Fprintf(out, "command (put your port for {port}): %s\n", tune.CommandLine(res.Env, res.Command))
	}
	fmt.Fprintf(out, "tune directory: %s (%s, %d measured)\n", dir, plural(res.Trials, "trial"), res.OK)
	for _, w := range written {
		fmt.Fprintln(out, w)
	}
}

// reportTune renders the tune directory dir's report (`llmcap report DIR` on a tune
// directory) and lists the files written.
func reportTune(cmd *cobra.Command, dir string, formats []string) error {
	paths, err := report.WriteTune(dir, formats)
	if err != nil {
		return err
	}
	for _, p := range paths {
		fmt.Fprintln(cmd.OutOrStdout(), p)
	}
	return nil
}

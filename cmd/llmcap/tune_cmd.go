package main

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
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
// runs/<time>-<name>-tune); with --resume DIR, -c's plan or else the plan file tune.json
// names, or its stored plan when that file is gone and nothing was masked.
func (g *globals) tunePlan(resume string) (*plan.Plan, string, error) {
	if resume == "" || g.v.GetString("config") != "" {
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
	meta, err := rundir.ReadTuneMeta(resume)
	if err != nil {
		return nil, "", fmt.Errorf("tune --resume: %w", err)
	}
	if meta.PlanFile != "" && fileExists(meta.PlanFile) {
		over, err := g.overrides()
		if err != nil {
			return nil, "", err
		}
		p, err := plan.Load(meta.PlanFile, over)
		if err != nil {
			return nil, "", err
		}
		return p, resume, nil
	}
	if len(meta.RedactedFields) > 0 {
		return nil, "", fmt.Errorf("tune --resume %s: the plan file %s is gone and tune.json masks %v: pass it with -c", resume, meta.PlanFile, meta.RedactedFields)
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
func (g *globals) tune(cmd *cobra.Command, p *plan.Plan, dir string, resume bool, formats []string) error {
	g.useSecrets(p)
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("tune: find this llmcap for {llmcap}: %w", err)
	}
	planFile, _ := filepath.Abs(g.v.GetString("config"))
	if g.v.GetString("config") == "" {
		planFile = ""
	}
	build := currentBuild()
	g.log.Info("tune starting", "plan", p.Name, "dir", dir, "algorithm", p.Tune.Algorithm, "params", len(p.Tune.Space),
		"objectives", len(p.Tune.Objectives), "resume", resume)
	res, err := tune.Run(ctx, p, tune.Options{Dir: dir, Resume: resume, PlanFile: planFile, Executable: exe,
		Version: build.Version, Commit: build.Commit, Logger: g.log})
	if res != nil {
		if _, rerr := report.WriteTune(dir, formats); rerr != nil {
			g.log.Warn("tune report", "err", rerr)
		}
		out := cmd.OutOrStdout()
		fmt.Fprintf(out, "%s\n", res.Answer)
		if len(res.Command) > 0 {
			fmt.Fprintf(out, "command: %s\n", tune.CommandLine(res.Env, res.Command))
		}
		fmt.Fprintf(out, "tune directory: %s (%d trials, %d measured; report: %s)\n", dir, res.Trials, res.OK,
			filepath.Join(dir, "tune-report.pdf"))
	}
	switch {
	case errors.Is(err, tune.ErrInterrupted):
		return &exitError{code: exitInterrupt, err: fmt.Errorf("tune interrupted: every finished trial is in %s; continue with: llmcap tune --resume %s",
			filepath.Join(dir, rundir.FileTrials), shellQuote(dir))}
	case err != nil:
		return err
	}
	return nil
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

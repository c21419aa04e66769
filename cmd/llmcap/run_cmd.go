package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"syscall"

	"github.com/llmcap/llmcap/rundir"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/llmcap/llmcap/analysis"
	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/profiles"
	"github.com/llmcap/llmcap/report"
	"github.com/llmcap/llmcap/sweep"
)

// sweepFlags are the flags shared by `run` and `sweep`.
type sweepFlags struct {
	saveICL    bool
	cpuProfile string
	// forceResume (sweep --force): resume with a -c plan that differs from the run's.
	forceResume bool
	// shard is sweep's --shard (nil: unsharded; run has no sharding flags).
	shard *sweep.Shard
}

func (f *sweepFlags) register(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&f.saveICL, "save-icl", false, "add each request's inter-chunk latencies (icl_ms) to records.jsonl")
	cmd.Flags().StringVar(&f.cpuProfile, "cpuprofile", "", "write llmcap's own CPU profile (pprof) to this file")
}

func newRunCmd(g *globals) *cobra.Command {
	var sf sweepFlags
	var resume string
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Sweep, analyse and report in one go (the main job)",
		Long: `run loads the plan, drives every step against the target (writing the run directory),
analyses it (analysis.json, a console summary) and renders the report formats.
With --resume DIR it continues an interrupted run (as llmcap sweep --resume), then
analyses and reports it.`,
		Example: "  llmcap run -c configs/demo.yaml\n  llmcap run -c configs/vllm.yaml -o runs/vllm-h100\n" +
			"  llmcap run --resume runs/demo     # continue an interrupted run, then analyse and report",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p, err := g.sweepPlan(cmd, resume, sf.forceResume)
			if err != nil {
				return err
			}
			if !p.SLA.HasLatencySLA() {
				return fmt.Errorf("%s: %s", g.v.GetString("config"), noSLA)
			}
			dir := resume
			if dir == "" {
				dir = g.outDir(p)
			}
			if err := g.sweep(cmd, p, dir, resume != "", sf); err != nil {
				return err
			}
			return analyzeAndReport(cmd.Context(), cmd.OutOrStdout(), dir, p.Report.Formats)
		},
	}
	sf.registerResume(cmd, &resume)
	sf.register(cmd)
	return cmd
}

func newSweepCmd(g *globals) *cobra.Command {
	var sf sweepFlags
	var shf shardFlags
	var resume string
	cmd := &cobra.Command{
		Use:   "sweep",
		Short: "Drive the plan's steps and write the run directory (no analysis)",
		Example: `  llmcap sweep -c configs/demo.yaml -o runs/demo
  llmcap sweep --resume runs/demo     # continue an interrupted run
  llmcap sweep -c plan.yaml --shard 1/4 --start-at 2026-12-01T10:00:00Z -o runs/shard-1   # one of 4 shards`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var err error
			if sf.shard, err = shf.parse(); err != nil {
				return err
			}
			if out := g.v.GetString("out"); resume == "" && shardResume(out, sf.shard) {
				g.log.Info("the directory holds this shard's run: resuming it", "dir", out, "shard", sf.shard.Index)
				resume = out
			}
			p, err := g.sweepPlan(cmd, resume, sf.forceResume)
			dir := resume
			if err != nil {
				return err
			}
			if !p.SLA.HasLatencySLA() {
				g.log.Warn(noSLA)
			}
			if dir == "" {
				dir = g.outDir(p)
			}
			if err := g.sweep(cmd, p, dir, resume != "", sf); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "run directory: %s\nnext: llmcap analyze %s && llmcap report %s\n", dir, shellQuote(dir), shellQuote(dir))
			return nil
		},
	}
	sf.registerResume(cmd, &resume)
	sf.register(cmd)
	shf.register(cmd)
	return cmd
}

// registerResume adds --resume (into resume) and --force, shared by `run` and `sweep`.
func (f *sweepFlags) registerResume(cmd *cobra.Command, resume *string) {
	cmd.Flags().StringVar(resume, "resume", "", "continue the interrupted run in this directory with the plan stored "+
		"in its run.json (a plan whose secrets run.json masks needs -c with the original plan file); with -c, the file's "+
		"plan is used only when it equals the run's but for target.url, the API key, the metrics endpoints and the timeouts")
	cmd.Flags().BoolVar(&f.forceResume, "force", false, "with --resume and -c: resume even when the plan differs from "+
		"the run's in other fields (same steps only); the run then mixes measurements of both plans")
}

// sweepPlan is the plan cmd (run or sweep) sweeps: with --resume dir, the run's stored
// plan (storedPlanToResume) or, given -c, --set or one-off flags, resumePlan's; else
// the loaded plan.
func (g *globals) sweepPlan(cmd *cobra.Command, resume string, force bool) (*plan.Plan, error) {
	switch {
	case resume != "" && g.v.GetString("config") == "" && len(g.set) == 0 && !g.flags.given():
		return storedPlanToResume(cmd.Name(), resume)
	case resume != "":
		return g.resumePlan(cmd.Name(), resume, force)
	}
	return g.loadPlan()
}

// resumePlan is the plan for --resume dir given -c and/or --set: -c's plan, or the run's
// own plan with the --set overrides. It is used only when its steps are the stored run's
// steps (segment, load, schedule, window; not the wall-time estimate, which depends on
// the target) and it differs from the stored plan only in what a resume may change
// (rundir.CheckResume: force accepts other differences); otherwise it is refused,
// saying why.
func (g *globals) resumePlan(command, dir string, force bool) (*plan.Plan, error) {
	stored, masked, err := planFromRun(dir)
	if err != nil {
		return nil, err
	}
	src, drop := "-c "+g.v.GetString("config"), "-c"
	var p *plan.Plan
	if g.v.GetString("config") == "" {
		src, drop = "--set", "--set"
		if p, err = g.storedPlanWithSet(dir, stored); err == nil {
			err = refuseMasked(command, dir, p.StillMasked(masked))
		}
	} else {
		p, err = g.loadPlan()
	}
	if err != nil {
		return nil, err
	}
	accepted, err := rundir.CheckResume(stored, p, force)
	var ref *rundir.ResumeRefusal
	switch {
	case errors.As(err, &ref) && ref.Reason == rundir.ResumeStepsDiffer:
		return nil, fmt.Errorf("--resume %s: the plan from %s has different steps than the run (%s vs %s; %s): "+
			"a resumed run keeps its own steps; drop %s to resume with the plan stored in %s",
			dir, src, plural(ref.NewSteps, "step"), plural(ref.StoredSteps, "step"), ref.FirstDiff, drop,
			filepath.Join(dir, rundir.FileRun))
	case errors.As(err, &ref):
		return nil, fmt.Errorf("--resume %s: the plan from %s differs from the run's in %s a resume may not change "+
			"(only target.url, the API key, the metrics endpoints and the timeouts may):\n  %s\n"+
			"drop %s to resume with the plan stored in %s, start a new run, or add --force to mix both plans in this run",
			dir, src, plural(len(ref.Conflicts), "field"), strings.Join(ref.Conflicts, "\n  "), drop,
			filepath.Join(dir, rundir.FileRun))
	case err != nil:
		return nil, fmt.Errorf("--resume %s: %w", dir, err)
	case len(accepted) > 0:
		g.log.Warn("--force: resuming with a plan that differs from the run's; its steps will mix both plans",
			"differences", strings.Join(accepted, "; "))
	}
	g.log.Info("resuming with the plan from "+src+" (same steps as the run)", "plan", p.Name)
	return p, nil
}

// storedPlanWithSet is the run's stored plan with the --set overrides applied: the plan
// is written as YAML to a temporary file and loaded again like a -c file.
func (g *globals) storedPlanWithSet(dir string, stored *plan.Plan) (*plan.Plan, error) {
	b, err := yaml.Marshal(stored.Redacted())
	if err != nil {
		return nil, fmt.Errorf("resume %s: %w", dir, err)
	}
	f, err := os.CreateTemp("", "llmcap-resume-*.yaml")
	if err != nil {
		return nil, fmt.Errorf("resume %s: %w", dir, err)
	}
	defer os.Remove(f.Name())
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("resume %s: %w", dir, err)
	}
	ov, err := g.overrides()
	if err != nil {
		return nil, err
	}
	p, err := plan.Load(f.Name(), ov)
	if err != nil {
		return nil, fmt.Errorf("resume %s with --set: %w", dir, err)
	}
	return p, nil
}

// planFromRun re-reads the plan stored in dir/run.json and resolves its API key again
// (the key is never stored); masked are the plan's fields whose secrets run.json masks
// (RunMeta.RedactedFields; nil for a run.json older than that record).
func planFromRun(dir string) (p *plan.Plan, masked []string, err error) {
	meta, err := rundir.ReadMeta(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("resume %s: %w", dir, err)
	}
	p = &meta.Plan
	if err := p.ResolveAPIKey(); err != nil {
		return nil, nil, fmt.Errorf("resume %s: %w", dir, err)
	}
	if err := p.Validate(); err != nil {
		return nil, nil, fmt.Errorf("resume %s: %w", dir, err)
	}
	return p, meta.RedactedFields, nil
}

// storedPlanToResume is the plan stored in dir/run.json for `command --resume dir`
// (command: run or sweep) without -c or --set; refused when it holds masked secrets
// (refuseMasked).
func storedPlanToResume(command, dir string) (*plan.Plan, error) {
	p, masked, err := planFromRun(dir)
	if err != nil {
		return nil, err
	}
	if err := refuseMasked(command, dir, p.StillMasked(masked)); err != nil {
		return nil, err
	}
	return p, nil
}

// refuseMasked is the refusal to resume dir with a plan whose fields still hold the
// mask where run.json masked a secret (a password, a key: the target would get the
// word REDACTED); nil when there are none. command (run or sweep) is the command the
// advice names.
func refuseMasked(command, dir string, fields []string) error {
	if len(fields) == 0 {
		return nil
	}
	return fmt.Errorf("--resume %s: %s keeps the plan with its secrets masked (in %s), so the target would get %q "+
		"for them; pass the original plan file: llmcap %s --resume %s -c PLAN",
		dir, filepath.Join(dir, rundir.FileRun), strings.Join(fields, ", "), plan.RedactedMask, command, shellQuote(dir))
}

// sweep runs sweep.Run with Ctrl-C handling, optional CPU profiling and Nsight capture.
func (g *globals) sweep(cmd *cobra.Command, p *plan.Plan, dir string, resume bool, sf sweepFlags) error {
	g.useSecrets(p) // also a plan from run.json, whose API key was resolved again
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if sf.cpuProfile != "" {
		stopProf, err := startCPUProfile(sf.cpuProfile)
		if err != nil {
			return err
		}
		defer stopProf()
	}
	build := currentBuild()
	opts := sweep.Options{OutDir: dir, Resume: resume, ForceResume: sf.forceResume, Progress: g.progressWriter(), Probe: analysis.Probe,
		SaveICL: sf.saveICL, Version: build.Version, Commit: build.Commit, Logger: g.log, Shard: sf.shard}
	g.attachCapture(p, &opts)
	verb := "sweep starting"
	if resume {
		verb = "sweep resuming"
	}
	if p.Ladder.Search != nil {
		n, d := p.SearchEstimate()
		g.log.Info(verb, "plan", p.Name, "searches", len(p.Steps()), "over", p.Ladder.Search.Over, "dir", dir,
			"at_most_steps", n, "at_most", roundDur(d))
	} else {
		g.log.Info(verb, "plan", p.Name, "steps", len(p.Steps()), "dir", dir,
			"estimated", roundDur(plan.TotalEstimate(p.Steps())))
	}
	err := sweep.Run(ctx, p, opts)
	switch {
	case errors.Is(err, sweep.ErrInterrupted) || (err != nil && ctx.Err() != nil):
		return &exitError{code: exitInterrupt, err: interruptedSweep(cmd.Name(), dir, g.v.GetString("config"))}
	case err != nil:
		return sweepError(err, dir)
	}
	return nil
}

// sweepError is the error of a failed sweep of dir, labelled "sweep": sweep.Run's own
// errors are; a failed preflight (*sweep.PreflightError) names only the target, so it
// gets the label here, and says that dir (named by the "sweep starting" line) is gone
// when sweep.Run removed it.
func sweepError(err error, dir string) error {
	if pe := (*sweep.PreflightError)(nil); errors.As(err, &pe) {
		if _, statErr := os.Stat(dir); errors.Is(statErr, os.ErrNotExist) {
			return fmt.Errorf("sweep: %w (%s removed: the preflight failed)", err, dir)
		}
		return fmt.Errorf("sweep: %w", err)
	}
	return err
}

// interruptedSweep is the error of a sweep stopped by Ctrl-C: where its completed steps
// are and how to resume; when no step completed, how many records the unfinished step
// left (a resume runs it again), or that nothing was measured when there are none (a
// Ctrl-C during the target's start or preflight). planPath is the -c plan file (for
// resumeCommand); command (run or sweep) is the command interrupted, which resumes it.
func interruptedSweep(command, dir, planPath string) error {
	resume := resumeCommand(command, dir, planPath)
	if completedSteps(dir) == 0 {
		if n := recordCount(dir); n > 0 {
			kept := plural(n, "record") + " are"
			if n == 1 {
				kept = "1 record is"
			}
			return fmt.Errorf("interrupted before the first step completed: its %s kept in %s "+
				"(the analysis leaves an unfinished step out; a resume runs it again); resume with: %s",
				kept, filepath.Join(dir, rundir.FileRecords), resume)
		}
		return fmt.Errorf("interrupted before any step completed: nothing was measured "+
			"(run again, or resume with: %s)", resume)
	}
	return fmt.Errorf("interrupted: completed steps are saved in %s; "+
		"resume with: %s", dir, resume)
}

// resumeCommand is the command that resumes dir: `llmcap sweep --resume DIR` (or
// `llmcap run --resume DIR` when command is run: it also analyses and reports), and
// `-c PLAN` (planPath, or the word PLAN when it is unknown) with a note when run.json
// masks secrets of the plan (RunMeta.RedactedFields), which only the original plan
// file holds.
func resumeCommand(command, dir, planPath string) string {
	cmd := "llmcap " + command + " --resume " + shellQuote(dir)
	meta, err := rundir.ReadMeta(dir)
	if err != nil || len(meta.RedactedFields) == 0 {
		return cmd
	}
	file := "PLAN"
	if planPath != "" {
		file = shellQuote(planPath)
	}
	return cmd + " -c " + file + " (the original plan file: " + rundir.FileRun + " masks its secrets)"
}

// recordCount counts the records of dir's records.jsonl (0 when it is missing or
// unreadable).
func recordCount(dir string) int {
	n := 0
	if _, err := rundir.EachRecord(dir, func(*rundir.Record) error { n++; return nil }); err != nil {
		return 0
	}
	return n
}

// completedSteps counts the step summaries in dir's steps.jsonl (0 when it is missing).
func completedSteps(dir string) int {
	steps, _, err := rundir.ReadSteps(dir)
	if err != nil {
		return 0
	}
	return len(steps)
}

// attachCapture wires Nsight Systems captures into opts when the plan asks for them;
// when nsys is unusable it warns and the sweep goes on without captures.
func (g *globals) attachCapture(p *plan.Plan, opts *sweep.Options) {
	if !p.Capture.Enabled {
		return
	}
	c, err := profiles.NewCapturer(p, g.log)
	if err != nil {
		g.log.Warn("Nsight Systems capture disabled; the sweep continues without profiles", "err", err)
		return
	}
	opts.Hook = c
	if p.Capture.Mode == "launch" {
		opts.Launcher = c
	}
}

// startCPUProfile profiles llmcap itself into path until the returned stop is called.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}

// analyzeAndReport analyses dir, writes analysis.json, prints the summary, renders the
// report formats and says where everything is.
func analyzeAndReport(ctx context.Context, w io.Writer, dir string, formats []string) error {
	in := newInterrupter(ctx, os.Stderr)
	defer in.close()
	a, err := in.analyzeInterruptible(w, dir)
	if err != nil {
		return err
	}
	if err := in.render(dir, a, formats, renderOptions{}); err != nil {
		return err
	}
	printOutputs(w, dir)
	return nil
}

// analyzeDir runs the analysis of dir, writes analysis.json and prints the summary.
func analyzeDir(w io.Writer, dir string) (*analysis.Analysis, error) {
	return analyzeDirWith(w, dir, "")
}

// analyzeDirWith is analyzeDir comparing the drift probe's outputs with the run
// directory baseline too (analysis.CompareDrift; "": none).
func analyzeDirWith(w io.Writer, dir, baseline string) (*analysis.Analysis, error) {
	a, err := analysis.Analyze(dir)
	if err != nil {
		return nil, err // Analyze's errors name dir ("analyze DIR: …")
	}
	if baseline != "" {
		if err := analysis.CompareDrift(a, dir, baseline); err != nil {
			return nil, fmt.Errorf("analyze %s --baseline: %w", dir, err)
		}
	}
	if err := analysis.WriteJSON(dir, a); err != nil {
		return nil, fmt.Errorf("analyze %s: %w", dir, err)
	}
	if err := printSummary(w, a); err != nil {
		return nil, fmt.Errorf("analyze %s: summary: %w", dir, err)
	}
	return a, nil
}

// printOutputs lists the run directory's files that exist.
func printOutputs(w io.Writer, dir string) {
	fmt.Fprintf(w, "\noutputs in %s:\n", dir)
	for _, f := range []struct{ name, what string }{
		{report.FilePDF, "PDF report (the answer on page 1)"},
		{report.FileHTML, "HTML report (one file; open in a browser)"},
		{report.FileXLSX, "workbook: steps, segments, requests, capacity"},
		{report.FileRecordsCSV, "every request's row of the workbook's Requests sheet (CSV)"},
		{report.DirCharts, "charts (SVG/PNG)"},
		{report.FileMarkdown, "Markdown summary"},
		{report.FileStepsCSV, "per-step statistics (CSV)"},
		{report.FileJSON, "report data (JSON)"},
		{analysis.FileAnalysis, "analysis (statistics, model fit, capacity)"},
		{rundir.FileRecords, "one record per request"},
		{rundir.FileSteps, "one summary per step"},
		{rundir.FileServerMetrics, "scraped server metrics"},
		{rundir.FileDrift, "drift probe: each output's hash per prompt and repeat"},
		{rundir.FileRun, "resolved plan, versions, state"},
		{"profiles", "Nsight Systems captures: one directory per captured step, launch.json"},
		{"server.log", "output of the server llmcap launched"},
	} {
		if _, err := os.Stat(filepath.Join(dir, f.name)); err == nil {
			fmt.Fprintf(w, "  %-22s %s\n", f.name, f.what)
		}
	}
}

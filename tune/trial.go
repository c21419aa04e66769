package tune

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/llmcap/llmcap/analysis"
	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/redact"
	"github.com/llmcap/llmcap/rundir"
	"github.com/llmcap/llmcap/sweep"
	"github.com/llmcap/llmcap/tune/nsga2"
)

// DirTargetLoad is the run directory, inside a trial's, of its step at tune.target_load.
const DirTargetLoad = "target-load"

// logTailLines is how much of a failed trial's server.log its record keeps.
const logTailLines = 20

// trialSpec is one configuration to measure.
type trialSpec struct {
	n, generation int
	baseline      bool
	point         nsga2.Point
}

// runTrial launches the server for spec, measures it and stops it. It returns the
// trial's record (Status failed for a server that did not start, crashed or could not
// be measured); err only when ctx was cancelled (the trial is then redone on resume).
func (t *Tuner) runTrial(ctx context.Context, spec trialSpec) (rundir.Trial, error) {
	tr, err := t.launchAndMeasure(ctx, spec)
	tr.WallS = time.Since(tr.StartedAt).Seconds()
	return tr, err
}

func (t *Tuner) launchAndMeasure(ctx context.Context, spec trialSpec) (rundir.Trial, error) {
	tr := rundir.Trial{Trial: spec.n, Generation: spec.generation, Baseline: spec.baseline,
		Point: spec.point, Params: t.space.paramsAt(spec.point), StartedAt: time.Now().UTC()}
	trialDir := rundir.TrialDir(t.opts.Dir, spec.n)
	if err := os.RemoveAll(trialDir); err != nil {
		return tr, fmt.Errorf("clear %s: %w", trialDir, err)
	}
	if err := os.MkdirAll(trialDir, 0o755); err != nil {
		return tr, fmt.Errorf("create %s: %w", trialDir, err)
	}
	port, err := freePort()
	if err != nil {
		return fail(tr, rundir.TrialFailLaunch, err, ""), nil
	}
	argv, env, url := t.rendered(spec.point, port)
	red := t.plan.Redactor()
	tr.Command, _ = redact.Argv(argv)
	tr.Env, _ = redact.Env(env)
	logPath := filepath.Join(trialDir, rundir.FileServerLog)
	t.log.Info("trial starting", "trial", spec.n, "generation", spec.generation, "params", paramsText(t.space, spec.point))
	srv, err := startServer(t.opts.Dir, trialDir, spec.n, argv, env, red, t.plan.Tune.Launch.StopGrace)
	if err != nil {
		return fail(tr, rundir.TrialFailLaunch, err, logTail(logPath, logTailLines)), nil
	}
	measureErr := t.measure(ctx, srv, url, trialDir, &tr)
	rss, gpu, src := srv.memory()
	tr.PeakRSSMiB = rss
	if src != "" { // nvidia-smi's figure for the server's own processes wins over DCGM's whole GPU
		tr.GPUMemoryMiB, tr.GPUMemorySource = gpu, src
	}
	if err := srv.stop(t.opts.Dir); err != nil {
		t.log.Warn("trial server stop", "trial", spec.n, "err", err)
	}
	if ctx.Err() != nil {
		return tr, ctx.Err()
	}
	if measureErr != nil {
		var fe failError
		if errors.As(measureErr, &fe) {
			return fail(tr, fe.class, fe.err, logTail(logPath, logTailLines)), nil
		}
		return fail(tr, rundir.TrialFailSweep, measureErr, logTail(logPath, logTailLines)), nil
	}
	tr.Status = rundir.TrialOK
	tr.Objectives = t.objectives(&tr)
	return tr, nil
}

// failError is a measurement failure of a known class.
type failError struct {
	class string
	err   error
}

func (e failError) Error() string { return e.err.Error() }

// measure waits for the server, runs the capacity search (and the target-load step)
// against it and fills tr's figures.
func (t *Tuner) measure(ctx context.Context, srv *server, url, trialDir string, tr *rundir.Trial) error {
	cold, err := srv.waitReady(ctx, url, t.plan.Tune.Launch.ReadyTimeout)
	tr.ColdStartS = cold.Seconds()
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case err != nil && srv.exited():
		return failError{rundir.TrialFailExited, fmt.Errorf("server exited before it was ready (%s)", srv.exitText())}
	case err != nil:
		return failError{rundir.TrialFailNotReady, err}
	}
	a, err := t.sweep(ctx, t.trialPlan(url, tr.Trial, nil), trialDir)
	if err != nil {
		return t.sweepFailure(ctx, srv, err)
	}
	t.capacity(a, tr)
	if tl := t.plan.Tune.TargetLoad; tl > 0 {
		b, err := t.sweep(ctx, t.trialPlan(url, tr.Trial, &tl), filepath.Join(trialDir, DirTargetLoad))
		if err != nil {
			return t.sweepFailure(ctx, srv, err)
		}
		tr.TTFTp95AtTargetMs = firstStepTTFTp95(b)
	}
	if srv.exited() {
		return failError{rundir.TrialFailExited, fmt.Errorf("server exited during the trial (%s)", srv.exitText())}
	}
	return nil
}

func (t *Tuner) sweepFailure(ctx context.Context, srv *server, err error) error {
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case srv.exited():
		return failError{rundir.TrialFailExited, fmt.Errorf("server exited during the trial (%s): %w", srv.exitText(), err)}
	case errors.Is(err, errAnalysis):
		return failError{rundir.TrialFailAnalysis, err}
	}
	return failError{rundir.TrialFailSweep, err}
}

var errAnalysis = errors.New("analysis")

// sweep runs the plan p into dir and analyses it (analysis.json written).
func (t *Tuner) sweep(ctx context.Context, p *plan.Plan, dir string) (*analysis.Analysis, error) {
	err := sweep.Run(ctx, p, sweep.Options{OutDir: dir, Probe: analysis.Probe, Logger: t.log,
		Version: t.opts.Version, Commit: t.opts.Commit})
	if err != nil {
		return nil, err
	}
	a, err := analysis.Analyze(dir)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errAnalysis, err)
	}
	if err := analysis.WriteJSON(dir, a); err != nil {
		return nil, fmt.Errorf("%w: %w", errAnalysis, err)
	}
	return a, nil
}

// trialPlan is the plan a trial's sweep runs: the tune's plan against url, without its
// tune and drift sections (a trial measures capacity: the probe's 100 answers would
// warm each new server and lengthen every trial); with targetLoad, one fixed step at
// that load instead of the ladder.
func (t *Tuner) trialPlan(url string, n int, targetLoad *int) *plan.Plan {
	p := *t.plan
	p.Tune, p.Drift = nil, nil
	p.Target.URL, p.Target.Launch = url, nil
	p.Name = t.plan.Name + "-trial" + strconv.Itoa(n)
	if targetLoad != nil {
		l := p.Ladder
		l.Search, l.Concurrency, l.Users, l.Rate = nil, nil, nil, nil
		if p.Ladder.CapacityMetric() == plan.TuneUsers {
			l.Users = []int{*targetLoad}
		} else {
			l.Concurrency = []int{*targetLoad}
		}
		p.Ladder = l
		p.Name += "-target"
	}
	return &p
}

// capacity copies the analysis's capacity answer into tr.
func (t *Tuner) capacity(a *analysis.Analysis, tr *rundir.Trial) {
	c := a.Overall
	tr.Capacity = c.MaxConcurrencyWithinSLA
	if t.plan.Ladder.CapacityMetric() == plan.TuneUsers {
		tr.Capacity = float64(c.Users)
	}
	tr.CapacityMethod, tr.RangeLow, tr.RangeHigh = string(c.Method), c.RangeLow, c.RangeHigh
	tr.Bottleneck = string(c.Bottleneck)
	tr.Abandoned = c.Method == analysis.MethodBelowFirstStep
	if tr.Abandoned {
		tr.Capacity = 0
	}
	if s := capacitySegment(a); s != nil {
		tr.SearchSteps = len(s.Steps)
		if s.Search != nil {
			tr.SearchStop = string(s.Search.Stop)
		}
	}
	tr.CostPerUserMonth = costPerUserMonth(a, tr.Capacity)
	if mib := dcgmMemoryMiB(a); mib > 0 {
		tr.GPUMemoryMiB, tr.GPUMemorySource = mib, rundir.GPUMemoryDCGM
	}
}

package tune

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
	"github.com/llmcap/llmcap/tune/nsga2"
)

// Why a tune stopped (rundir.TuneResult.Stop).
const (
	StopDone        = "done"             // the algorithm's own count was measured
	StopTrials      = "budget_trials"    // tune.budget.trials were run
	StopWallTime    = "budget_wall_time" // tune.budget.wall_time was spent
	StopInterrupted = "interrupted"      // Ctrl-C (or a cancelled context)
	StopRunning     = "running"          // written after each trial while the tune runs
)

// errStop ends the search early; its reason is the stop.
type errStop struct{ reason string }

func (e errStop) Error() string { return "tune stopped: " + e.reason }

// evaluator measures the settings the algorithm asks for, in order: a setting
// measured before (in this tune) is not measured again, and on a resume the recorded
// trials stand in for the first ones, after checking that they are the same settings.
type evaluator struct {
	t    *Tuner
	seen map[string]nsga2.Result
	next int // the next trial number
}

// search drives the plan's algorithm until it is done, the budget is spent or ctx is
// cancelled, and says why it stopped.
func (t *Tuner) search(ctx context.Context) (string, error) {
	ev := &evaluator{t: t, seen: map[string]nsga2.Result{}}
	err := t.drive(ctx, ev)
	var st errStop
	switch {
	case err == nil:
		return StopDone, nil
	case errors.As(err, &st):
		if st.reason == StopInterrupted {
			return st.reason, ctx.Err()
		}
		return st.reason, nil
	}
	return StopInterrupted, err
}

func (t *Tuner) drive(ctx context.Context, ev *evaluator) error {
	tu := t.plan.Tune
	if tu.Baseline != nil {
		pt, err := t.space.point(tu.Baseline)
		if err != nil {
			return err
		}
		if _, err := ev.eval(ctx, pt, 0, true); err != nil {
			return err
		}
	}
	switch tu.Algorithm {
	case plan.TuneGrid:
		pts, err := nsga2.Grid(t.space.search)
		if err != nil {
			return fmt.Errorf("tune: %w", err)
		}
		return ev.evalAll(ctx, pts, 0)
	case plan.TuneRandom:
		pts, err := nsga2.Random(t.space.search, tu.Budget.Trials, uint64(tu.Seed))
		if err != nil {
			return fmt.Errorf("tune: %w", err)
		}
		return ev.evalAll(ctx, pts, 0)
	}
	opt, err := nsga2.New(t.space.search, directions(tu.Objectives), nsgaOptions(tu))
	if err != nil {
		return fmt.Errorf("tune: %w", err)
	}
	for gen := 0; !opt.Done(); gen++ {
		pts := opt.Ask()
		results := make([]nsga2.Result, len(pts))
		for i, pt := range pts {
			if results[i], err = ev.eval(ctx, pt, gen, false); err != nil {
				return err
			}
		}
		if err := opt.Tell(results); err != nil {
			return fmt.Errorf("tune: generation %d: %w", gen, err)
		}
	}
	return nil
}

// nsgaOptions is the plan's NSGA-II budget and seed.
func nsgaOptions(tu *plan.Tune) nsga2.Options {
	return nsga2.Options{Population: tu.Population, Offspring: tu.Offspring, Generations: tu.Generations, Seed: uint64(tu.Seed)}
}

func (ev *evaluator) evalAll(ctx context.Context, pts []nsga2.Point, gen int) error {
	for _, pt := range pts {
		if _, err := ev.eval(ctx, pt, gen, false); err != nil {
			return err
		}
	}
	return nil
}

// eval returns the result of the setting pt: measured before, recorded (a resume), or
// measured now as the next trial. Errors: errStop (budget or interrupt), a recorded
// trial that is another setting, I/O.
func (ev *evaluator) eval(ctx context.Context, pt nsga2.Point, gen int, baseline bool) (nsga2.Result, error) {
	t := ev.t
	key := fmt.Sprint(pt)
	if r, ok := ev.seen[key]; ok {
		return r, nil
	}
	n := ev.next
	if n < len(t.trials) {
		tr := &t.trials[n]
		if !samePoint(tr.Point, pt) || tr.Baseline != baseline {
			return nsga2.Result{}, fmt.Errorf("tune: trial %d in trials.jsonl is %s, but the plan now asks for %s: "+
				"the plan changed since; start a new tune directory", n, paramsOf(tr, nil), paramsOf(&rundir.Trial{Point: pt}, t.space))
		}
		ev.next++
		r := t.resultOf(tr)
		ev.seen[key] = r
		return r, nil
	}
	if err := ev.budgetLeft(ctx, n); err != nil {
		return nsga2.Result{}, err
	}
	tr, err := t.runTrial(ctx, trialSpec{n: n, generation: gen, baseline: baseline, point: pt})
	if err != nil {
		if ctx.Err() != nil {
			return nsga2.Result{}, errStop{StopInterrupted}
		}
		return nsga2.Result{}, err
	}
	if err := rundir.AppendTrial(t.opts.Dir, &tr); err != nil {
		return nsga2.Result{}, fmt.Errorf("tune: %w", err)
	}
	t.trials = append(t.trials, tr)
	t.spentS += tr.WallS
	ev.next++
	t.logTrial(&tr)
	if _, err := t.result(StopRunning); err != nil {
		return nsga2.Result{}, err
	}
	r := t.resultOf(&tr)
	ev.seen[key] = r
	return r, nil
}

// budgetLeft returns errStop when trial n may not start: the trial budget is spent,
// the wall-time budget (over every session's trials) is, or ctx is cancelled.
func (ev *evaluator) budgetLeft(ctx context.Context, n int) error {
	b := ev.t.plan.Tune.Budget
	switch {
	case ctx.Err() != nil:
		return errStop{StopInterrupted}
	case b.Trials > 0 && n >= b.Trials:
		return errStop{StopTrials}
	case b.WallTime > 0 && ev.t.spentS >= b.WallTime.Seconds():
		return errStop{StopWallTime}
	}
	return nil
}

func samePoint(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-9*math.Max(1, math.Abs(a[i])) {
			return false
		}
	}
	return true
}

// logTrial logs a finished trial in one line.
func (t *Tuner) logTrial(tr *rundir.Trial) {
	args := []any{"trial", tr.Trial, "params", paramsText(t.space, tr.Point), "status", tr.Status,
		"cold_start_s", round1(tr.ColdStartS), "peak_rss_mib", round1(tr.PeakRSSMiB), "wall_s", round1(tr.WallS)}
	if tr.OK() {
		args = append(args, "capacity", tr.Capacity, "method", tr.CapacityMethod)
	} else {
		args = append(args, "fail_class", tr.FailClass, "reason", tr.FailReason)
	}
	t.log.Info("trial done", args...)
}

func round1(v float64) float64 { return math.Round(v*10) / 10 }

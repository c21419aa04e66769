// Package tune is `llmcap tune`: a search over the inference server's own parameters
// for the configuration that serves the most users within the SLA. Each trial renders
// the plan's tune.launch template with one setting, starts the server in a process
// group of its own, waits for it (its cold start), runs a capacity search of the plan's
// workload against it (sweep + analysis) while it samples the server's memory, stops
// it and appends one line to trials.jsonl. The search is NSGA-II (tune/nsga2), a grid
// or random settings; a resume replays the recorded trials through it. docs/tune.md.
//
// It stands above sweep and analysis (it drives both, as the CLI does) and is imported
// only by cmd/llmcap.
package tune

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
)

// Options configure a tune.
type Options struct {
	// Dir is the tune directory (created if absent).
	Dir string
	// Resume continues the tune in Dir: recorded trials are kept, not redone, a trial
	// cut off by the crash or Ctrl-C is redone, and a server a killed tune left running
	// is stopped first.
	Resume bool
	// PlanFile is the plan's file, recorded in tune.json.
	PlanFile string
	// Executable replaces {llmcap} in the launch template (this llmcap's path).
	Executable string
	// Version and Commit are the tool's, for tune.json and the trials' run.json.
	Version string
	Commit  rundir.ToolCommit
	// Logger for progress (nil = slog.Default()).
	Logger *slog.Logger
}

// ErrInterrupted is returned when the tune stopped on a cancelled context; every
// finished trial is on disk and `llmcap tune --resume DIR` continues.
var ErrInterrupted = errors.New("tune interrupted")

// Tuner is one tune in progress.
type Tuner struct {
	plan   *plan.Plan
	opts   Options
	space  *space
	log    *slog.Logger
	trials []rundir.Trial // recorded, in order
	spentS float64        // wall seconds of the recorded trials
}

// Run runs (or, with opts.Resume, continues) the tune of p (a validated plan with a
// tune section) in opts.Dir and returns its result, also written to tune-result.json.
// Errors: no tune section, a directory that already holds a tune (without Resume) or
// none (with Resume), a resume whose recorded trials the plan no longer reproduces,
// I/O errors; ErrInterrupted after ctx is cancelled. A trial whose server fails is a
// failed trial, never an error.
func Run(ctx context.Context, p *plan.Plan, opts Options) (*rundir.TuneResult, error) {
	if p.Tune == nil {
		return nil, errors.New("tune: the plan has no tune section")
	}
	t := &Tuner{plan: p, opts: opts, log: opts.Logger}
	if t.log == nil {
		t.log = slog.Default()
	}
	var err error
	if t.space, err = newSpace(p.Tune); err != nil {
		return nil, err
	}
	if err := t.check(); err != nil {
		return nil, err
	}
	lock, err := rundir.Acquire(opts.Dir, true)
	if err != nil {
		return nil, fmt.Errorf("tune: %w", err)
	}
	defer lock.Release()
	if err := t.open(); err != nil {
		return nil, err
	}
	verb := "tune starting"
	if opts.Resume {
		verb = "tune resuming"
	}
	t.log.Info(verb, "plan", p.Name, "dir", opts.Dir, "algorithm", p.Tune.Algorithm, "params", len(p.Tune.Space),
		"trials_recorded", len(t.trials))
	stop, err := t.search(ctx)
	res, rerr := t.result(stop)
	if rerr != nil {
		return nil, rerr
	}
	if err != nil {
		if ctx.Err() != nil {
			return res, ErrInterrupted
		}
		return res, err
	}
	return res, nil
}

// open starts a new tune directory, or reopens one for a resume.
func (t *Tuner) open() error {
	dir := t.opts.Dir
	_, statErr := os.Stat(filepath.Join(dir, rundir.FileTune))
	exists := statErr == nil
	switch {
	case !t.opts.Resume && exists:
		return fmt.Errorf("tune: %s already holds a tune: continue it with --resume, or choose another directory", dir)
	case t.opts.Resume && !exists:
		return fmt.Errorf("tune: %s holds no tune (no %s) to resume", dir, rundir.FileTune)
	case !t.opts.Resume && fileExistsIn(dir, rundir.FileRun):
		return fmt.Errorf("tune: %s is a run directory (it holds %s): choose another directory for the tune", dir, rundir.FileRun)
	case !t.opts.Resume:
		return t.writeMeta()
	}
	meta, err := rundir.ReadTuneMeta(dir)
	if err != nil {
		return fmt.Errorf("tune: %w", err)
	}
	if diff := planDiff(&meta.Plan, t.plan.Redacted()); len(diff) > 0 {
		return fmt.Errorf("tune --resume %s: the plan differs from the tune's (tune.json) in %s: only tune.budget and "+
			"tune.generations may change on a resume; start a new tune directory for another plan", dir, strings.Join(diff, ", "))
	}
	if pid, err := stopOrphan(dir); err != nil {
		return err
	} else if pid > 0 {
		t.log.Warn("stopped the server an earlier tune left running", "pid", pid)
	}
	trials, dmg, err := rundir.ReadTrials(dir)
	if err != nil {
		return fmt.Errorf("tune: %w", err)
	}
	if dmg.Any() {
		t.log.Warn("trials.jsonl damaged: lines skipped", "damage", dmg.String())
	}
	t.trials = trials
	for _, tr := range trials {
		t.spentS += tr.WallS
	}
	return nil
}

func (t *Tuner) writeMeta() error {
	host, _ := os.Hostname()
	m := &rundir.TuneMeta{ToolVersion: t.opts.Version, ToolCommit: t.opts.Commit, Host: host,
		StartedAt: time.Now().UTC(), PlanFile: t.opts.PlanFile, Plan: *t.plan.Redacted(),
		RedactedFields: t.plan.MaskedFields()}
	if err := rundir.WriteTuneMeta(t.opts.Dir, m); err != nil {
		return fmt.Errorf("tune: %w", err)
	}
	return nil
}

func fileExistsIn(dir, name string) bool {
	_, err := os.Stat(filepath.Join(dir, name))
	return err == nil
}

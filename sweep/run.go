package sweep

import (
	"context"
	"errors"
	"io"
	"log/slog"

	"github.com/llmcap/llmcap/plan"
)

// Options configures a sweep.
type Options struct {
	// OutDir is the run directory (created if absent).
	OutDir string
	// Resume continues an interrupted run in OutDir at its first unfinished step.
	Resume bool
	// Progress receives the live progress display; nil or a non-terminal is quiet.
	Progress io.Writer
	// SaveICL adds icl_ms arrays to records.
	SaveICL bool
	// Version is the tool version written to run.json.
	Version string
	// Logger for diagnostics (nil = slog.Default()).
	Logger *slog.Logger
	// Hook, when set, is called around each step's measurement window (profiles).
	Hook StepHook
	// Launcher, when set, starts the target server instead of the plain plan.Target.Launch
	// runner (profiles' nsys launch mode).
	Launcher Launcher
}

// StepHook is called around a step's measurement window.
type StepHook interface {
	// BeforeMeasure runs as the step's measurement window opens.
	BeforeMeasure(ctx context.Context, step plan.Step, runDir string) error
	// AfterMeasure runs as the window closes; it returns the directory (relative to the
	// run directory) of what it captured, if anything.
	AfterMeasure(ctx context.Context, step plan.Step, runDir string) (captured string, err error)
}

// Launcher starts the target server; stop ends it.
type Launcher interface {
	Start(ctx context.Context, p *plan.Plan, runDir string) (stop func() error, err error)
}

// ErrInterrupted is returned when the sweep stopped on a cancelled context; every
// completed record is on disk and the run can be resumed.
var ErrInterrupted = errors.New("sweep interrupted")

// Run drives every step of p against its target, writing the run directory
// (run.json, records.jsonl, steps.jsonl, server-metrics.jsonl). A cancelled ctx ends the
// sweep with ErrInterrupted after recording what completed.
func Run(ctx context.Context, p *plan.Plan, opts Options) error {
	return errors.New("sweep.Run: not implemented yet")
}

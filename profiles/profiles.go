// Package profiles wraps NVIDIA Nsight Systems captures (launch and session modes),
// parses `nsys stats` CSV tables, classifies GPU kernels and writes them as pprof
// profiles. It imports plan (and sweep's hook interfaces) only.
package profiles

import (
	"context"
	"errors"
	"log/slog"

	"github.com/llmcap/llmcap/plan"
)

// Capturer runs Nsight Systems captures around chosen steps. It satisfies
// sweep.StepHook (BeforeMeasure/AfterMeasure) and sweep.Launcher (Start, for launch mode).
type Capturer struct {
	p   *plan.Plan
	log *slog.Logger
}

// NewCapturer returns a Capturer for p.Capture, or an error naming the setting when nsys
// cannot be found.
func NewCapturer(p *plan.Plan, log *slog.Logger) (*Capturer, error) {
	return nil, errors.New("profiles.NewCapturer: not implemented yet")
}

// BeforeMeasure starts a capture when step is one to capture.
func (c *Capturer) BeforeMeasure(ctx context.Context, step plan.Step, runDir string) error {
	return nil
}

// AfterMeasure stops the capture and converts it; it returns the profile directory
// relative to runDir.
func (c *Capturer) AfterMeasure(ctx context.Context, step plan.Step, runDir string) (string, error) {
	return "", nil
}

// Start launches the target server under `nsys profile` (launch mode).
func (c *Capturer) Start(ctx context.Context, p *plan.Plan, runDir string) (func() error, error) {
	return nil, errors.New("profiles: launch mode not implemented yet")
}

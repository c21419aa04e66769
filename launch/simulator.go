package launch

import (
	"context"
	"fmt"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/sim"
)

// Simulated is the embedded engine simulator started as a target.
type Simulated struct {
	// URL is its OpenAI base URL ("http://127.0.0.1:PORT/v1").
	URL string
	// Settings are the simulator's resolved parameters (run.json's target.settings).
	Settings map[string]any
	// Stop closes it.
	Stop func() error
}

// Simulator starts the embedded engine simulator with cfg on a free loopback port. It
// outlives ctx (context.WithoutCancel), so in-flight bookkeeping finishes after Ctrl-C;
// Stop ends it. Errors: the catalog has no such GPU or model, or the port cannot be
// bound.
func Simulator(ctx context.Context, cfg plan.Simulator) (*Simulated, error) {
	srv, err := sim.Start(context.WithoutCancel(ctx), cfg, "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("start simulator: %w", err)
	}
	return &Simulated{URL: srv.URL(), Settings: srv.Settings(), Stop: srv.Close}, nil
}

// Package sim is llmcap's embedded engine simulator: a real HTTP server on loopback that
// speaks the OpenAI streaming API, driven by an iteration-level continuous-batching
// scheduler like vLLM's with iteration times from a roofline of a GPU and model catalog.
package sim

import (
	"context"
	"errors"

	"github.com/llmcap/llmcap/plan"
)

// Server is a running simulator.
type Server struct {
	url string
}

// URL returns the OpenAI base URL, e.g. "http://127.0.0.1:41234/v1".
func (s *Server) URL() string { return s.url }

// Start starts a simulator configured by cfg on addr ("127.0.0.1:0" for any free port).
// It runs until ctx is done or Close is called.
func Start(ctx context.Context, cfg plan.Simulator, addr string) (*Server, error) {
	return nil, errors.New("sim.Start: not implemented yet")
}

// Close stops the server and its scheduler.
func (s *Server) Close() error { return nil }

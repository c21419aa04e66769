package plan

import (
	"testing"
	"time"
)

// TestStepBound: a step bounded by time takes at most its warm-up, window, whole grace
// (EstimateStep counts about one E2E of it) and StepOverhead, then its cool-down; a step
// waiting for a request count is bounded by its wall-time bound instead.
func TestStepBound(t *testing.T) {
	p, msg := loadSet(t, "ladder.warmup.duration=2s", "ladder.duration=10s", "ladder.grace=10s", "ladder.cooldown=3s")
	if msg != "" {
		t.Fatal(msg)
	}
	s := p.Steps()[0]
	if want := 2*time.Second + 10*time.Second + 10*time.Second + StepOverhead + 3*time.Second; p.StepBound(s) != want {
		t.Errorf("StepBound = %v, want %v", p.StepBound(s), want)
	}
	if s.Estimated >= p.StepBound(s) {
		t.Errorf("estimate %v not below the bound %v (the estimate counts one E2E of grace)", s.Estimated, p.StepBound(s))
	}
	s.Warmup.Requests = 10 // a warm-up by requests has no time bound but the step's own
	if want := s.Timeout + 3*time.Second; p.StepBound(s) != want {
		t.Errorf("StepBound with warm-up requests = %v, want the timeout %v plus the cool-down", p.StepBound(s), s.Timeout)
	}
}

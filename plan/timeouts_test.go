package plan

import (
	"testing"
	"time"
)

// TestLoadAppliesDefaultTimeouts: a plan that names no timeout gets the first-byte
// (10m) and idle (5m) defaults, no connect or request timeout; an explicit 0 turns a
// timeout off and an explicit value wins; Default has the same defaults.
func TestLoadAppliesDefaultTimeouts(t *testing.T) {
	p, err := Load(writePlan(t, okSegments+okLadder), nil)
	if err != nil {
		t.Fatal(err)
	}
	tg := p.Target
	if tg.FirstByteTimeout != 10*time.Minute || tg.IdleTimeout != 5*time.Minute || tg.ConnectTimeout != 0 || tg.RequestTimeout != 0 {
		t.Errorf("defaults: first byte %v, idle %v, connect %v, request %v; want 10m, 5m, 0, 0",
			tg.FirstByteTimeout, tg.IdleTimeout, tg.ConnectTimeout, tg.RequestTimeout)
	}
	p, err = Load(writePlan(t, okSegments+okLadder+"target:\n  first_byte_timeout: 0s\n  idle_timeout: 90s\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.Target.FirstByteTimeout != 0 || p.Target.IdleTimeout != 90*time.Second {
		t.Errorf("explicit: first byte %v, idle %v; want 0 (off) and 90s", p.Target.FirstByteTimeout, p.Target.IdleTimeout)
	}
	if d := Default().Target; d.FirstByteTimeout != DefaultFirstByteTimeout || d.IdleTimeout != DefaultIdleTimeout {
		t.Errorf("Default(): first byte %v, idle %v", d.FirstByteTimeout, d.IdleTimeout)
	}
}

// TestStepTimeoutRule: the derived step bound is the largest of (warm-up + window +
// grace + 2 min), 4 × the estimate and 5 min; ladder.step_timeout overrides it; every
// planned step carries it.
func TestStepTimeoutRule(t *testing.T) {
	p, err := Load(writePlan(t, okSegments+`
ladder:
  concurrency: [1]
  warmup: {duration: 30s}
  duration: 10m
  grace: 1m
`), nil)
	if err != nil {
		t.Fatal(err)
	}
	st := p.Steps()[0]
	fixed := 30*time.Second + 10*time.Minute + time.Minute + StepTimeoutMargin
	if want := max(fixed, 4*st.Estimated); st.Timeout != want || p.StepTimeout(st) != want || want < fixed {
		t.Errorf("time-bounded step (estimate %v): timeout %v, want %v", st.Estimated, st.Timeout, want)
	}
	short := Step{Estimated: 10 * time.Second}
	if got := p.StepTimeout(short); got != StepTimeoutFloor {
		t.Errorf("short step: %v, want the 5m floor", got)
	}
	long := Step{Requests: 1000, Estimated: 2 * time.Hour}
	if got := p.StepTimeout(long); got != 8*time.Hour {
		t.Errorf("request-bounded 2h step: %v, want 4 × 2h", got)
	}
	p.Ladder.StepTimeout = 3 * time.Second
	if got := p.StepTimeout(long); got != 3*time.Second {
		t.Errorf("ladder.step_timeout 3s: %v", got)
	}
}

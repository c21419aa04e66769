package plan

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestStepTimeoutBelowTheWindowIsRejected: a ladder.step_timeout shorter than the
// warm-up duration + window (2 s + 10 s) would cut every step before its window
// closed: plan validation names the field and the 12 s minimum; 12 s itself and 0
// (derived) are accepted.
func TestStepTimeoutBelowTheWindowIsRejected(t *testing.T) {
	path := writePlan(t, okSegments+`
ladder:
  concurrency: [1]
  warmup: {duration: 2s}
  duration: 10s
`)
	_, err := Load(path, map[string]any{"ladder.step_timeout": "1ms"})
	var ve *ValidationError
	if !errors.As(err, &ve) || len(ve.Problems) != 1 || ve.Problems[0].Path != "ladder.step_timeout" ||
		!strings.Contains(ve.Problems[0].Allowed, "warm-up duration + window duration (12s)") {
		t.Fatalf("step_timeout 1ms: %v", err)
	}
	for _, ok := range []string{"12s", "0s"} {
		p, err := Load(path, map[string]any{"ladder.step_timeout": ok})
		if err != nil {
			t.Errorf("step_timeout %s: %v", ok, err)
		} else if p.MinStepTimeout() != 12*time.Second {
			t.Errorf("min step timeout %v", p.MinStepTimeout())
		}
	}
}

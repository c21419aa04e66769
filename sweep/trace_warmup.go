package sweep

import (
	"fmt"
	"time"

	"github.com/llmcap/llmcap/plan"
)

// traceStepNotes are the warnings of a trace step whose window (ladder.duration)
// ends before the trace does, or whose trace is too short to measure after warm-up.
func traceStepNotes(st plan.Step, rows int, span time.Duration) []string {
	var notes []string
	if st.Duration > 0 && st.Duration < span {
		notes = append(notes, fmt.Sprintf("the measurement window (ladder.duration %s) ends before the trace does "+
			"(%d requests over %s after time_scale): its tail is not replayed", st.Duration, rows, span.Round(time.Millisecond)))
	}
	if warm := plan.TraceWarmupRequests(st.Warmup, rows); rows-warm < 1 {
		notes = append(notes, fmt.Sprintf("the trace has %d requests: nothing is left to measure after %d warm-up requests", rows, warm))
	}
	return notes
}

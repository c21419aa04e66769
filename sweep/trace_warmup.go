package sweep

import (
	"fmt"
	"time"

	"github.com/llmcap/llmcap/plan"
)

// TraceWarmupFraction is the most of a trace a trace step spends on warm-up.
//
// A trace's timeline is fixed, so a warm-up by duration could swallow all of it (200
// rows at time_scale 0.2 span a few seconds) and leave nothing measured. Trace steps
// therefore warm up by requests only: the first min(ladder.warmup.requests,
// TraceWarmupFraction × rows) requests, or TraceWarmupFraction × rows when only
// ladder.warmup.duration is set; ladder.warmup.duration itself is not applied to them.
// With no warm-up configured there is none.
const TraceWarmupFraction = 0.05

// TraceWarmupRequests is the warm-up request count of a trace step of rows requests
// (see TraceWarmupFraction).
func TraceWarmupRequests(w plan.Warmup, rows int) int {
	most := int(float64(rows) * TraceWarmupFraction)
	switch {
	case w.Requests > 0:
		return min(w.Requests, most)
	case w.Duration > 0:
		return most
	}
	return 0
}

// TraceSpan loads a trace segment's window (after Load made its path absolute) and
// returns its request count and its scaled duration: the last request's arrival
// offset after time_scale.
func TraceSpan(t plan.Trace) (rows int, span time.Duration, err error) {
	td, err := loadTrace(t, "")
	if err != nil {
		return 0, 0, err
	}
	return len(td.rows), td.rows[len(td.rows)-1].offset, nil
}

// traceStepNotes are the warnings of a trace step whose window (ladder.duration)
// ends before the trace does, or whose trace is too short to measure after warm-up.
func traceStepNotes(st plan.Step, rows int, span time.Duration) []string {
	var notes []string
	if st.Duration > 0 && st.Duration < span {
		notes = append(notes, fmt.Sprintf("the measurement window (ladder.duration %s) ends before the trace does "+
			"(%d requests over %s after time_scale): its tail is not replayed", st.Duration, rows, span.Round(time.Millisecond)))
	}
	if warm := TraceWarmupRequests(st.Warmup, rows); rows-warm < 1 {
		notes = append(notes, fmt.Sprintf("the trace has %d requests: nothing is left to measure after %d warm-up requests", rows, warm))
	}
	return notes
}

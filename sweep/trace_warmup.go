package sweep

import (
	"fmt"
	"time"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
)

// traceStepNotes are the warnings of a trace step whose window (ladder.duration)
// ends before the trace does (rundir.WarnTraceWindowCut), or whose trace is too short
// to measure after warm-up (rundir.WarnTraceTooShort); each names st's segment and
// step, its message is the note alone (runStep prefixes the step).
func traceStepNotes(st plan.Step, rows int, span time.Duration) []rundir.Warning {
	var notes []rundir.Warning
	note := func(k rundir.WarningKind, msg string) {
		notes = append(notes, rundir.Warning{Kind: k, Segment: st.Segment, Step: st.Index, Message: msg,
			Data: &rundir.WarningData{Count: rows}})
	}
	if st.Duration > 0 && st.Duration < span {
		note(rundir.WarnTraceWindowCut, fmt.Sprintf("the measurement window (ladder.duration %s) ends before the trace does "+
			"(%d requests over %s after time_scale): its tail is not replayed", st.Duration, rows, span.Round(time.Millisecond)))
	}
	if warm := plan.TraceWarmupRequests(st.Warmup, rows); rows-warm < 1 {
		note(rundir.WarnTraceTooShort, fmt.Sprintf("the trace has %d requests: nothing is left to measure after %d warm-up requests", rows, warm))
	}
	return notes
}

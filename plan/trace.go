package plan

import (
	"fmt"
	"math"
	"time"

	"github.com/llmcap/llmcap/tracefile"
)

// Scale is the trace's time and length scaling (time_scale, prompt_scale, output_scale
// and the max_*_tokens caps).
func (t Trace) Scale() tracefile.Scale {
	return tracefile.Scale{Time: t.TimeScale, Prompt: t.PromptScale, Output: t.OutputScale,
		MaxPrompt: t.MaxPromptTokens, MaxOutput: t.MaxOutputTokens}
}

// Load reads the trace's row window (start_row, rows) from File (absolute after Load of
// the plan) and scales it. Errors are tracefile.Read's, or a time-scaled gap between
// rows too long for a time.Duration (about 292 years).
func (t Trace) Load() ([]tracefile.Row, error) {
	raw, err := tracefile.Read(t.Format, t.File, t.StartRow, t.Rows)
	if err != nil {
		return nil, err
	}
	scale := t.Scale()
	for _, r := range raw {
		if gap := math.Abs(float64(r.AtNs-raw[0].AtNs)) * max(scale.Time, 1); gap >= math.MaxInt64 {
			return nil, fmt.Errorf("trace %s: line %d comes %.3g years after the window's first row once scaled by time_scale %g: "+
				"more than a wall-time estimate can hold (about 292 years)", t.File, r.Line, gap/float64(365*24*time.Hour), t.TimeScale)
		}
	}
	return scale.Apply(raw), nil
}

// Span returns the number of requests of the trace's row window and their span: the
// time-scaled offset of the last request from the first.
func (t Trace) Span() (rows int, span time.Duration, err error) {
	r, err := t.Load()
	if err != nil {
		return 0, 0, err
	}
	return len(r), r[len(r)-1].Offset, nil
}

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
func TraceWarmupRequests(w Warmup, rows int) int {
	most := int(float64(rows) * TraceWarmupFraction)
	switch {
	case w.Requests > 0:
		return min(w.Requests, most)
	case w.Duration > 0:
		return most
	}
	return 0
}

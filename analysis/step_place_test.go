package analysis

import (
	"slices"
	"testing"

	"github.com/llmcap/llmcap/plan"
)

// TestStepWarningsNameTheStep: per-step warnings name the step, counted from 1, with
// its load, so two steps at one load (a capacity search that measured 185 users twice,
// steps 7 and 8) are told apart; every schedule words its load.
func TestStepWarningsNameTheStep(t *testing.T) {
	step := func(i int) StepStats {
		return StepStats{Step: i, Segment: "mix", Schedule: plan.ScheduleUsers, Users: 185, Load: 185,
			SteadyStateReason: "TTFT falling across the window"}
	}
	a := &Analysis{Schedule: plan.ScheduleUsers, Segments: []SegmentAnalysis{{Segment: "mix", Steps: []StepStats{step(6), step(7)}}}}
	var got []string
	for _, w := range stepWarnings(a) {
		if w.Kind == WarnNotSteady {
			got = append(got, w.Message)
		}
	}
	want := []string{"segment mix, step 7 (185 users): not in steady state: TTFT falling across the window",
		"segment mix, step 8 (185 users): not in steady state: TTFT falling across the window"}
	if !slices.Equal(got, want) {
		t.Errorf("not-steady warnings\n got %q\nwant %q", got, want)
	}
	for _, c := range []struct {
		s    StepStats
		want string
	}{
		{StepStats{Step: 0, Schedule: plan.ScheduleConcurrency, Load: 8}, "segment s, step 1 (concurrency 8)"},
		{StepStats{Step: 2, Schedule: plan.ScheduleRate, Load: 2.5}, "segment s, step 3 (2.50 req/s)"},
		{StepStats{Step: 9, Schedule: plan.ScheduleTrace, Load: 3.1}, "segment s, step 10 (trace replay)"},
	} {
		if got := stepPlace("s", &c.s); got != c.want {
			t.Errorf("stepPlace = %q, want %q", got, c.want)
		}
	}
}

package sweep

import (
	"math"
	"strings"
	"testing"

	"github.com/llmcap/llmcap/plan"
)

// TestFDsNeededNoOverflow: huge levels saturate the open-files count instead of
// wrapping it negative (concurrency 2^62 doubled by the simulator was -2^63 + 64, so
// the check passed and the message advised `ulimit -n -9223372036854775744`).
func TestFDsNeededNoOverflow(t *testing.T) {
	cases := []struct {
		name string
		step plan.Step
	}{
		{"concurrency 2^62", plan.Step{Schedule: plan.ScheduleConcurrency, Concurrency: 1 << 62}},
		{"concurrency max int", plan.Step{Schedule: plan.ScheduleConcurrency, Concurrency: math.MaxInt}},
		{"users max int", plan.Step{Schedule: plan.ScheduleUsers, Users: math.MaxInt}},
		{"rate 1e300", plan.Step{Schedule: plan.ScheduleRate, Rate: 1e300}},
	}
	for _, tc := range cases {
		for _, sim := range []bool{false, true} {
			got := fdsNeeded([]plan.Step{tc.step}, plan.Ladder{}, sim)
			if got != fdMost+fdMargin {
				t.Errorf("%s (simulator %v): fdsNeeded = %d, want the saturated %d", tc.name, sim, got, fdMost+fdMargin)
			}
		}
	}
	msg := fdError(fdsNeeded([]plan.Step{cases[0].step}, plan.Ladder{}, true), 1024, 4096, "the ladder's concurrency").Error()
	if strings.Contains(msg, " -9") || !strings.Contains(msg, "ulimit -n 9007199254741056") {
		t.Errorf("message %q shows a negative count", msg)
	}
}

// TestFDLever: the open-files message names what to lower: the concurrency, the users
// or the rate of the ladder (max_concurrency when it caps the rate), the search's max.
func TestFDLever(t *testing.T) {
	conc := plan.Step{Schedule: plan.ScheduleConcurrency, Concurrency: 10}
	rate := plan.Step{Schedule: plan.ScheduleRate, Rate: 100000}
	users := plan.Step{Schedule: plan.ScheduleUsers, Users: 500}
	cases := []struct {
		steps  []plan.Step
		ladder plan.Ladder
		want   string
	}{
		{[]plan.Step{conc}, plan.Ladder{}, "the ladder's concurrency"},
		{[]plan.Step{rate}, plan.Ladder{}, "the ladder's rate, or cap it with ladder.max_concurrency"},
		{[]plan.Step{rate}, plan.Ladder{MaxConcurrency: 50000}, "ladder.max_concurrency"},
		{[]plan.Step{conc, users}, plan.Ladder{}, "the ladder's users"},
		{[]plan.Step{conc}, plan.Ladder{Search: &plan.Search{Over: plan.SearchConcurrency}}, "ladder.search.max"},
	}
	for _, tc := range cases {
		if got := fdLever(tc.steps, tc.ladder); got != tc.want {
			t.Errorf("fdLever(%+v) = %q, want %q", tc.steps, got, tc.want)
		}
	}
}

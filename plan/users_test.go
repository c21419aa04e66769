package plan

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestUsersLadderValidation: a users ladder needs sla.think_time > 0, goes alone (not
// with concurrency or rate), has distinct levels ≥ 1, and ladder.think_time_dist is one
// of the known distributions; each problem names its field and what is allowed.
func TestUsersLadderValidation(t *testing.T) {
	const think = "sla: {think_time: 2s}\n"
	cases := []struct {
		name, yaml, path, want string
	}{
		{"users without think time", okSegments + "ladder: {users: [4, 8], duration: 5s}\n",
			"sla.think_time", "sla.think_time: 0s is not allowed: must be > 0 with ladder.users"},
		{"users with a negative think time", okSegments + "ladder: {users: [4], duration: 5s}\nsla: {think_time: -1s}\n",
			"sla.think_time", "-1s is not allowed: must be > 0 with ladder.users"},
		{"users and concurrency", okSegments + "ladder: {concurrency: [1], users: [4], duration: 5s}\n" + think,
			"ladder.users", "ladder.users: ladder.concurrency and ladder.users is not allowed: set only one of ladder.concurrency, ladder.rate and ladder.users"},
		{"users and rate", okSegments + "ladder: {rate: [1], users: [4], duration: 5s}\n" + think,
			"ladder.users", "set only one of ladder.concurrency, ladder.rate and ladder.users"},
		{"zero users", okSegments + "ladder: {users: [4, 0], duration: 5s}\n" + think,
			"ladder.users[1]", "ladder.users[1]: 0 is not allowed: must be >= 1 (users)"},
		{"repeated users", okSegments + "ladder: {users: [4, 8, 4], duration: 5s}\n" + think,
			"ladder.users[2]", "ladder.users[2]: 4 is not allowed: must not repeat ladder.users[0]"},
		{"unknown think-time distribution", okSegments + "ladder: {users: [4], think_time_dist: pareto, duration: 5s}\n" + think,
			"ladder.think_time_dist", `ladder.think_time_dist: "pareto" is not allowed: must be one of exponential, constant`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(writePlan(t, tc.yaml), nil)
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("Load: got %v, want a *ValidationError", err)
			}
			n := 0
			for _, p := range ve.Problems {
				if p.Path != tc.path {
					continue
				}
				n++
				if !strings.Contains(p.Error(), tc.want) {
					t.Errorf("problem %q lacks %q", p.Error(), tc.want)
				}
			}
			if n != 1 {
				t.Errorf("%d problems at %s, want exactly 1: %v", n, tc.path, err)
			}
		})
	}
	// The empty ladder's message names the three schedules and the search.
	msg := loadErr(t, okSegments+"ladder: {users: [], duration: 5s}\n")
	if !strings.Contains(msg, "ladder.rate (req/s), ladder.users (e.g. [10, 50, 100], with sla.think_time) or ladder.search (e.g. {over: concurrency})") {
		t.Errorf("empty ladder: %s", msg)
	}
}

// TestUsersLadderSteps: ladder.users makes one users step per level and segment (then
// the mix), Load() is the users, think_time_dist defaults to exponential and a valid
// users plan loads.
func TestUsersLadderSteps(t *testing.T) {
	p, err := Load(writePlan(t, okSegments+"ladder: {users: [5, 20], duration: 5s, mix: true}\nsla: {think_time: 3s}\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.Ladder.ThinkTimeDist != ThinkExponential {
		t.Errorf("think_time_dist = %q, want the default %q", p.Ladder.ThinkTimeDist, ThinkExponential)
	}
	steps := p.Steps()
	want := []struct {
		seg   string
		users int
	}{{"short", 5}, {"short", 20}, {MixSegment, 5}, {MixSegment, 20}}
	if len(steps) != len(want) {
		t.Fatalf("%d steps, want %d", len(steps), len(want))
	}
	for i, w := range want {
		s := steps[i]
		if s.Index != i || s.Segment != w.seg || s.Schedule != ScheduleUsers || s.Users != w.users ||
			s.Concurrency != 0 || s.Rate != 0 || s.Load() != float64(w.users) {
			t.Errorf("step %d = %+v, want %s with %d users", i, s, w.seg, w.users)
		}
	}
	if _, err := Load(writePlan(t, okSegments+"ladder: {users: [5], think_time_dist: constant, duration: 5s}\nsla: {think_time: 3s}\n"), nil); err != nil {
		t.Errorf("constant think time: %v", err)
	}
}

// TestEstimateUsersStep: a users step's requests take requests / X with X = users /
// (E2E + think time), capped at max_num_seqs / E2E on the simulator; a duration
// shorter than that wins.
func TestEstimateUsersStep(t *testing.T) {
	p := stepPlan() // segment a: E2E 1.3 s on the simulator
	e2e := 1300 * time.Millisecond
	p.SLA.ThinkTime = 2700 * time.Millisecond // a cycle of 4 s per user
	s := Step{Segment: "a", Schedule: ScheduleUsers, Users: 10, Requests: 50}
	// 10 users / 4 s = 2.5 req/s: 50 requests take 20 s, plus one E2E of grace at most (0 here).
	if got, want := p.EstimateStep(s), 20*time.Second; got != want {
		t.Errorf("users step = %v, want %v", got, want)
	}
	s.Grace = time.Minute
	if got, want := p.EstimateStep(s), 20*time.Second+e2e; got != want {
		t.Errorf("users step with grace = %v, want %v", got, want)
	}
	// 1000 users would send 250 req/s; 8 slots serve at most 8 / 1.3 s ≈ 6.15 req/s.
	p.Target.Simulator.MaxNumSeqs = 8
	s = Step{Segment: "a", Schedule: ScheduleUsers, Users: 1000, Requests: 80}
	if got, want := p.EstimateStep(s), time.Duration(80/(8/1.3)*float64(time.Second)); got != want {
		t.Errorf("slot-bound users step = %v, want %v", got, want)
	}
	s.Duration = 5 * time.Second
	if got := p.EstimateStep(s); got != 5*time.Second {
		t.Errorf("duration-capped users step = %v, want 5s", got)
	}
}

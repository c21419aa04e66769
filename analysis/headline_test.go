package analysis

import (
	"strings"
	"testing"

	"github.com/llmcap/llmcap/plan"
)

// TestAnswerIsOnePlainSentence: every capacity kind states one number of users (or of
// requests in flight) in plain words, without regime names, constraint formulas or
// method names, and sizes the largest target in GPUs, machines or replicas.
func TestAnswerIsOnePlainSentence(t *testing.T) {
	sz := sizing{gpu: "H100", model: "Llama 3.1 8B", gpusPerReplica: 1, gpuHourUSD: 2.5, headroom: 0.2, targets: []int{100, 5000}}
	users := Capacity{Method: MethodMeasured, Bottleneck: RegimeQueue, UsersSource: UsersMeasured, UsersWithThinkTime: 225.4, Users: 225,
		ThinkTimeS: 10, MaxConcurrencyWithinSLA: 22.3, LimitingConstraint: "TTFT p95 ≤ 500 ms", PassLoad: 225, FailLoad: 240, RangeLow: 225, RangeHigh: 239}
	cases := []struct {
		name     string
		schedule string
		c        Capacity
		sz       sizing
		want     string
	}{
		{"measured users", plan.ScheduleUsers, users, sz,
			"One H100 serving Llama 3.1 8B keeps 225 users (who pause 10 s between requests) within the SLA — about 22 requests in flight. 5,000 users need 28 GPUs, about $51,100 a month."},
		{"lower bound", plan.ScheduleUsers, with(users, func(c *Capacity) { c.Method, c.Bottleneck = MethodAtLeast, RegimeNone }), sz,
			"One H100 serving Llama 3.1 8B keeps at least 225 users (who pause 10 s between requests) within the SLA — about 22 requests in flight. 5,000 users need at most 28 GPUs, about $51,100 a month."},
		{"CPU without price", plan.ScheduleUsers, users, with(sz, func(s *sizing) { s.gpu, s.gpuHourUSD = "2-core CPU", 0 }),
			"One 2-core CPU serving Llama 3.1 8B keeps 225 users (who pause 10 s between requests) within the SLA — about 22 requests in flight. 5,000 users need 28 machines."},
		{"converted from concurrency", plan.ScheduleConcurrency, with(users, func(c *Capacity) { c.UsersSource, c.Method = UsersConverted, MethodInterpolated }),
			with(sz, func(s *sizing) { s.gpusPerReplica = 2 }),
			"One 2×H100 replica serving Llama 3.1 8B keeps about 225 users (who pause 10 s between requests) within the SLA — 22.3 requests in flight. 5,000 users need 28 replicas (56 GPUs), about $102,200 a month."},
		{"no think time", plan.ScheduleConcurrency, with(users, func(c *Capacity) {
			c.UsersSource, c.ThinkTimeS, c.UsersWithThinkTime, c.MaxConcurrencyWithinSLA = "", 0, 22, 22
		}), sz,
			"One H100 serving Llama 3.1 8B keeps 22 requests in flight within the SLA. 5,000 users need 285 GPUs, about $520,125 a month."},
		{"whole rate", plan.ScheduleRate, with(users, func(c *Capacity) { c.UsersSource, c.MaxRateWithinSLA = UsersConverted, 15 }), sz,
			"One H100 serving Llama 3.1 8B keeps about 225 users (who pause 10 s between requests) within the SLA — 15 requests/s. 5,000 users need 28 GPUs, about $51,100 a month."},
		{"rate", plan.ScheduleRate, with(users, func(c *Capacity) { c.UsersSource, c.MaxRateWithinSLA = UsersConverted, 20.2 }), sz,
			"One H100 serving Llama 3.1 8B keeps about 225 users (who pause 10 s between requests) within the SLA — 20.2 requests/s. 5,000 users need 28 GPUs, about $51,100 a month."},
	}
	for _, tc := range cases {
		c := tc.c
		rows, _ := whatIfRows(c, tc.sz, nil)
		a := &Analysis{Overall: c, WhatIf: rows, Schedule: tc.schedule}
		got := answerSentence(a, tc.sz)
		if got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
		for _, bad := range []string{"-bound", "TTFT", "≤", "at_least", "closed population", "measured:", "/month"} {
			if strings.Contains(got, bad) {
				t.Errorf("%s: answer %q holds %q", tc.name, got, bad)
			}
		}
	}
}

// TestCertaintySaysWhatIsMeasured: the certainty line names what was measured, what
// the model filled in and the range, per capacity method.
func TestCertaintySaysWhatIsMeasured(t *testing.T) {
	c := Capacity{Method: MethodMeasured, UsersSource: UsersMeasured, UsersWithThinkTime: 186, PassLoad: 186, FailLoad: 192, RangeLow: 186, RangeHigh: 191}
	cases := []struct {
		c    Capacity
		want string
	}{
		{c, "Measured: 186 users met the SLA and 192 users broke it, so capacity lies between 186 and 191 users."},
		{with(c, func(c *Capacity) {
			c.Method, c.UsersWithThinkTime, c.RangeLow, c.RangeHigh = MethodInterpolated, 188, 187, 190
		}),
			"Modelled between measurements: 186 users met the SLA and 192 users broke it; between them the queueing model puts capacity at about 188 users (range 187–190 users)."},
		{with(c, func(c *Capacity) { c.Method, c.RangeHigh, c.FailLoad = MethodAtLeast, 0, 0 }),
			"At least 186 users: no load tested broke the SLA, so the true capacity is higher; this number is a lower bound."},
		{with(c, func(c *Capacity) { c.Method = MethodBelowFirstStep }), "Measured: even the lowest load tested broke the SLA, so this deployment serves no users within it."},
	}
	for _, tc := range cases {
		if got := CertaintyText(plan.ScheduleUsers, tc.c); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.c.Method, got, tc.want)
		}
	}
}

// TestNoLimitTellsOneStory: a ladder whose every step met the SLA while its top step
// already queued says no limit was reached and that the queue is the likely next one,
// never a bottleneck beside "none".
func TestNoLimitTellsOneStory(t *testing.T) {
	sa := &SegmentAnalysis{Steps: []StepStats{{Load: 4}, {Load: 8, Regime: RegimeQueue}}}
	c := Capacity{Method: MethodAtLeast, Bottleneck: RegimeNone}
	got := limitWords(&Analysis{Schedule: plan.ScheduleConcurrency}, c, sa, deployment{})
	want := "No limit was reached: every load tested met the SLA. At the highest load requests already wait in line for the server, so the limit is probably not far above."
	if got != want {
		t.Errorf("limit\n got %q\nwant %q", got, want)
	}
	if e := atLeastEvidence(sa.Steps); !strings.HasPrefix(e, "no bottleneck reached within the loads tested; the highest, load 8, already shows the first signs of the queue regime") {
		t.Errorf("evidence %q", e)
	}
}

// with returns a copy of v changed by f.
func with[T any](v T, f func(*T)) T {
	f(&v)
	return v
}

// One request in flight is singular: "about 1 request in flight", not "1 requests".
func TestInFlightWordsSingular(t *testing.T) {
	a := &Analysis{Schedule: plan.ScheduleUsers}
	for _, tc := range []struct {
		c    Capacity
		want string
	}{
		{Capacity{ThinkTimeS: 2, Users: 4, MaxConcurrencyWithinSLA: 1.2, UsersSource: UsersMeasured}, "about 1 request in flight"},
		{Capacity{ThinkTimeS: 2, Users: 9, MaxConcurrencyWithinSLA: 2.4, UsersSource: UsersMeasured}, "about 2 requests in flight"},
		{Capacity{ThinkTimeS: 2, Users: 9, MaxConcurrencyWithinSLA: 1, UsersSource: UsersConverted}, "1 request in flight"},
	} {
		if got := inFlightWords(a, tc.c); got != tc.want {
			t.Errorf("inFlightWords(%+v) = %q, want %q", tc.c, got, tc.want)
		}
	}
}

// TestOneRequestInFlightIsSingular: a capacity of one request in flight (a one-off run
// against a small server) reads "1 request in flight" in the answer and the certainty
// line, never "1 requests in flight"; "1 user" likewise.
func TestOneRequestInFlightIsSingular(t *testing.T) {
	c := Capacity{Method: MethodMeasured, MaxConcurrencyWithinSLA: 1, PassLoad: 1, FailLoad: 2}
	a := &Analysis{Overall: c, Schedule: plan.ScheduleConcurrency}
	if got, want := answerSentence(a, sizing{model: "stories:latest"}), "One replica serving stories:latest keeps 1 request in flight within the SLA."; got != want {
		t.Errorf("answer\n got %q\nwant %q", got, want)
	}
	if got, want := CertaintyText(plan.ScheduleConcurrency, c), "Measured: 1 request in flight met the SLA and 2 requests in flight broke it, so capacity lies at 1 request in flight."; got != want {
		t.Errorf("certainty\n got %q\nwant %q", got, want)
	}
	u := Capacity{Method: MethodAtLeast, UsersSource: UsersMeasured, UsersWithThinkTime: 1, Users: 1, ThinkTimeS: 5}
	if got, want := CertaintyText(plan.ScheduleUsers, u), "At least 1 user: no load tested broke the SLA, so the true capacity is higher; this number is a lower bound."; got != want {
		t.Errorf("certainty (users)\n got %q\nwant %q", got, want)
	}
}

// TestUsersNoteWithoutThinkTime: a concurrency or rate ladder with no think time (the
// one-off default, sla.think_time 0) has no users to estimate, so page 1's note says so
// instead of speaking of users "who pause 0 s between requests".
func TestUsersNoteWithoutThinkTime(t *testing.T) {
	c := Capacity{Method: MethodMeasured, UsersSource: UsersConverted, UsersWithThinkTime: 4, Users: 4, MaxConcurrencyWithinSLA: 4}
	for schedule, want := range map[string]string{
		plan.ScheduleConcurrency: "No think time was set, so each user counts as one request in flight at all times.",
		plan.ScheduleRate:        "The test sent requests at fixed rates; no think time was set, so no user count is estimated.",
	} {
		if got := usersNote(&Analysis{Schedule: schedule}, c); got != want {
			t.Errorf("%s: usersNote\n got %q\nwant %q", schedule, got, want)
		}
	}
	c.ThinkTimeS = 10
	if got := usersNote(&Analysis{Schedule: plan.ScheduleConcurrency}, c); !strings.Contains(got, "who pause 10 s between requests") {
		t.Errorf("with think time 10 s: usersNote %q does not name the pause", got)
	}
}

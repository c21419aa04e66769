package analysis

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/sweep"
)

// TestUsersInSystemSolvesTheClosedPopulation: the model's requests in system N for n
// users thinking Z satisfy N + X(N)·Z = n (each user cycles through R and Z, N = X·R),
// below the slots (the quadratic) and past them (N = n − X_max·Z).
func TestUsersInSystemSolvesTheClosedPopulation(t *testing.T) {
	const lout = 64
	m := qmodel{c: 8, t0: 40, tp: 0.5, d0: 6, d1: 0.2, think: 2000, lout: lout}
	closed := m
	closed.think = 0
	for _, n := range []float64{1, 5, 20, 60, 100, 400} {
		nIn := m.usersInSystem(n, lout)
		x := closed.throughput(nIn, lout) // req/ms at N in flight
		near(t, fmt.Sprintf("%v users: N + X·Z", n), nIn+x*m.think, n, 1e-6*n)
		st, cst := m.state(n, lout), closed.state(nIn, lout)
		near(t, fmt.Sprintf("%v users: throughput", n), st.x, cst.x, 1e-12)
		if nIn >= n || (n > 60 && nIn <= m.c) {
			t.Errorf("%v users: %.2f in system", n, nIn)
		}
	}
	// The knee: c + X_max·Z users fill the slots exactly.
	knee := m.c + m.maxThroughputRps()/1000*m.think
	near(t, "in system at the knee", m.usersInSystem(knee, lout), m.c, 1e-6)
}

// usersSimPlan is a users ladder against the embedded simulator (llama-3.1-8b on an
// H100-SXM, max_num_seqs 8, sped up 4×): users think 0.2 s on average (exponential),
// so about 8 + X_max·0.2 s ≈ 20 users fill the slots; 48 users queue well past the
// TTFT p95 bound.
func usersSimPlan() *plan.Plan {
	p := realSimPlan()
	p.Name = "analysis-users"
	p.Ladder = plan.Ladder{Users: []int{4, 12, 48}, Warmup: plan.Warmup{Duration: 300 * time.Millisecond},
		Duration: 3 * time.Second, Grace: 5 * time.Second}
	p.SLA = plan.SLA{TTFTMs: map[string]float64{"p95": 150}, MaxErrorRate: 0.01, ThinkTime: 200 * time.Millisecond}
	p.Report.WhatIfGPUs = nil
	return p
}

// TestUsersLadderCapacityIsMeasured runs a users ladder on the embedded simulator: each
// step's load is its users, its throughput follows the closed population's law X ≈
// N / (R + Z) and fewer requests than users are in flight; the capacity is measured
// users (UsersSource measured), interpolated between the last passing and the first
// failing users steps as the current capacity rule does (Users is its floor, so it lies
// in [last passing, first failing]), with the requests in flight there as
// MaxConcurrencyWithinSLA; the answer states users thinking ~0.2 s (exponential),
// measured, and no converted estimate.
func TestUsersLadderCapacityIsMeasured(t *testing.T) {
	if testing.Short() {
		t.Skip("drives the embedded simulator for about 12 s: skipped with -short")
	}
	p := usersSimPlan()
	dir := t.TempDir()
	if err := sweep.Run(context.Background(), p, sweep.Options{OutDir: dir}); err != nil {
		t.Fatal(err)
	}
	a, err := Analyze(dir)
	if err != nil {
		t.Fatal(err)
	}
	if a.Schedule != plan.ScheduleUsers {
		t.Errorf("schedule %q, want users", a.Schedule)
	}
	sa := a.Segments[0]
	for _, s := range sa.Steps {
		if s.SimulatorLate {
			t.Skipf("users %d: the simulator ran late (host starved of CPU): no evidence to judge", s.Users)
		}
	}
	pass, fail := 0.0, 0.0
	for i := range sa.Steps {
		s := &sa.Steps[i]
		n := inFlightOf(s)
		law := float64(s.Users) / (residenceMs(s)/1000 + 0.2)
		t.Logf("users %2d: n=%d TTFT p95 %6.0f ms, E2E %5.0f ms, X %.1f req/s (N/(R+Z) %.1f), in flight %.2f, SLA %v, regime %s",
			s.Users, s.Requests, s.TTFTMs.P95, s.E2EMs.Mean, s.LittleThroughputRps, law, n, s.MeetsSLA, s.Regime)
		if s.Schedule != plan.ScheduleUsers || s.Load != float64(s.Users) || s.Users == 0 {
			t.Errorf("step %d: schedule %s load %v users %d", s.Step, s.Schedule, s.Load, s.Users)
		}
		// A window's request count is close to Poisson: allow 3 standard errors (15% at least).
		if tol := math.Max(0.15, 3/math.Sqrt(float64(s.Requests))); math.Abs(s.LittleThroughputRps-law) > tol*law {
			t.Errorf("users %d: throughput %.1f req/s, want N/(R+Z) = %.1f ± %.0f%%", s.Users, s.LittleThroughputRps, law, 100*tol)
		}
		if n >= float64(s.Users) || n <= 0 {
			t.Errorf("users %d: %.2f requests in flight, want fewer than the users (they think)", s.Users, n)
		}
		switch {
		case s.MeetsSLA && fail == 0:
			pass = s.Load
		case !s.MeetsSLA && fail == 0:
			fail = s.Load
		}
	}
	if f := sa.Fit; f != nil {
		t.Logf("fit: %.2f slots (identified %v, max_num_seqs 8), X_max %.1f req/s, R² %.3f", f.Slots, f.SlotsIdentified, f.ServiceRate, f.R2)
	}
	c := sa.Capacity
	t.Logf("capacity: %.2f users (%d) [%.1f, %.1f] %s, %.2f in flight, %.1f req/s, %s-bound; answer: %s",
		c.UsersWithThinkTime, c.Users, c.RangeLow, c.RangeHigh, c.Method, c.MaxConcurrencyWithinSLA, c.ThroughputAtCapacity, c.Bottleneck, a.Answer)
	if pass == 0 || fail == 0 {
		t.Skipf("the SLA did not break within the ladder (last passing %v, first failing %v): machine too loaded or too fast to judge", pass, fail)
	}
	if c.UsersSource != UsersMeasured || a.Overall.UsersSource != UsersMeasured ||
		(c.Method != MethodMeasured && c.Method != MethodInterpolated) {
		t.Fatalf("users source %q (overall %q), method %s: want measured users, a measured or interpolated capacity",
			c.UsersSource, a.Overall.UsersSource, c.Method)
	}
	if c.RangeLow < pass || c.RangeHigh >= fail || c.RangeLow > c.UsersWithThinkTime || c.RangeHigh < c.UsersWithThinkTime {
		t.Errorf("range [%v, %v] around %v: want it inside the bracket [%v, %v)", c.RangeLow, c.RangeHigh, c.UsersWithThinkTime, pass, fail)
	}
	if c.Users != int(math.Floor(c.UsersWithThinkTime)) || c.UsersWithThinkTime < pass || c.UsersWithThinkTime > fail {
		t.Errorf("users %d (%.2f), want the floor of a capacity in [%v, %v]", c.Users, c.UsersWithThinkTime, pass, fail)
	}
	if c.ThinkTimeS != 0.2 || c.MaxRateWithinSLA != 0 {
		t.Errorf("think %v s, rate %v", c.ThinkTimeS, c.MaxRateWithinSLA)
	}
	// In flight at capacity = X · R, between the bracketing steps' own in-flight counts.
	var lo, hi *StepStats
	for i := range sa.Steps {
		switch s := &sa.Steps[i]; s.Load {
		case pass:
			lo = s
		case fail:
			hi = s
		}
	}
	if c.MaxConcurrencyWithinSLA < inFlightOf(lo) || c.MaxConcurrencyWithinSLA > inFlightOf(hi) ||
		c.MaxConcurrencyWithinSLA >= c.UsersWithThinkTime {
		t.Errorf("in flight at capacity %.2f, want between %.2f and %.2f and below the %.1f users",
			c.MaxConcurrencyWithinSLA, inFlightOf(lo), inFlightOf(hi), c.UsersWithThinkTime)
	}
	if c.ThroughputAtCapacity < lo.LittleThroughputRps || c.ThroughputAtCapacity > hi.LittleThroughputRps {
		t.Errorf("throughput at capacity %.2f outside [%.2f, %.2f]", c.ThroughputAtCapacity, lo.LittleThroughputRps, hi.LittleThroughputRps)
	}
	head := fmt.Sprintf("keeps %s users (who pause 0.2 s between requests) within the SLA — about %s requests in flight.",
		commaInt(float64(c.Users)), fmtNum(roundTo(c.MaxConcurrencyWithinSLA, 0)))
	if c.Method == MethodInterpolated { // between two measured users steps, the model's
		head = "keeps about " + head[len("keeps "):]
	}
	if !strings.Contains(a.Answer, head) {
		t.Errorf("answer %q lacks %q", a.Answer, head)
	}
	if n := a.Headline.Note; !strings.Contains(n, "pauses about 0.2 s (at random) before the next") {
		t.Errorf("note %q does not say how the users pause", n)
	}
	if strings.Contains(a.Answer, "estimated") || strings.Contains(a.Answer, "i.e.") {
		t.Errorf("answer %q converts measured users", a.Answer)
	}
	var out strings.Builder
	if err := PrintSummary(&out, a); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"  users  reqs", fmt.Sprintf("Capacity: max users %s,", loadWords(c.UsersWithThinkTime)),
		fmt.Sprintf("(%d users measured, 0.2 s exponential think time)", c.Users)} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, out.String())
		}
	}
}

// TestConcurrencyLadderUsersAreConverted: a concurrency ladder with a think time gives
// users converted from its capacity (X · (R + Z)), and the answer labels them as an
// estimate with its assumption.
func TestConcurrencyLadderUsersAreConverted(t *testing.T) {
	p := simPlan("converted", queueLadder, plan.SLA{TTFTMs: map[string]float64{"p95": 3000}, ThinkTime: 10 * time.Second})
	a := analyzeSim(t, queueSim, p)
	c := a.Overall
	if c.UsersSource != UsersConverted || c.Users <= 0 {
		t.Fatalf("users %d source %q, want converted", c.Users, c.UsersSource)
	}
	want := fmt.Sprintf("keeps about %s users (who pause 10 s between requests) within the SLA — %s requests in flight.",
		commaInt(float64(c.Users)), fmtNum(roundTo(c.MaxConcurrencyWithinSLA, 1)))
	if !strings.Contains(a.Answer, want) {
		t.Errorf("answer %q lacks %q", a.Answer, want)
	}
	if n := a.Headline.Note; !strings.Contains(n, "are estimated from them and the answer time, not measured") {
		t.Errorf("note %q does not say the users are estimated", n)
	}
	p.SLA.ThinkTime = 2500 * time.Millisecond // a fractional think time is written as it is
	if a := analyzeSim(t, queueSim, p); !strings.Contains(a.Answer, "users (who pause 2.5 s between requests)") {
		t.Errorf("answer with a 2.5 s think time: %q", a.Answer)
	}
	// Without a think time there is nothing to convert with: no users sentence.
	p.SLA.ThinkTime = 0
	if a := analyzeSim(t, queueSim, p); strings.Contains(a.Answer, "pause") {
		t.Errorf("answer without think time %q mentions it", a.Answer)
	}
}

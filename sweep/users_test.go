package sweep

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
)

// usersPlan is a users step of n users thinking z on average against url, with a window
// of dur and a grace of 1 s.
func usersPlan(url string, n int, z, dur time.Duration, dist string) *plan.Plan {
	p := rtPlan(url)
	p.Ladder = plan.Ladder{Users: []int{n}, ThinkTimeDist: dist, Duration: dur, Grace: time.Second}
	p.SLA.ThinkTime = z
	return p
}

// runUsers runs p into a fresh directory and returns its records and its one step.
func runUsers(t *testing.T, p *plan.Plan) ([]rundir.Record, rundir.StepSummary) {
	t.Helper()
	dir := t.TempDir()
	if err := Run(context.Background(), p, Options{OutDir: dir}); err != nil {
		t.Fatal(err)
	}
	recs, steps, _ := rtRead(t, dir)
	if len(steps) != 1 {
		t.Fatalf("%d steps, want 1", len(steps))
	}
	return recs, steps[0]
}

// userOf is the user of a users step's record, from its session id
// "sSSSS-uUUUUUU-KKKKK".
func userOf(t *testing.T, r rundir.Record) string {
	t.Helper()
	parts := strings.Split(r.SessionID, "-")
	if len(parts) != 3 || !strings.HasPrefix(parts[1], "u") {
		t.Fatalf("session id %q is not a user's session", r.SessionID)
	}
	return parts[1]
}

// thinkGaps are, per user in send order, the pauses between one reply's last event
// and the user's next scheduled send (ms: its think time, plus the few µs the client
// takes to read the end of the reply), over every phase.
func thinkGaps(t *testing.T, recs []rundir.Record) []float64 {
	t.Helper()
	byUser := map[string][]rundir.Record{}
	for _, r := range recs {
		u := userOf(t, r)
		byUser[u] = append(byUser[u], r)
	}
	var gaps []float64
	for _, rs := range byUser {
		slices.SortFunc(rs, func(a, b rundir.Record) int { return cmpInt64(a.SentNs, b.SentNs) })
		for i := 1; i < len(rs); i++ {
			if rs[i-1].EndNs > rs[i].SentNs {
				t.Fatalf("user %s sent %s before its previous reply %s ended: a user has one request at a time",
					userOf(t, rs[i]), rs[i].RequestID, rs[i-1].RequestID)
			}
			gaps = append(gaps, float64(rs[i].ScheduledNs-rs[i-1].EndNs)/1e6)
		}
	}
	return gaps
}

// cycleGapMs is the mean pause between a reply's last event and its user's next send
// (ms): think time, reading the end of the reply and the client's wake-up lag.
func cycleGapMs(t *testing.T, recs []rundir.Record) float64 {
	t.Helper()
	var lag []float64
	for _, r := range recs {
		lag = append(lag, *r.ScheduleLagMs)
	}
	think, _ := meanCV(thinkGaps(t, recs))
	l, _ := meanCV(lag)
	return think + l
}

func meanCV(xs []float64) (mean, cv float64) {
	for _, x := range xs {
		mean += x / float64(len(xs))
	}
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss/float64(len(xs)-1)) / mean
}

// inFlight is the time-weighted mean and the maximum of the requests in flight
// (sent → last event) over [from, to].
func inFlight(recs []rundir.Record, from, to int64) (mean float64, most int) {
	type ev struct {
		at int64
		d  int
	}
	var evs []ev
	for _, r := range recs {
		if r.SentNs > 0 && r.EndNs > r.SentNs {
			evs = append(evs, ev{r.SentNs, 1}, ev{r.EndNs, -1})
		}
	}
	slices.SortFunc(evs, func(a, b ev) int { return cmpInt64(a.at, b.at) })
	n, last := 0, from
	var area float64
	for _, e := range evs {
		if e.at > from && e.at < to {
			area += float64(n) * float64(e.at-last)
			last = e.at
		}
		n += e.d
		if e.at >= from && e.at < to {
			most = max(most, n)
		}
	}
	area += float64(n) * float64(to-max(last, from))
	return area / float64(to-from), most
}

// TestUsersStepIsAClosedPopulation: 40 users thinking 100 ms (exponential) against a
// server answering in ~26 ms send at X ≈ N / (R + Z) (within 10%; R and the pause
// between a reply and the next send measured, so a loaded host does not bias it); the
// requests in flight fluctuate around X·R, peaking above their mean but far below N;
// think times are exponential (mean ≈ Z, coefficient of variation ≈ 1); each record
// carries the users and when its user's think ended.
func TestUsersStepIsAClosedPopulation(t *testing.T) {
	srv := newRTServer(t, 20*time.Millisecond, 2*time.Millisecond)
	const n, z = 40, 100 * time.Millisecond
	recs, st := runUsers(t, usersPlan(srv.url(), n, z, 2*time.Second, ""))
	var e2e []float64
	sent := 0
	var window []rundir.Record
	for _, r := range recs {
		if !r.OK() {
			t.Fatalf("request failed: %+v", r)
		}
		if r.Schedule != plan.ScheduleUsers || r.Users != n || r.Concurrency != 0 {
			t.Fatalf("record labels wrong: %+v", r)
		}
		if r.ScheduledNs == 0 || r.ScheduleLagMs == nil || *r.ScheduleLagMs < 0 {
			t.Fatalf("record without its scheduled time (the end of its user's think): %+v", r)
		}
		if r.SentNs >= st.MeasureStartNs && r.SentNs < st.MeasureEndNs {
			sent++
			e2e = append(e2e, *r.E2EMs)
			window = append(window, r)
		}
	}
	rMs, _ := meanCV(e2e)
	gapMs := cycleGapMs(t, recs)
	windowS := float64(st.MeasureEndNs-st.MeasureStartNs) / 1e9
	x := float64(sent) / windowS
	want := float64(n) / ((rMs + gapMs) / 1000)
	t.Logf("X %.1f req/s over %.2f s (%d sent), N/(R+Z) %.1f with R %.1f ms, Z (measured) %.2f ms", x, windowS, sent, want, rMs, gapMs)
	if math.Abs(x-want) > 0.10*want {
		t.Errorf("throughput %.1f req/s, want N/(R+Z) = %.1f ± 10%%", x, want)
	}
	mean, most := inFlight(window, st.MeasureStartNs, st.MeasureEndNs)
	t.Logf("in flight: mean %.2f (X·R %.2f), max %d, sweep max %d", mean, x*rMs/1000, most, st.MaxInFlight)
	// In flight is about Binomial(N, R/(R+Z)): mean ≈ 8.5, sd ≈ 2.6 here.
	if !(float64(most) >= mean+2 && most < 3*n/4) {
		t.Errorf("in flight mean %.2f max %d: want a fluctuating count, max above the mean and well below %d users", mean, most, n)
	}
	if math.Abs(mean-x*rMs/1000) > 0.15*mean {
		t.Errorf("mean in flight %.2f, want Little's X·R = %.2f", mean, x*rMs/1000)
	}
	if seen, _ := srv.stats(); st.MaxInFlight >= n || seen >= n {
		t.Errorf("max in flight %d (server saw %d): with Z ≫ R the users should never all be in flight", st.MaxInFlight, seen)
	}
	gapMean, cv := meanCV(thinkGaps(t, recs))
	t.Logf("think gaps: mean %.1f ms, CV %.2f", gapMean, cv)
	if math.Abs(gapMean-100) > 15 || cv < 0.75 || cv > 1.25 {
		t.Errorf("think gaps mean %.1f ms CV %.2f, want exponential: mean ≈ 100 ms, CV ≈ 1", gapMean, cv)
	}
}

// TestUsersConstantThinkTime: with think_time_dist constant every pause is Z (CV near
// 0), and the users' first requests are staggered over [0, Z), not sent at once.
func TestUsersConstantThinkTime(t *testing.T) {
	srv := newRTServer(t, 5*time.Millisecond, time.Millisecond)
	const n, z = 20, 150 * time.Millisecond
	recs, st := runUsers(t, usersPlan(srv.url(), n, z, time.Second, plan.ThinkConstant))
	gapMean, cv := meanCV(thinkGaps(t, recs))
	t.Logf("think gaps: mean %.1f ms, CV %.3f", gapMean, cv)
	if math.Abs(gapMean-150) > 10 || cv > 0.05 {
		t.Errorf("think gaps mean %.1f ms CV %.3f, want constant 150 ms (CV ≈ 0)", gapMean, cv)
	}
	first := map[string]int64{}
	for _, r := range recs {
		if u := userOf(t, r); first[u] == 0 || r.SentNs < first[u] {
			first[u] = r.SentNs
		}
	}
	if len(first) != n {
		t.Fatalf("%d users sent, want %d", len(first), n)
	}
	lo, hi := int64(math.MaxInt64), int64(0)
	for _, at := range first {
		lo, hi = min(lo, at-st.StartNs), max(hi, at-st.StartNs)
	}
	if spread := time.Duration(hi - lo); spread < z/2 || time.Duration(hi) > z+50*time.Millisecond {
		t.Errorf("first sends spread over %v (last at %v): want them staggered over [0, %v)", spread, time.Duration(hi), z)
	}
}

// TestUsersStepEndsOnTime: users thinking 5 s on average in a 1 s window do not keep
// the step open: the window's end cuts their thinks short, so the step ends soon after
// its window (waiting out 30 exponential thinks of mean 5 s would take ~20 s).
func TestUsersStepEndsOnTime(t *testing.T) {
	srv := newRTServer(t, 5*time.Millisecond, time.Millisecond)
	p := usersPlan(srv.url(), 30, 5*time.Second, time.Second, "")
	recs, st := runUsers(t, p)
	if len(recs) == 0 {
		t.Fatal("no request sent in the window (30 users × 1 s / 5 s ≈ 6 expected)")
	}
	if step := time.Duration(st.EndNs - st.StartNs); step > 2500*time.Millisecond {
		t.Errorf("step took %v, want about its 1 s window: thinks must end with the window", step)
	}
}

// TestUsersMultiTurnSessions: inside a multi-turn session a user waits the session's
// own multi_turn.think_time_s (20 ms) between turns, and the SLA think time (300 ms,
// constant) between sessions; a session stays with its user and its turns are in order.
func TestUsersMultiTurnSessions(t *testing.T) {
	srv := newRTServer(t, 5*time.Millisecond, time.Millisecond)
	p := usersPlan(srv.url(), 6, 300*time.Millisecond, 1500*time.Millisecond, plan.ThinkConstant)
	p.Segments[0].MultiTurn = &plan.MultiTurn{Turns: 3, ThinkTimeS: plan.Dist{Kind: plan.DistFixed, Value: 0.02}}
	recs, _ := runUsers(t, p)
	byUser := map[string][]rundir.Record{}
	for _, r := range recs {
		byUser[userOf(t, r)] = append(byUser[userOf(t, r)], r)
	}
	var inSession, between []float64
	for u, rs := range byUser {
		slices.SortFunc(rs, func(a, b rundir.Record) int { return cmpInt64(a.SentNs, b.SentNs) })
		for i := 1; i < len(rs); i++ {
			gap := float64(rs[i].ScheduledNs-rs[i-1].EndNs) / 1e6
			switch {
			case rs[i].SessionID == rs[i-1].SessionID:
				if rs[i].Turn != rs[i-1].Turn+1 {
					t.Errorf("user %s: turn %d after turn %d of %s", u, rs[i].Turn, rs[i-1].Turn, rs[i].SessionID)
				}
				inSession = append(inSession, gap)
			default:
				if rs[i].Turn != 0 || rs[i-1].Turn != 2 {
					t.Errorf("user %s: session %s starts at turn %d after turn %d of %s", u, rs[i].SessionID, rs[i].Turn,
						rs[i-1].Turn, rs[i-1].SessionID)
				}
				between = append(between, gap)
			}
		}
	}
	if len(inSession) < 10 || len(between) < 3 {
		t.Fatalf("%d gaps within sessions, %d between: too few", len(inSession), len(between))
	}
	mi, _ := meanCV(inSession)
	mb, _ := meanCV(between)
	t.Logf("gaps: %.1f ms between turns (%d), %.1f ms between sessions (%d)", mi, len(inSession), mb, len(between))
	if math.Abs(mi-20) > 8 || math.Abs(mb-300) > 15 {
		t.Errorf("gaps %.1f ms between turns, %.1f ms between sessions; want 20 and 300", mi, mb)
	}
}

// TestFDsNeededCountsUsers: a users step may have every user in flight at once.
func TestFDsNeededCountsUsers(t *testing.T) {
	steps := []plan.Step{{Schedule: plan.ScheduleConcurrency, Concurrency: 8}, {Schedule: plan.ScheduleUsers, Users: 500}}
	if got := fdsNeeded(steps, plan.Ladder{}, false); got != 500+fdMargin {
		t.Errorf("fdsNeeded = %d, want %d", got, 500+fdMargin)
	}
	if got := fdsNeeded(steps, plan.Ladder{}, true); got != 1000+fdMargin {
		t.Errorf("fdsNeeded with the simulator = %d, want %d", got, 1000+fdMargin)
	}
}

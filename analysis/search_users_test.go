package analysis

import (
	"context"
	"math"
	"sort"
	"testing"

	"github.com/llmcap/llmcap/internal/testlock"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
	"github.com/llmcap/llmcap/sweep"
)

// demoUsersPlan is the demo plan (configs/demo.yaml: a capacity search over users on
// the simulator) reduced to its mix and compressed 4×: the simulator runs 4× faster,
// so the think time and the SLA thresholds are divided by 4 as well.
func demoUsersPlan(t *testing.T, over map[string]any) *plan.Plan {
	t.Helper()
	ov := map[string]any{"target.simulator.speed_up": 4, "sla.think_time": "2500ms", "sla.ttft_ms.p95": 125,
		"sla.itl_ms.p95": 12.5, "ladder.per_segment": false, "ladder.mix": true, "ladder.warmup.duration": "1s",
		"ladder.duration": "8s", "ladder.grace": "3s", "report.formats": []any{"json"}}
	for k, v := range over {
		ov[k] = v
	}
	p, err := plan.Load("../configs/demo.yaml", ov)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestDemoSearchUsersAgreesWithMeasuredUsers: the demo's capacity search over users
// reports a number of users within the SLA that a dense users ladder around it,
// measured afterwards, confirms within ±10%, and calls it queue-bound.
func TestDemoSearchUsersAgreesWithMeasuredUsers(t *testing.T) {
	if testing.Short() {
		t.Skip("drives the simulator for about a minute")
	}
	testlock.Hold(t) // timing-critical: not beside the other packages' heavy tests
	p := demoUsersPlan(t, nil)
	dir := t.TempDir()
	if err := sweep.Run(context.Background(), p, sweep.Options{OutDir: dir, Probe: Probe}); err != nil {
		t.Fatal(err)
	}
	a, err := Analyze(dir)
	if err != nil {
		t.Fatal(err)
	}
	c := a.Overall
	t.Logf("search: %d steps (%s), stop %s; %d users (%s, %s), range %g–%g; answer: %s", a.Mix.Search.Steps,
		searchPathText(a.Mix.Search), a.Mix.Search.Stop, c.Users, c.Method, c.UsersSource, c.RangeLow, c.RangeHigh, a.Answer)
	for _, s := range a.Mix.Steps {
		if s.SimulatorLate {
			t.Skipf("users %d: the simulator ran late (host starved of CPU): no evidence to judge", s.Users)
		}
	}
	// The answer is measured, or (when the step budget ran out before the bracket
	// narrowed to the search tolerance: CI's loaded host read 184✓ 198✗ after 8 steps)
	// interpolated inside the measured bracket of users.
	inBracket := c.Method == MethodInterpolated && c.RangeLow <= float64(c.Users) && float64(c.Users) <= c.RangeHigh
	if c.UsersSource != UsersMeasured || (c.Method != MethodMeasured && !inBracket) || c.Users < 10 {
		t.Fatalf("headline %d users (%s, %s, range %g–%g): want measured users, or interpolated inside the measured bracket",
			c.Users, c.Method, c.UsersSource, c.RangeLow, c.RangeHigh)
	}
	// Random arrivals queue in bursts for the 16 slots: the TTFT tail breaks the SLA
	// while the mean backlog is small and ITL is far inside its bound.
	if c.Bottleneck != RegimeQueue {
		t.Errorf("bottleneck %s (%s), want queue", c.Bottleneck, c.BottleneckEvidence)
	}
	// A dense users ladder around the answer, measured afterwards: the largest passing.
	var dense []any
	for _, f := range []float64{0.85, 0.93, 1, 1.07, 1.15} {
		dense = append(dense, int(math.Round(f*float64(c.Users))))
	}
	q := demoUsersPlan(t, map[string]any{"ladder.users": dense})
	q.Ladder.EarlyStop.Enabled = false
	dir2 := t.TempDir()
	if err := sweep.Run(context.Background(), q, sweep.Options{OutDir: dir2}); err != nil {
		t.Fatal(err)
	}
	b, err := Analyze(dir2)
	if err != nil {
		t.Fatal(err)
	}
	// A step whose p95 breaks its bound only within the p95's own sampling uncertainty
	// (near the knee, ~500 random arrivals per window) is no evidence against the claim:
	// it counts as passing here.
	pass := map[float64]bool{}
	for _, s := range b.Mix.Steps {
		lowTTFT, lowITL := p95Lower(t, dir2, s.Step)
		pass[s.Load] = s.MeetsSLA || (lowTTFT <= q.SLA.TTFTMs["p95"] && lowITL <= q.SLA.ITLMs["p95"])
		t.Logf("dense: %d users: TTFT p95 %.0f ms (95%% CI from %.0f), ITL p95 %.1f ms (from %.1f), SLA %v, counted as passing %v",
			s.Users, s.TTFTMs.P95, lowTTFT, s.ITLMs.P95, lowITL, s.MeetsSLA, pass[s.Load])
		if s.SimulatorLate {
			t.Skipf("dense users %d: the simulator ran late", s.Users)
		}
	}
	truth := 0.0
	for _, s := range b.Mix.Steps {
		if pass[s.Load] && allPassBelow(b.Mix.Steps, s.Load, pass) {
			truth = s.Load // the largest passing users below the first failing step
		}
	}
	t.Logf("claimed %d users, measured %g users within the SLA (dense ladder %v)", c.Users, truth, dense)
	if truth == 0 || math.Abs(float64(c.Users)-truth) > 0.1*truth {
		t.Errorf("claimed %d users, measured %g: off by more than 10%%", c.Users, truth)
	}
}

// allPassBelow reports whether every step below load passed.
func allPassBelow(steps []StepStats, load float64, pass map[float64]bool) bool {
	for i := range steps {
		if steps[i].Load < load && !pass[steps[i].Load] {
			return false
		}
	}
	return true
}

// p95Lower returns the lower ends (ms) of the distribution-free 95% confidence
// intervals of the p95 TTFT and p95 ITL of the step's successful measured requests:
// the order statistic at rank n·0.95 − 1.96·√(n·0.95·0.05) (the normal approximation
// of the binomial count of values below the p95).
func p95Lower(t *testing.T, dir string, step int) (ttftMs, itlMs float64) {
	t.Helper()
	var ttft, itl []float64
	_, err := rundir.EachRecord(dir, func(r *rundir.Record) error {
		if r.Step != step || !r.OK() || (r.Phase != rundir.PhaseMeasure && r.Phase != rundir.PhaseGrace) {
			return nil
		}
		if r.TTFTMs != nil {
			ttft = append(ttft, *r.TTFTMs)
		}
		if r.ITLMs != nil {
			itl = append(itl, *r.ITLMs)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return lowerP95(ttft), lowerP95(itl)
}

func lowerP95(v []float64) float64 {
	if len(v) == 0 {
		return math.Inf(1)
	}
	sort.Float64s(v)
	n := float64(len(v))
	k := int(math.Floor(0.95*n - 1.96*math.Sqrt(n*0.95*0.05)))
	return v[max(k-1, 0)]
}

package sweep

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/llmcap/llmcap/rundir"

	"github.com/llmcap/llmcap/plan"
)

func TestClosedLoopKeepsExactlyNInFlight(t *testing.T) {
	srv := newRTServer(t, 20*time.Millisecond, 2*time.Millisecond)
	p := rtPlan(srv.url())
	p.Ladder.Concurrency = []int{8}
	p.Ladder.Warmup = plan.Warmup{Requests: 8}
	p.Ladder.Requests = 48
	p.Ladder.Grace = 2 * time.Second
	p.Target.APIKey = "sk-rt-secret-4242"
	dir := t.TempDir()
	if err := Run(context.Background(), p, Options{OutDir: dir, Version: "v-test"}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{rundir.FileRun, rundir.FileRecords, rundir.FileSteps} {
		if b, _ := os.ReadFile(filepath.Join(dir, name)); strings.Contains(string(b), "sk-rt-secret") {
			t.Errorf("%s contains the API key", name)
		}
	}
	if got := srv.authSeen(); got != "Bearer sk-rt-secret-4242" {
		t.Errorf("server saw Authorization %q", got)
	}
	maxSeen, total := srv.stats()
	if maxSeen != 8 {
		t.Errorf("server saw at most %d concurrent requests, want exactly 8", maxSeen)
	}
	recs, steps, meta := rtRead(t, dir)
	if len(recs) != total {
		t.Errorf("%d records for %d server requests", len(recs), total)
	}
	if len(steps) != 1 || steps[0].MaxInFlight != 8 {
		t.Fatalf("steps = %+v, want one with max_in_flight 8", steps)
	}
	if meta.State != rundir.StateComplete || meta.Models == nil || meta.ToolVersion != "v-test" || len(meta.Steps) != 1 {
		t.Errorf("run.json state %q models %v", meta.State, meta.Models)
	}
	measure := 0
	for _, r := range recs {
		if !r.OK() {
			t.Fatalf("request failed: %+v", r)
		}
		if r.Phase == rundir.PhaseMeasure {
			measure++
		}
		if r.Concurrency != 8 || r.Schedule != plan.ScheduleConcurrency || r.RunID != meta.RunID {
			t.Fatalf("record labels wrong: %+v", r)
		}
		if r.PromptTokens != r.IntendedPromptTokens {
			t.Errorf("prompt tokens %d (server) != intended %d", r.PromptTokens, r.IntendedPromptTokens)
		}
	}
	if measure != 48 || steps[0].MeasureRequests != 48 {
		t.Errorf("measured %d records (summary %d), want 48", measure, steps[0].MeasureRequests)
	}
	if steps[0].WarmupRequests < 8 {
		t.Errorf("warm-up requests %d < 8", steps[0].WarmupRequests)
	}
}

func TestOpenLoopAbsoluteSchedule(t *testing.T) {
	srv := newRTServer(t, 5*time.Millisecond, time.Millisecond)
	for _, arrival := range []string{plan.ArrivalConstant, plan.ArrivalPoisson, plan.ArrivalGamma} {
		t.Run(arrival, func(t *testing.T) {
			p := rtPlan(srv.url())
			p.Ladder.Concurrency = nil
			p.Ladder.Rate = []float64{100}
			p.Ladder.Arrival = arrival
			p.Ladder.Burstiness = 0.5
			p.Ladder.Requests = 0
			p.Ladder.Duration = 2 * time.Second
			p.Ladder.Grace = time.Second
			dir := t.TempDir()
			if err := Run(context.Background(), p, Options{OutDir: dir}); err != nil {
				t.Fatal(err)
			}
			recs, _, _ := rtRead(t, dir)
			checkOpenLoop(t, recs, arrival, 100)
		})
	}
}

// checkOpenLoop checks scheduled_ns spacing against the rate and the schedule lag.
func checkOpenLoop(t *testing.T, recs []rundir.Record, arrival string, rate float64) {
	t.Helper()
	sort.Slice(recs, func(i, j int) bool { return recs[i].ScheduledNs < recs[j].ScheduledNs })
	sched := make([]int64, 0, len(recs))
	var lags []float64
	for _, r := range recs {
		if !r.OK() || r.ScheduledNs == 0 || r.ScheduleLagMs == nil {
			t.Fatalf("bad open-loop record %+v", r)
		}
		sched = append(sched, r.ScheduledNs)
		lags = append(lags, *r.ScheduleLagMs)
	}
	n := len(sched)
	if n < 150 || n > 260 {
		t.Fatalf("%d arrivals in 2 s at %g/s", n, rate)
	}
	meanGap := float64(sched[n-1]-sched[0]) / float64(n-1) / 1e6
	if math.Abs(meanGap-1000/rate) > 0.2*1000/rate {
		t.Errorf("mean scheduled gap %.2f ms, want ≈ %.2f", meanGap, 1000/rate)
	}
	if arrival == plan.ArrivalConstant {
		for i := 1; i < n; i++ {
			if g := float64(sched[i]-sched[i-1]) / 1e6; math.Abs(g-10) > 0.001 {
				t.Fatalf("constant schedule gap %d = %.4f ms, want exactly 10", i, g)
			}
		}
	}
	// Lateness is bounded, not accumulated: with per-gap sleeping it would grow along
	// the window. (Figures: BenchmarkOpenLoopScheduleLag; this 2-core machine is shared,
	// so the bounds here are loose.)
	q := n / 4
	early, late := quantileOf(lags[:q], 0.5), quantileOf(lags[n-q:], 0.5)
	if p50 := quantileOf(lags, 0.5); p50 > 50 || late-early > 50 {
		t.Errorf("schedule lag p50 %.2f ms; first quarter %.2f ms, last quarter %.2f ms", p50, early, late)
	}
	if lo := quantileOf(lags, 0); lo < -0.01 {
		t.Errorf("negative schedule lag %.3f ms", lo)
	}
}

func TestInterruptRecordsCancelled(t *testing.T) {
	srv := newRTServer(t, 10*time.Millisecond, 50*time.Millisecond)
	p := rtPlan(srv.url())
	p.Ladder.Concurrency = []int{6, 12}
	p.Ladder.Requests = 0
	p.Ladder.Duration = 30 * time.Second
	p.Segments[0].OutputTokens = plan.Dist{Kind: plan.DistFixed, Value: 1000}
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for {
			if _, total := srv.stats(); total >= 6 {
				time.Sleep(100 * time.Millisecond)
				cancel()
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	start := time.Now()
	err := Run(ctx, p, Options{OutDir: dir})
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("Run = %v, want ErrInterrupted", err)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("interrupt took %s", el)
	}
	recs, steps, meta := rtRead(t, dir)
	if meta.State != rundir.StateInterrupted {
		t.Errorf("run.json state %q, want interrupted", meta.State)
	}
	if len(steps) != 0 {
		t.Errorf("interrupted step has a summary: %+v", steps)
	}
	_, total := srv.stats()
	if len(recs) != total || total < 6 {
		t.Fatalf("%d records for %d requests", len(recs), total)
	}
	for _, r := range recs {
		if r.ErrorClass != rundir.ErrCancelled || r.Status != rundir.StatusError || r.Step != 0 {
			t.Errorf("record not cancelled: %+v", r)
		}
	}
}

func TestStepHookAndEarlyStop(t *testing.T) {
	srv := newRTServer(t, 30*time.Millisecond, time.Millisecond)
	p := rtPlan(srv.url())
	p.Ladder.Concurrency = []int{1, 2, 4, 8}
	p.Ladder.Requests = 6
	p.SLA.TTFTMs = map[string]float64{"p95": 5}
	p.Ladder.EarlyStop = plan.EarlyStop{Enabled: true, Factor: 2, Consecutive: 2}
	h := &rtHook{failBefore: true}
	dir := t.TempDir()
	if err := Run(context.Background(), p, Options{OutDir: dir, Hook: h}); err != nil {
		t.Fatal(err)
	}
	_, steps, _ := rtRead(t, dir)
	if len(steps) != 2 {
		t.Fatalf("%d steps ran, want 2 (early stop after 2 violations)", len(steps))
	}
	if !steps[1].EarlyStopped || steps[0].EarlyStopped || !strings.Contains(steps[0].SLAViolation, "ttft p95") {
		t.Errorf("early stop flags wrong: %+v", steps)
	}
	if h.before != 2 || h.after != 2 {
		t.Errorf("hook called %d/%d times, want 2/2", h.before, h.after)
	}
	if steps[0].Captured != "profiles/step-0" || !strings.Contains(steps[0].CaptureError, "boom") {
		t.Errorf("captured %q error %q", steps[0].Captured, steps[0].CaptureError)
	}
}

type rtHook struct {
	failBefore    bool
	before, after int
}

func (h *rtHook) BeforeMeasure(ctx context.Context, st plan.Step, dir string) error {
	h.before++
	if h.failBefore {
		return errors.New("boom")
	}
	return nil
}

func (h *rtHook) AfterMeasure(ctx context.Context, st plan.Step, dir string) (string, error) {
	h.after++
	return "profiles/step-" + string(rune('0'+st.Index)), nil
}

// BenchmarkOpenLoopScheduleLag runs a 2 s open-loop step at 200 req/s (Poisson) against
// a loopback streaming server and reports the schedule lag (sent − scheduled) p50/p99.
func BenchmarkOpenLoopScheduleLag(b *testing.B) {
	srv := newRTServer(b, 5*time.Millisecond, time.Millisecond)
	var lags []float64
	for i := 0; i < b.N; i++ {
		p := rtPlan(srv.url())
		p.Ladder.Concurrency, p.Ladder.Rate, p.Ladder.Requests = nil, []float64{200}, 0
		p.Ladder.Duration, p.Ladder.Grace = 2*time.Second, time.Second
		dir := b.TempDir()
		if err := Run(context.Background(), p, Options{OutDir: dir}); err != nil {
			b.Fatal(err)
		}
		recs, _, _ := rtRead(b, dir)
		for _, r := range recs {
			lags = append(lags, *r.ScheduleLagMs)
		}
	}
	b.ReportMetric(quantileOf(lags, 0.5), "lag-p50-ms")
	b.ReportMetric(quantileOf(lags, 0.99), "lag-p99-ms")
}

package analysis

import (
	"context"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
	"github.com/llmcap/llmcap/sweep"
)

// cpuHog starves the process during one step's measurement window: while on, 8 ×
// GOMAXPROCS goroutines spin, so the in-process simulator's driver waits for a CPU on
// every wake-up.
type cpuHog struct {
	step int
	stop atomic.Bool
	wg   sync.WaitGroup
}

func (h *cpuHog) BeforeMeasure(_ context.Context, st plan.Step, _ string) error {
	if st.Index != h.step {
		return nil
	}
	h.stop.Store(false)
	for range 8 * runtime.GOMAXPROCS(0) {
		h.wg.Add(1)
		go func() {
			defer h.wg.Done()
			x := 0
			for !h.stop.Load() {
				for i := 0; i < 1e5; i++ {
					x += i
				}
			}
			_ = x
		}()
	}
	return nil
}

func (h *cpuHog) AfterMeasure(_ context.Context, st plan.Step, _ string) (string, error) {
	if st.Index == h.step {
		h.stop.Store(true)
		h.wg.Wait()
	}
	return "", nil
}

// TestStarvedSimulatorStepIsMarked: a CPU hog during the second step makes the
// simulator run late; the analysis reads the lateness from the scraped histogram, marks
// that step SimulatorLate and warns about it, and the quiet step ran less late.
func TestStarvedSimulatorStepIsMarked(t *testing.T) {
	if testing.Short() {
		t.Skip("drives the embedded simulator for about 10 s: skipped with -short")
	}
	p := realSimPlan()
	p.Ladder.Concurrency = []int{4, 4}
	p.Ladder.Duration = 3 * time.Second
	p.Ladder.EarlyStop.Enabled = false
	dir := t.TempDir()
	if err := sweep.Run(context.Background(), p, sweep.Options{OutDir: dir, Hook: &cpuHog{step: 1}}); err != nil {
		t.Fatal(err)
	}
	a, err := Analyze(dir)
	if err != nil {
		t.Fatal(err)
	}
	var quiet, starved *StepStats
	for i := range a.Segments[0].Steps {
		switch s := &a.Segments[0].Steps[i]; s.Step {
		case 0:
			quiet = s
		case 1:
			starved = s
		}
	}
	if quiet == nil || starved == nil || quiet.Server == nil || starved.Server == nil {
		t.Fatalf("steps %+v", a.Segments[0].Steps)
	}
	t.Logf("lateness p99: quiet %.2f ms over %.0f iterations, starved %.2f ms over %.0f",
		quiet.Server.SimLatenessP99Ms, quiet.Server.SimIterations, starved.Server.SimLatenessP99Ms, starved.Server.SimIterations)
	if !starved.SimulatorLate || starved.Server.SimLatenessP99Ms <= SimLateLimitMs {
		t.Errorf("starved step: late %v, lateness p99 %.2f ms, want > %g ms and marked", starved.SimulatorLate,
			starved.Server.SimLatenessP99Ms, SimLateLimitMs)
	}
	if quiet.Server.SimLatenessP99Ms >= starved.Server.SimLatenessP99Ms {
		t.Errorf("quiet step lateness %.2f ms ≥ starved step's %.2f ms", quiet.Server.SimLatenessP99Ms, starved.Server.SimLatenessP99Ms)
	}
	warned := false
	for _, w := range a.Warnings {
		warned = warned || w.Kind == WarnSimulatorLate && w.Step == 1 && w.Segment == "chat"
	}
	if !warned {
		t.Errorf("no simulator-late warning for step 1: %q", a.WarningMessages())
	}
}

// TestSimulatorLatenessFromScrapes: the lateness of a step is histogram_quantile(0.99)
// of the buckets' increase over its window; under the limit the step is not marked.
func TestSimulatorLatenessFromScrapes(t *testing.T) {
	f := rundir.SimLatenessFamily
	at := func(ns int64, fast, slow float64) rundir.MetricSample {
		return rundir.MetricSample{TimeNs: ns, Step: 0, Values: map[string]float64{
			`vllm:num_requests_running{model_name="m"}`: 4,
			f + `_bucket{le="0.0005",model_name="m"}`:   fast,
			f + `_bucket{le="0.001",model_name="m"}`:    fast + slow,
			f + `_bucket{le="+Inf",model_name="m"}`:     fast + slow,
		}}
	}
	// 1000 iterations in the window, 980 within 0.5 ms, 20 in (0.5, 1] ms.
	samples := []rundir.MetricSample{at(110, 5000, 0), at(190, 5980, 20)}
	sv := serverStats(samples, map[int]rundir.StepSummary{0: {MeasureStartNs: 100, MeasureEndNs: 200}})[0]
	if sv == nil {
		t.Fatal("no server stats")
	}
	// rank 990 lies half-way into the (0.5, 1] ms bucket (980 below it, 20 in it).
	near(t, "lateness p99 ms", sv.SimLatenessP99Ms, 0.75, 1e-9)
	near(t, "iterations", sv.SimIterations, 1000, 0)
}

// lateLadder is a three-step closed-loop ladder (c = 1, 2, 4; TTFT 100, 150, 2000 ms)
// whose scrapes give each step a simulator lateness; lateMs[i] is step i's lateness,
// all of its 100 iterations in the bucket just above it.
func lateLadder(t *testing.T, lateMs [3]float64) *Analysis {
	t.Helper()
	p := plan.Plan{Name: "late", Segments: []plan.Segment{{Name: "chat", Weight: 1}},
		Ladder: plan.Ladder{Concurrency: []int{1, 2, 4}}, SLA: plan.SLA{TTFTMs: map[string]float64{"p95": 500}}}
	const T = int64(1_700_000_000) * 1e9
	var recs []rundir.Record
	var sums []rundir.StepSummary
	var samples []rundir.MetricSample
	f := rundir.SimLatenessFamily
	iters := 0.0
	for i, c := range []int{1, 2, 4} {
		ttft := []float64{100, 150, 2000}[i]
		start := T + int64(i)*100e9
		for k := 0; k < 40; k++ {
			sent := start + int64(k)*1e9
			recs = append(recs, rundir.Record{RunID: "test", Segment: "chat", Step: i, Schedule: plan.ScheduleConcurrency,
				Concurrency: c, Phase: rundir.PhaseMeasure, SentNs: sent, EndNs: sent + int64(ttft*1e6) + 5e8,
				TTFTMs: fp(ttft), TTFOMs: fp(ttft), ITLMs: fp(10), E2EMs: fp(ttft + 500), OutputTokens: 51, Status: rundir.StatusOK})
		}
		sums = append(sums, rundir.StepSummary{Step: p.Steps()[i], MeasureStartNs: start, MeasureEndNs: start + 50e9})
		for _, at := range []int64{start + 1e9, start + 49e9} {
			le := "0.001"
			if lateMs[i] > 1 {
				le = "0.05"
			}
			if at == start+49e9 {
				iters += 100
			}
			samples = append(samples, rundir.MetricSample{TimeNs: at, Step: i, Values: map[string]float64{
				`vllm:num_requests_running{model_name="m"}`:   float64(c),
				f + `_bucket{le="` + le + `",model_name="m"}`: iters,
				f + `_bucket{le="+Inf",model_name="m"}`:       iters,
			}})
		}
	}
	a, err := Analyze(writeRunDir(t, metaFor(p), recs, sums, samples))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestLateStepIsNoEvidence: the step the starved simulator ran late is shown, marked,
// but kept out of the capacity: with it the SLA fails at c=4 (measured capacity 2, the
// bracket [2, 4)); without it every step that is evidence passed (at least 2).
func TestLateStepIsNoEvidence(t *testing.T) {
	quiet := lateLadder(t, [3]float64{0.5, 0.5, 0.5}).Segments[0]
	if quiet.Capacity.Method != MethodMeasured || quiet.Capacity.MaxConcurrencyWithinSLA != 2 ||
		quiet.Capacity.FailLoad != 4 || quiet.Steps[2].SimulatorLate {
		t.Fatalf("quiet host: %s %.2f, step 2 late %v", quiet.Capacity.Method, quiet.Capacity.MaxConcurrencyWithinSLA,
			quiet.Steps[2].SimulatorLate)
	}
	late := lateLadder(t, [3]float64{0.5, 0.5, 30}).Segments[0]
	if len(late.Steps) != 3 || !late.Steps[2].SimulatorLate || late.Steps[2].Server.SimLatenessP99Ms <= SimLateLimitMs {
		t.Fatalf("late step not shown and marked: %+v", late.Steps)
	}
	if c := late.Capacity; c.Method != MethodAtLeast || c.MaxConcurrencyWithinSLA != 2 {
		t.Errorf("capacity %s %.2f, want at_least 2: the late step is no evidence", c.Method, c.MaxConcurrencyWithinSLA)
	}
	all := lateLadder(t, [3]float64{30, 30, 30}).Segments[0]
	if c := all.Capacity; c.Method != MethodNoData || !strings.Contains(c.BottleneckEvidence, "starved simulator") {
		t.Errorf("every step late: %s %q, want no verdict, saying why", c.Method, c.BottleneckEvidence)
	}
}

package analysis

import (
	"context"
	"runtime"
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

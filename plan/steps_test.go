package plan

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func stepPlan() *Plan {
	p := Default()
	p.Segments = []Segment{
		{Name: "a", Weight: 3, PromptTokens: Dist{Kind: DistFixed, Value: 1000}, OutputTokens: Dist{Kind: DistFixed, Value: 100}},
		{Name: "b", Weight: 1, PromptTokens: Dist{Kind: DistUniform, Min: 100, Max: 300}, OutputTokens: Dist{Kind: DistFixed, Value: 500}},
	}
	return p
}

func TestStepsOrderAndIndex(t *testing.T) {
	p := stepPlan()
	p.Ladder.Concurrency = []int{1, 4}
	p.Ladder.Duration = 10 * time.Second
	p.Ladder.Mix = true
	steps := p.Steps()
	want := []struct {
		seg string
		c   int
	}{{"a", 1}, {"a", 4}, {"b", 1}, {"b", 4}, {"mix", 1}, {"mix", 4}}
	if len(steps) != len(want) {
		t.Fatalf("%d steps, want %d", len(steps), len(want))
	}
	for i, w := range want {
		if s := steps[i]; s.Index != i || s.Segment != w.seg || s.Concurrency != w.c || s.Load() != float64(w.c) {
			t.Errorf("step %d = %+v, want %s@%d", i, s, w.seg, w.c)
		}
	}
	off := false
	p.Ladder.PerSegment = &off
	if got := len(p.Steps()); got != 2 {
		t.Errorf("per_segment false: %d steps, want 2 (mix only)", got)
	}
}

// TestEstimateStep checks the estimate's parts against hand-computed values from the
// documented latency model.
func TestEstimateStep(t *testing.T) {
	p := stepPlan()
	// Segment a: 50 ms + 1000 × 50 µs + 100 × 12 ms = 1.3 s per request on the simulator.
	e2eA := 1300 * time.Millisecond
	if got := p.estimateE2E("a"); got != e2eA {
		t.Fatalf("E2E(a) = %v, want %v", got, e2eA)
	}
	// Segment b: 50 ms + 200 × 50 µs + 500 × 12 ms = 6.06 s; the mix weighs a 3:1.
	e2eB := 6060 * time.Millisecond
	if got, want := p.estimateE2E(MixSegment), (3*e2eA+e2eB)/4; got != want {
		t.Errorf("E2E(mix) = %v, want %v", got, want)
	}
	// Rate: 30 requests at 3 req/s = 10 s, shorter than the 60 s duration.
	s := Step{Segment: "a", Schedule: ScheduleRate, Rate: 3, Duration: time.Minute, Requests: 30,
		Warmup: Warmup{Duration: 2 * time.Second}, Grace: 5 * time.Second, Cooldown: time.Second}
	if got, want := p.EstimateStep(s), 2*time.Second+10*time.Second+e2eA+time.Second; got != want {
		t.Errorf("rate step = %v, want %v", got, want)
	}
	// Closed loop above max_num_seqs: 8 slots serve 40 requests in 5 waves.
	p.Target.Simulator.MaxNumSeqs = 8
	s = Step{Segment: "a", Schedule: ScheduleConcurrency, Concurrency: 64, Requests: 40, Warmup: Warmup{Requests: 8}}
	if got, want := p.EstimateStep(s), e2eA+5*e2eA; got != want {
		t.Errorf("closed-loop step = %v, want %v", got, want)
	}
	// Duration shorter than the requests' time wins; speed_up divides request times.
	p.Target.Simulator.SpeedUp = 2
	s = Step{Segment: "a", Schedule: ScheduleConcurrency, Concurrency: 1, Requests: 100, Duration: 3 * time.Second}
	if got := p.EstimateStep(s); got != 3*time.Second {
		t.Errorf("duration-capped step = %v, want 3s", got)
	}
	s.Duration = 0
	if got, want := p.EstimateStep(s), 100*e2eA/2; got != want {
		t.Errorf("sped-up step = %v, want %v", got, want)
	}
	if got := TotalEstimate([]Step{{Estimated: time.Second}, {Estimated: 2 * time.Second}}); got != 3*time.Second {
		t.Errorf("TotalEstimate = %v", got)
	}
}

func TestParseDist(t *testing.T) {
	cases := map[string]Dist{
		"128":                                {Kind: DistFixed, Value: 128},
		"fixed:64":                           {Kind: DistFixed, Value: 64},
		"uniform:min=10,max=100":             {Kind: DistUniform, Min: 10, Max: 100},
		"lognormal:mean=200, stddev=80":      {Kind: DistLognormal, Mean: 200, StdDev: 80},
		"empirical:file=a.csv,column=output": {Kind: DistEmpirical, File: "a.csv", Column: "output"},
	}
	for spec, want := range cases {
		got, err := ParseDist(spec)
		if err != nil || got != want {
			t.Errorf("ParseDist(%q) = %+v, %v; want %+v", spec, got, err, want)
		}
	}
	for _, bad := range []string{"normal", "normal:mean", "normal:mean=x", "normal:shape=2", "fixed:x"} {
		if _, err := ParseDist(bad); err == nil {
			t.Errorf("ParseDist(%q) accepted", bad)
		}
	}
	if m := (Dist{Kind: DistNormal, Mean: 50, Min: 100}).ExpectedMean(0); m != 100 {
		t.Errorf("ExpectedMean clamps to min: %v", m)
	}
}

// TestTraceStepEstimateUsesSpan: a trace step lasts its trace's span (capped by
// ladder.duration) plus at most one request's grace, not ladder.duration; the span is
// read from the trace file itself.
func TestTraceStepEstimateUsesSpan(t *testing.T) {
	file := filepath.Join(t.TempDir(), "t.csv")
	// Three rows 44.333 s apart end to end; time_scale 3 stretches that to 2m13s.
	csv := "TIMESTAMP,ContextTokens,GeneratedTokens\n" +
		"2023-11-16 18:00:00.0000000,100,10\n" +
		"2023-11-16 18:00:10.0000000,100,10\n" +
		"2023-11-16 18:00:44.3333333,100,10\n"
	if err := os.WriteFile(file, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	p := stepPlan()
	p.Segments = []Segment{{Name: "tr", Weight: 1, Trace: &Trace{Format: TraceAzure, File: file, TimeScale: 3}}}
	p.Ladder.Duration = 10 * time.Minute
	p.Ladder.Grace = 30 * time.Second
	steps := p.Steps()
	if len(steps) != 1 {
		t.Fatalf("%d steps", len(steps))
	}
	e2e := p.estimateE2E("tr")
	if got, want := steps[0].Estimated, 133*time.Second-100*time.Nanosecond+e2e; got.Round(time.Millisecond) != want.Round(time.Millisecond) {
		t.Errorf("estimate %v, want the span 2m13s + one E2E (%v) = %v", got, e2e, want)
	}
	p.Ladder.Duration = time.Minute // the window cuts the trace
	if got, want := p.Steps()[0].Estimated, time.Minute+e2e; got != want {
		t.Errorf("with duration 1m: estimate %v, want %v", got, want)
	}
	p.Segments[0].Trace.File = filepath.Join(t.TempDir(), "missing.csv")
	p.Ladder.Duration = 10 * time.Minute
	if got := p.Steps()[0].Estimated; got < 10*time.Minute {
		t.Errorf("unreadable trace: estimate %v, want the ladder.duration fallback", got)
	}
}

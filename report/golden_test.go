package report

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmcap/llmcap/analysis"
	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
)

// The golden run: the synthetic engine of fixture_test.go (fxSegments, fxLadder, the
// plan of fxAnalysis) driven closed-loop, each step's requests written through
// rundir.Writer with fixed timestamps from fxRunStart and fixed-seed jitter, so the
// whole pipeline (records → analysis.Analyze → analysis.json → report.json, summary.md,
// steps.csv) is byte-for-byte reproducible.
const (
	goldenWarmup      = 2 // warm-up requests per step (never in any statistic)
	goldenToolVersion = "golden"
	goldenRunDirToken = "$RUNDIR" // stands for the temp run directory in the golden files
)

// goldenPerStep is the number of measured requests of a step at concurrency n: enough
// for steady state (at least 3 per user) and for a p95 at low loads.
func goldenPerStep(n int) int { return 3*n + 16 }

// goldenFiles are the run-directory files compared with testdata/golden/run/.
var goldenFiles = []string{analysis.FileAnalysis, FileJSON, FileMarkdown, FileStepsCSV}

// TestRunOutputsGolden analyses the golden run and renders its JSON, Markdown and CSV
// reports; each file must equal testdata/golden/run/<file> byte for byte (after the
// temp run directory is replaced by $RUNDIR). A second analysis of the same run must
// produce the same bytes (no wall clock, map order or unseeded randomness leaks in).
// The bootstrap runs a fixed number of resamples, so neither a slow machine nor -race
// changes the bytes.
func TestRunOutputsGolden(t *testing.T) {
	first := goldenOutputs(t)
	for _, name := range goldenFiles {
		goldenText(t, "run/"+name, first[name])
	}
	again := goldenOutputs(t)
	for _, name := range goldenFiles {
		if !bytes.Equal(first[name], again[name]) {
			t.Errorf("%s is not reproducible: second run differs at %s", name, firstDiff(first[name], again[name]))
		}
	}
}

// TestRunOutputsGoldenContent checks that the golden run's analysis recovers the
// engine it was generated from, so the golden files hold a sensible answer: per segment
// the fit finds the slots (within 2%) and the saturated throughput (within 3%), the
// bottleneck is the queue, the capacity is the last passing step's load or the model's
// whole estimate inside the bracket to the first failing step, and its range holds the
// engine's analytic capacity; warm-up requests stay out and the timeouts are counted.
func TestRunOutputsGoldenContent(t *testing.T) {
	a, err := analysis.Analyze(writeGoldenRun(t))
	if err != nil {
		t.Fatal(err)
	}
	segs := allSegments(a)
	if len(segs) != len(fxSegments) {
		t.Fatalf("got %d segments with the mix, want %d", len(segs), len(fxSegments))
	}
	for i, sa := range segs {
		eng := fxSegments[i]
		if sa.Fit == nil || math.Abs(sa.Fit.Slots/eng.slots-1) > 0.02 || math.Abs(sa.Fit.ServiceRate/eng.xMax()-1) > 0.03 {
			t.Errorf("%s fit = %+v, want slots %v and service rate %.2f req/s", sa.Segment, sa.Fit, eng.slots, eng.xMax())
			continue
		}
		if sa.Capacity.Bottleneck != analysis.RegimeQueue {
			t.Errorf("%s bottleneck = %q, want %q", sa.Segment, sa.Capacity.Bottleneck, analysis.RegimeQueue)
		}
		pass, fail := bracket(sa.Steps)
		if pass == nil || fail == nil {
			t.Errorf("%s: no passing and failing step", sa.Segment)
			continue
		}
		c := sa.Capacity
		got, truth := c.MaxConcurrencyWithinSLA, eng.capacity()
		t.Logf("%s: capacity %v (%s) range %v–%v, engine %.2f, bracket %v–%v", sa.Segment, got, c.Method, c.RangeLow, c.RangeHigh, truth, pass.Load, fail.Load)
		switch c.Method {
		case analysis.MethodMeasured:
			if got != pass.Load {
				t.Errorf("%s measured capacity = %v, want the last passing load %v", sa.Segment, got, pass.Load)
			}
		case analysis.MethodInterpolated:
			if got <= pass.Load || got >= fail.Load || got != math.Floor(got) {
				t.Errorf("%s interpolated capacity = %v, want a whole load inside (%v, %v)", sa.Segment, got, pass.Load, fail.Load)
			}
		default:
			t.Errorf("%s method %s", sa.Segment, c.Method)
		}
		if truth < c.RangeLow || truth >= c.RangeHigh+1 {
			t.Errorf("%s: engine capacity %.2f outside the range %v–%v", sa.Segment, truth, c.RangeLow, c.RangeHigh)
		}
		if truth < pass.Load || truth > fail.Load {
			t.Errorf("%s: engine capacity %.1f outside the measured bracket %v–%v", sa.Segment, truth, pass.Load, fail.Load)
		}
		first, last := sa.Steps[0], sa.Steps[len(sa.Steps)-1]
		if first.WarmupRequests != goldenWarmup || first.Requests != goldenPerStep(1) {
			t.Errorf("%s first step: %d warm-up, %d requests, want %d and %d", sa.Segment,
				first.WarmupRequests, first.Requests, goldenWarmup, goldenPerStep(1))
		}
		if last.Errors != 1 || last.ErrorClasses[rundir.ErrTimeoutFirstByte] != 1 {
			t.Errorf("%s last step: %d errors %v, want 1 %s", sa.Segment, last.Errors, last.ErrorClasses, rundir.ErrTimeoutFirstByte)
		}
	}
}

// bracket returns the last step meeting the SLA before the first one that does not,
// and that first failing step (nil when absent).
func bracket(steps []analysis.StepStats) (pass, fail *analysis.StepStats) {
	for i := range steps {
		if !steps[i].MeetsSLA {
			return pass, &steps[i]
		}
		pass = &steps[i]
	}
	return pass, nil
}

// goldenOutputs writes the golden run, analyses it, writes analysis.json and the JSON,
// Markdown and CSV reports, and returns those files' normalised bytes by name.
func goldenOutputs(t *testing.T) map[string][]byte {
	t.Helper()
	dir := writeGoldenRun(t)
	a, err := analysis.Analyze(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := analysis.WriteJSON(dir, a); err != nil {
		t.Fatal(err)
	}
	if err := Write(dir, a, []string{"json", "md", "csv"}); err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, name := range goldenFiles {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		out[name] = normaliseRunDir(b, dir)
	}
	return out
}

// normaliseRunDir replaces the temp run directory (the only environment-dependent text:
// the tool version and host are fixed in run.json) by goldenRunDirToken.
func normaliseRunDir(b []byte, dir string) []byte {
	b = bytes.ReplaceAll(b, []byte(filepath.ToSlash(dir)), []byte(goldenRunDirToken))
	return bytes.ReplaceAll(b, []byte(dir), []byte(goldenRunDirToken))
}

// writeGoldenRun writes the golden run directory through rundir.Writer: run.json (the
// fixture plan, state complete, the simulator's settings as ground truth), per step
// goldenWarmup warm-up and goldenPerStep measured records, the step summary, and one
// server-metrics scrape per second of each step plus one between steps.
func writeGoldenRun(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	a := fxAnalysis()
	p := a.Plan
	w, err := rundir.OpenWriter(dir)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 11))
	clock := fxRunStart.UnixNano()
	for si, seg := range fxSegments {
		for _, st := range fxSteps(si, seg) {
			sum, recs := goldenStep(a.RunID, seg, st, clock, rng)
			if err := w.AppendRecords(recs); err != nil {
				t.Fatal(err)
			}
			if err := w.AppendStep(&sum); err != nil {
				t.Fatal(err)
			}
			for _, m := range goldenScrapes(seg, st, sum) {
				if err := w.AppendMetric(&m); err != nil {
					t.Fatal(err)
				}
			}
			clock = sum.EndNs + int64(time.Second)
		}
	}
	finished := time.Unix(0, clock).UTC()
	meta := rundir.RunMeta{RunID: a.RunID, ToolVersion: goldenToolVersion, Host: "golden-host",
		StartedAt: fxRunStart, FinishedAt: &finished, State: rundir.StateComplete, Plan: p, Steps: p.Steps(),
		Target: rundir.TargetInfo{URL: plan.TargetSimulator, Simulator: true,
			Settings: map[string]any{"max_num_seqs": 48, "gpu": "H100-SXM", "tensor_parallel": 1}}}
	if err := w.WriteMeta(&meta); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// goldenStep drives one step closed-loop from startNs: st.Concurrency users each send
// their next request when the previous one ends; the first goldenWarmup requests are
// warm-up (see goldenRecord for the latencies).
func goldenStep(runID string, seg fxSegment, st analysis.StepStats, startNs int64, rng *rand.Rand) (rundir.StepSummary, []*rundir.Record) {
	free := make([]int64, st.Concurrency) // when each user may send next (unix ns)
	for u := range free {
		free[u] = startNs + int64(u)*int64(time.Millisecond)
	}
	sum := rundir.StepSummary{RunID: runID, StartNs: startNs, SteadyState: true, SteadyStateReason: "fixed golden run",
		IntendedPromptTokensMean: float64(seg.isl), AchievedPromptTokensMean: float64(seg.isl)}
	sum.Index, sum.Segment, sum.Schedule, sum.Concurrency = st.Step, seg.name, plan.ScheduleConcurrency, st.Concurrency
	var recs []*rundir.Record
	for k := 0; k < goldenWarmup+goldenPerStep(st.Concurrency); k++ {
		u := earliest(free)
		r := goldenRecord(runID, st, k, rng)
		r.ScheduledNs, r.SentNs = free[u], free[u]
		if r.OK() {
			r.FirstTokenNs = r.SentNs + int64(*r.TTFTMs*1e6)
			r.EndNs = r.SentNs + int64(*r.E2EMs*1e6)
			free[u] = r.EndNs
		} else {
			free[u] = r.SentNs + 30*int64(time.Second)
			sum.Errors++
		}
		if k == goldenWarmup {
			sum.MeasureStartNs = r.SentNs
		}
		if k < goldenWarmup {
			sum.WarmupRequests++
		} else {
			sum.MeasureRequests++
		}
		recs = append(recs, &r)
	}
	for _, f := range free {
		sum.EndNs = max(sum.EndNs, f)
	}
	sum.MeasureEndNs, sum.MaxInFlight = sum.EndNs, st.Concurrency
	return sum, recs
}

// goldenRecord is request k of step st (the first goldenWarmup are warm-up): TTFT and
// ITL are the engine's means at the step's load with log-normal jitter small enough
// that p95 ≈ 1.1 × mean, as fxSegment.capacity assumes; the first measured request of
// a step with errors (the last of each ladder) times out before its first byte. A mix
// request is drawn from a segment by weight (its latencies are the mix engine's).
func goldenRecord(runID string, st analysis.StepStats, k int, rng *rand.Rand) rundir.Record {
	ttft := st.TTFTMs.Mean * math.Exp(0.058*rng.NormFloat64())
	itl := st.ITLMs.Mean * math.Exp(0.03*rng.NormFloat64())
	isl, osl := int(st.PromptTokensMean), int(st.OutputTokensMean)
	e2e := ttft + itl*float64(osl-1)
	r := rundir.Record{RunID: runID, Segment: st.Segment, StepSegment: st.Segment, Step: st.Step, Schedule: st.Schedule,
		Concurrency: st.Concurrency, Phase: rundir.PhaseMeasure, RequestID: fmt.Sprintf("r-%d-%d", st.Step, k),
		SessionID: fmt.Sprintf("s-%d-%d", st.Step, k), TTFTMs: &ttft, TTFOMs: &ttft, ITLMs: &itl, E2EMs: &e2e,
		IntendedPromptTokens: isl, IntendedOutputTokens: osl, PromptTokens: isl, OutputTokens: osl,
		TokensSource: rundir.TokensUsage, Chunks: osl, FinishReason: "length", Status: rundir.StatusOK}
	if st.Segment == plan.MixSegment {
		r.Segment = drawSegment(rng)
	}
	if k < goldenWarmup {
		r.Phase = rundir.PhaseWarmup
	}
	if k == goldenWarmup && st.ErrorRate > 0 {
		r.Status, r.ErrorClass, r.Error = rundir.StatusError, rundir.ErrTimeoutFirstByte, "no first byte within 30s"
		r.TTFTMs, r.TTFOMs, r.ITLMs, r.E2EMs, r.OutputTokens, r.Chunks, r.FinishReason = nil, nil, nil, nil, 0, 0, ""
	}
	return r
}

// drawSegment draws a segment name by the fixture's mix weights.
func drawSegment(rng *rand.Rand) string {
	u := rng.Float64()
	for _, s := range fxSegments[:len(fxSegments)-1] {
		if u -= s.weight; u < 0 {
			return s.name
		}
	}
	return fxSegments[len(fxSegments)-2].name
}

// earliest is the index of the smallest value (the first such).
func earliest(xs []int64) int {
	best := 0
	for i, x := range xs {
		if x < xs[best] {
			best = i
		}
	}
	return best
}

// goldenScrapes are a step's server-metrics samples: one per second of the step (at
// least one) with the engine's running and waiting requests and KV usage, then one
// between steps (step −1).
func goldenScrapes(seg fxSegment, st analysis.StepStats, sum rundir.StepSummary) []rundir.MetricSample {
	running := math.Min(st.Load, seg.slots)
	values := map[string]float64{
		`vllm:num_requests_running{model_name="m"}`:  running,
		`vllm:num_requests_waiting{model_name="m"}`:  math.Max(0, st.Load-seg.slots),
		`vllm:kv_cache_usage_perc{model_name="m"}`:   0.8 * running / seg.slots,
		`vllm:num_preemptions_total{model_name="m"}`: 0,
	}
	const url = "http://127.0.0.1:8000/metrics"
	var out []rundir.MetricSample
	for ts := sum.MeasureStartNs; ts <= sum.MeasureEndNs; ts += int64(time.Second) {
		out = append(out, rundir.MetricSample{TimeNs: ts, Step: st.Step, URL: url, Values: values})
	}
	return append(out, rundir.MetricSample{TimeNs: sum.EndNs + int64(time.Second)/2, Step: -1, URL: url, Values: values})
}

// goldenText compares got with testdata/golden/name like golden, but on a difference
// names the first differing line with both versions (a one-hunk unified diff).
func goldenText(t *testing.T, name string, got []byte) {
	t.Helper()
	if !*update {
		want, err := os.ReadFile(filepath.Join("testdata", "golden", name))
		if err == nil && !bytes.Equal(got, want) {
			t.Errorf("%s differs from golden at %s\nrerun `go test ./report/ -run Golden -update` if the change is intended",
				name, firstDiff(want, got))
			return
		}
	}
	golden(t, name, got)
}

// firstDiff describes the first line where want and got differ as
// "line N:\n-want line\n+got line" (a missing line shows as "<end of file>").
func firstDiff(want, got []byte) string {
	wl, gl := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	line := func(ls []string, i int) string {
		if i < len(ls) {
			return ls[i]
		}
		return "<end of file>"
	}
	for i := 0; i < max(len(wl), len(gl)); i++ {
		if line(wl, i) != line(gl, i) {
			return fmt.Sprintf("line %d:\n-%s\n+%s", i+1, line(wl, i), line(gl, i))
		}
	}
	return "no line (the bytes differ only in line endings)"
}

package e2e

import (
	"fmt"
	"math"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/llmcap/llmcap/rundir"

	"github.com/xuri/excelize/v2"

	"github.com/llmcap/llmcap/analysis"
)

// ollamaSlots is the server's OLLAMA_NUM_PARALLEL (scripts/ollama.sh's default).
const ollamaSlots = 4

// TestOllamaStoriesCapacity runs `llmcap run -c configs/ollama-stories.yaml` against the
// real Ollama + stories260K and checks the whole pipeline: complete records, no errors,
// the queue/admission regime past the 4 slots with ITL flat across the knee, and the
// capacity answer in analysis.json, the PDF and the XLSX.
func TestOllamaStoriesCapacity(t *testing.T) {
	base := ollamaURL(t)
	out := filepath.Join(t.TempDir(), "run")
	start := time.Now()
	runLLMCap(t, base, 20*time.Minute, "run", "-c", "configs/ollama-stories.yaml", "-o", out)
	t.Logf("llmcap run took %s", time.Since(start).Round(time.Second))

	rd := loadRunDir(t, out)
	checkRecordsComplete(t, rd)
	a := rd.Analysis
	if a == nil {
		t.Fatalf("%s missing from %s", analysis.FileAnalysis, out)
	}
	if len(a.Segments) == 0 {
		t.Fatal("analysis.json has no segments")
	}
	seg := a.Segments[0]
	logLadder(t, seg)
	checkQueueRegime(t, seg)
	checkCapacity(t, a)
	checkReports(t, out, a)
}

// checkRecordsComplete asserts that the run completed, every step has measured records,
// no request failed (records and analysis error rate 0), and the exact-length model
// produced exactly max_tokens tokens.
func checkRecordsComplete(t *testing.T, rd *runDir) {
	t.Helper()
	if rd.Meta.State != rundir.StateComplete {
		t.Errorf("run.json state = %q, want %q", rd.Meta.State, rundir.StateComplete)
	}
	if len(rd.Steps) != len(rd.Meta.Steps) || len(rd.Steps) == 0 {
		t.Errorf("steps.jsonl has %d steps, run.json plans %d", len(rd.Steps), len(rd.Meta.Steps))
	}
	measured := map[int]int{}
	cancelled := 0
	for i := range rd.Records {
		r := &rd.Records[i]
		if r.ErrorClass == "cancelled" {
			// In flight when the step's grace period ended: the sweep cancels these by
			// design (not a server error; analysis leaves them out of the error rate).
			cancelled++
			continue
		}
		if !r.OK() {
			t.Errorf("record %s (step %d) failed: %s %s", r.RequestID, r.Step, r.ErrorClass, r.Error)
			continue
		}
		if r.Phase == rundir.PhaseMeasure {
			measured[r.Step]++
		}
		if r.TTFTMs == nil || r.E2EMs == nil {
			t.Errorf("record %s has no TTFT/E2E", r.RequestID)
		}
		if r.OutputTokens != r.IntendedOutputTokens {
			t.Errorf("record %s: output_tokens %d != intended %d (the stories model honours max_tokens exactly)",
				r.RequestID, r.OutputTokens, r.IntendedOutputTokens)
		}
	}
	t.Logf("%d records, %d cancelled at the end of a step's grace period", len(rd.Records), cancelled)
	for _, s := range rd.Steps {
		if measured[s.Index] < 8 {
			t.Errorf("step %d (%s c=%d) has %d measured records, want >= 8", s.Index, s.Segment, s.Concurrency, measured[s.Index])
		}
	}
	if rd.Analysis != nil {
		for _, seg := range rd.Analysis.Segments {
			for _, s := range seg.Steps {
				if s.Errors != 0 || s.ErrorRate != 0 {
					t.Errorf("analysis: step %d (c=%d) has %d errors (rate %.3f): %v",
						s.Step, s.Concurrency, s.Errors, s.ErrorRate, s.ErrorClasses)
				}
			}
		}
	}
}

// logLadder logs the measured ladder (for the CI log and the docs).
func logLadder(t *testing.T, seg analysis.SegmentAnalysis) {
	t.Helper()
	t.Logf("segment %s:", seg.Segment)
	for _, s := range seg.Steps {
		t.Logf("  c=%-3d n=%-4d err=%d  TTFT p50 %7.1f p95 %7.1f ms  ITL p50 %5.2f ms  %6.1f tok/s  regime %s  meetsSLA %v",
			s.Concurrency, s.Requests, s.Errors, s.TTFTMs.P50, s.TTFTMs.P95, s.ITLMs.P50,
			s.OutputTokenThroughput, s.Regime, s.MeetsSLA)
	}
	if f := seg.Fit; f != nil {
		t.Logf("  fit: slots %.2f [%.2f, %.2f], X_max %.2f req/s, base TTFT %.1f ms, R2 %.3f",
			f.Slots, f.SlotsCILow, f.SlotsCIHigh, f.ServiceRate, f.BaseTTFTMs, f.R2)
	}
	c := seg.Capacity
	t.Logf("  capacity: %.2f [%.2f, %.2f] (%s), bottleneck %s, limiting %s",
		c.MaxConcurrencyWithinSLA, c.RangeLow, c.RangeHigh, c.Method, c.Bottleneck, c.LimitingConstraint)
}

// checkQueueRegime asserts the queue/admission regime past the 4 slots: the fitted
// slots within ±1 of 4, queue regime for concurrency ≥ 2×slots, TTFT growing with
// concurrency while ITL p50 stays roughly flat between the knee and the top of the ladder.
func checkQueueRegime(t *testing.T, seg analysis.SegmentAnalysis) {
	t.Helper()
	if seg.Fit == nil {
		t.Fatal("no queueing-model fit for the segment")
	}
	if math.Abs(seg.Fit.Slots-ollamaSlots) > 1 {
		t.Errorf("fitted slots %.2f, want %d±1 (OLLAMA_NUM_PARALLEL)", seg.Fit.Slots, ollamaSlots)
	}
	var knee, top *analysis.StepStats
	steps := append([]analysis.StepStats(nil), seg.Steps...)
	sort.Slice(steps, func(i, j int) bool { return steps[i].Concurrency < steps[j].Concurrency })
	for i := range steps {
		s := &steps[i]
		if s.Concurrency == ollamaSlots {
			knee = s
		}
		top = s
		if s.Concurrency >= 2*ollamaSlots && s.Regime != analysis.RegimeQueue {
			t.Errorf("c=%d: regime %q, want %q (%s)", s.Concurrency, s.Regime, analysis.RegimeQueue, s.RegimeEvidence)
		}
	}
	if knee == nil || top == nil || top.Concurrency < 2*ollamaSlots {
		t.Fatalf("the ladder must include c=%d and reach c>=%d", ollamaSlots, 2*ollamaSlots)
	}
	// Queueing: every extra request waits for a slot, so TTFT grows far past prefill time.
	if top.TTFTMs.P50 < 5*knee.TTFTMs.P50 {
		t.Errorf("TTFT p50 %.1f ms at c=%d is not >> %.1f ms at c=%d: no queueing seen",
			top.TTFTMs.P50, top.Concurrency, knee.TTFTMs.P50, knee.Concurrency)
	}
	// Admission-bound: the running batch stays at 4, so ITL does not grow with concurrency.
	// Compared with the median of the ITL p50s past the knee, so one noisy step on a shared
	// CPU does not decide it.
	past := itlPastKnee(steps)
	if r := past / knee.ITLMs.P50; r < 0.67 || r > 1.5 {
		t.Errorf("ITL p50 median %.2f ms past the knee vs %.2f ms at c=%d (ratio %.2f): not flat across the knee",
			past, knee.ITLMs.P50, knee.Concurrency, r)
	}
	// Throughput saturates: past the slots X does not grow (≤ 1.33× X at the knee). No
	// lower bound: a closed loop's throughput over (last response − first request) of
	// the measured requests includes their queueing delay, so it reads low at c=16.
	if r := top.RequestThroughput / knee.RequestThroughput; r > 1.33 {
		t.Errorf("request throughput %.2f req/s at c=%d vs %.2f at c=%d: still growing past the slots",
			top.RequestThroughput, top.Concurrency, knee.RequestThroughput, knee.Concurrency)
	}
}

// itlPastKnee returns the median ITL p50 (ms) of the steps above ollamaSlots.
func itlPastKnee(steps []analysis.StepStats) float64 {
	var v []float64
	for _, s := range steps {
		if s.Concurrency > ollamaSlots {
			v = append(v, s.ITLMs.P50)
		}
	}
	if len(v) == 0 {
		return math.NaN()
	}
	sort.Float64s(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

// checkCapacity asserts the headline answer: a capacity near the slots, limited by the queue.
func checkCapacity(t *testing.T, a *analysis.Analysis) {
	t.Helper()
	c := a.Overall
	t.Logf("answer: %s", a.Answer)
	if c.MaxConcurrencyWithinSLA < 2 || c.MaxConcurrencyWithinSLA > 3*ollamaSlots {
		t.Errorf("max concurrency within SLA %.2f, want in [2, %d] for a 4-slot server", c.MaxConcurrencyWithinSLA, 3*ollamaSlots)
	}
	if c.Bottleneck != analysis.RegimeQueue {
		t.Errorf("bottleneck %q, want %q (%s)", c.Bottleneck, analysis.RegimeQueue, c.BottleneckEvidence)
	}
	if strings.TrimSpace(a.Answer) == "" {
		t.Error("analysis.json has an empty answer")
	}
}

// capacityStrings are the ways a report may print the capacity number.
func capacityStrings(v float64) []string {
	out := []string{fmt.Sprintf("%.2f", v), fmt.Sprintf("%.1f", v), fmt.Sprintf("%g", v)}
	if v == math.Trunc(v) || math.Abs(v-math.Round(v)) < 0.05 {
		out = append(out, fmt.Sprintf("%.0f", v))
	}
	return out
}

// containsAny reports whether text contains any of subs, and which.
func containsAny(text string, subs []string) (string, bool) {
	for _, s := range subs {
		if strings.Contains(text, s) {
			return s, true
		}
	}
	return "", false
}

// checkReports asserts that a PDF and an XLSX exist and both state the capacity answer.
func checkReports(t *testing.T, dir string, a *analysis.Analysis) {
	t.Helper()
	want := capacityStrings(a.Overall.MaxConcurrencyWithinSLA)
	pdfs, xlsxs := findFiles(t, dir, ".pdf"), findFiles(t, dir, ".xlsx")
	if len(pdfs) == 0 || len(xlsxs) == 0 {
		t.Fatalf("run directory lacks reports: pdf %v, xlsx %v", pdfs, xlsxs)
	}
	text := pdfText(t, pdfs[0])
	if s, ok := containsAny(text, want); !ok {
		t.Errorf("PDF %s does not state the capacity %v; first page:\n%s", pdfs[0], want, tail(text, 1500))
	} else {
		t.Logf("PDF states the capacity as %q", s)
	}
	cells := xlsxText(t, xlsxs[0])
	if s, ok := containsAny(cells, want); !ok {
		t.Errorf("XLSX %s does not contain the capacity %v", xlsxs[0], want)
	} else {
		t.Logf("XLSX states the capacity as %q", s)
	}
}

// pdfText extracts a PDF's text with poppler's pdftotext.
func pdfText(t *testing.T, path string) string {
	t.Helper()
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Fatalf("pdftotext not found (apt-get install poppler-utils): %v", err)
	}
	out, err := exec.Command("pdftotext", "-layout", path, "-").Output()
	if err != nil {
		t.Fatalf("pdftotext %s: %v", path, err)
	}
	return string(out)
}

// xlsxText returns every cell of every sheet (formatted values), tab-separated.
func xlsxText(t *testing.T, path string) string {
	t.Helper()
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	defer f.Close()
	var b strings.Builder
	for _, sh := range f.GetSheetList() {
		rows, err := f.GetRows(sh)
		if err != nil {
			t.Fatalf("%s sheet %s: %v", path, sh, err)
		}
		for _, row := range rows {
			b.WriteString(strings.Join(row, "\t"))
			b.WriteByte('\n')
		}
		raw, err := f.GetRows(sh, excelize.Options{RawCellValue: true})
		if err == nil {
			for _, row := range raw {
				b.WriteString(strings.Join(row, "\t"))
				b.WriteByte('\n')
			}
		}
	}
	return b.String()
}

package analysis

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
)

// TestAnalysisWarningsJSON: analysis.json's warnings are objects (kind, segment, step
// when not run-wide, message) that read back equal; an older analysis.json's plain
// strings read as run-wide legacy warnings, and its format version as 0.
func TestAnalysisWarningsJSON(t *testing.T) {
	dir := t.TempDir()
	ws := []Warning{
		{Kind: WarnNotSteady, Segment: "chat", Step: 3, Message: "segment chat, load 32: not in steady state: x"},
		warning(WarnHeadlineAtLeast, "Every step met the SLA"),
	}
	if err := WriteJSON(dir, &Analysis{FormatVersion: FormatVersion, Warnings: ws}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, FileAnalysis))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"format_version": 7`,
		`{"kind":"not-steady","segment":"chat","step":3,"message":"segment chat, load 32: not in steady state: x"}`,
		`{"kind":"headline-at-least","message":"Every step met the SLA"}`} {
		if flat := strings.Join(strings.Fields(string(b)), ""); !strings.Contains(flat, strings.Join(strings.Fields(want), "")) {
			t.Errorf("analysis.json lacks %s:\n%s", want, b)
		}
	}
	a, err := ReadJSON(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.Warnings, ws) {
		t.Errorf("read back %+v, want %+v", a.Warnings, ws)
	}
	old := `{"run_id":"r","answer":"One replica handles 4 concurrent users.","warnings":["the run is interrupted after 2 of 4 steps"]}`
	if err := os.WriteFile(filepath.Join(dir, FileAnalysis), []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	if a, err = ReadJSON(dir); err != nil {
		t.Fatal(err)
	}
	want := Warning{Kind: rundir.WarnLegacy, Step: rundir.RunWide, Message: "the run is interrupted after 2 of 4 steps"}
	if a.FormatVersion != 0 || len(a.Warnings) != 1 || a.Warnings[0] != want {
		t.Errorf("old analysis.json: format %d, warnings %+v", a.FormatVersion, a.Warnings)
	}
}

// TestLegacyRunJSONStillAnalyses: a run.json written before warnings were typed holds
// plain strings; the run still analyses and carries them as legacy sweep warnings.
func TestLegacyRunJSONStillAnalyses(t *testing.T) {
	p := plan.Plan{Name: "old", Segments: []plan.Segment{{Name: "chat", Weight: 1}},
		Ladder: plan.Ladder{Concurrency: []int{2}}, SLA: plan.SLA{TTFTMs: map[string]float64{"p95": 300}}}
	dir := writeRunDir(t, metaFor(p), statsRecords(), nil, nil)
	path := filepath.Join(dir, rundir.FileRun)
	var raw map[string]any
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	raw["warnings"] = []string{"server does not stream: TTFT = E2E and ITL are meaningless"}
	writeJSONFile(t, path, raw)
	a, err := Analyze(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := Warning{Kind: rundir.WarnLegacy, Step: rundir.RunWide,
		Message: "sweep: server does not stream: TTFT = E2E and ITL are meaningless"}
	if a.FormatVersion != FormatVersion || len(a.Warnings) == 0 || a.Warnings[0] != want {
		t.Errorf("format %d, warnings %+v, want first %+v", a.FormatVersion, a.Warnings, want)
	}
	if len(a.Segments) != 1 || a.Segments[0].Steps[0].Requests == 0 || a.Answer == "" {
		t.Errorf("old run not analysed: %+v, answer %q", a.Segments, a.Answer)
	}
}

// TestSweepWarningKeepsItsStep: a sweep warning about one step reaches the analysis
// with its kind, segment, step (the report's scope reads them) and figures, message
// prefixed.
func TestSweepWarningKeepsItsStep(t *testing.T) {
	w := fromSweep(rundir.Warning{Kind: rundir.WarnTraceWindowCut, Segment: "tr", Step: 2, Message: "step 2 (tr): cut",
		Data: &rundir.WarningData{Count: 9}})
	if w.Kind != rundir.WarnTraceWindowCut || w.Segment != "tr" || w.Step != 2 || w.Message != "sweep: step 2 (tr): cut" ||
		w.Data == nil || w.Data.Count != 9 {
		t.Errorf("fromSweep = %+v", w)
	}
}

// TestStepWarningsAreTyped: the analysis's warnings about a step name its segment and
// step index by field, with their kind.
func TestStepWarningsAreTyped(t *testing.T) {
	p := plan.Plan{Name: "short", Segments: []plan.Segment{{Name: "chat", Weight: 1}},
		Ladder: plan.Ladder{Concurrency: []int{50}, Duration: 60 * time.Second},
		SLA:    plan.SLA{TTFTMs: map[string]float64{"p95": 1e9}}}
	const t0 = int64(1_700_000_000) * 1e9
	var recs []rundir.Record
	for i := 0; i < 50; i++ {
		sent := t0 + int64(i)*1e8
		recs = append(recs, rundir.Record{Segment: "chat", Step: 0, Schedule: "concurrency", Concurrency: 50,
			Phase: rundir.PhaseMeasure, SentNs: sent, EndNs: sent + 55e9, TTFTMs: fp(3000), ITLMs: fp(50),
			E2EMs: fp(55000), OutputTokens: 1000, Status: rundir.StatusOK})
	}
	a, err := Analyze(writeRunDir(t, metaFor(p), recs, nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(a.Warnings, func(w Warning) bool { return w.Kind == WarnNotSteady })
	if i < 0 || a.Warnings[i].Segment != "chat" || a.Warnings[i].Step != 0 ||
		!strings.HasPrefix(a.Warnings[i].Message, "segment chat, step 1 (concurrency 50): not in steady state: ") {
		t.Errorf("warnings %+v, want a not-steady one for chat step 0", a.Warnings)
	}
	// One ladder step: every step met the SLA, so the segment's capacity is a lower
	// bound, said once: the headline is that segment's, so no second, run-wide note
	// repeats it.
	var kinds []WarningKind
	for _, w := range a.Warnings {
		kinds = append(kinds, w.Kind)
	}
	if !slices.Contains(kinds, WarnCapacityAtLeast) || slices.Contains(kinds, WarnHeadlineAtLeast) {
		t.Errorf("kinds %v, want capacity-at-least once and no headline-at-least", kinds)
	}
}

// TestHeadlineWarnings: the notes on the headline follow its capacity method and
// bottleneck, the steps' error rates and the what-if rows, by value.
func TestHeadlineWarnings(t *testing.T) {
	step := func(seg string, load, errRate float64) StepStats {
		return StepStats{Segment: seg, Load: load, Concurrency: int(load), ErrorRate: errRate}
	}
	base := func() *Analysis {
		return &Analysis{Schedule: plan.ScheduleConcurrency, Plan: plan.Plan{SLA: plan.SLA{MaxErrorRate: 0.01}},
			Segments: []SegmentAnalysis{{Segment: "chat", Steps: []StepStats{step("chat", 1, 0), step("chat", 1500, 0.5)},
				Capacity: Capacity{Method: MethodMeasured}}},
			Mix: &SegmentAnalysis{Segment: plan.MixSegment, Steps: []StepStats{step(plan.MixSegment, 64, 0.05)},
				Capacity: Capacity{Method: MethodMeasured}}}
	}
	a := base()
	a.Overall = Capacity{Method: MethodAtLeast}
	a.WhatIf = []WhatIf{{GPU: "H100-SXM"}, {GPU: "A100-80G", Projected: true}}
	got := headlineWarnings(a)
	want := []Warning{
		warning(WarnErrorRateAboveSLA, "Error rate above 1.0%% at 2 step(s): chat @ 1,500 concurrency (50.0%%), mix @ 64 concurrency (5.0%%)."),
		warning(WarnHeadlineAtLeast, "Every step met the SLA: the capacity is the highest load tested, a lower bound; extend the ladder upwards to find the limit."),
		warning(WarnWhatIfProjected, "What-if rows marked 'projected' are roofline projections to other GPUs, not measurements."),
	}
	if !slices.Equal(got, want) {
		t.Errorf("headline warnings\n got %+v\nwant %+v", got, want)
	}
	// A segment failing on errors at its lowest load already says so: no error-rate
	// note, whatever its warning's wording; an errors-bound headline gets no "extend the
	// ladder downwards".
	a = base()
	a.Segments[0].Capacity = Capacity{Method: MethodBelowFirstStep, Bottleneck: RegimeErrors}
	a.Overall = a.Segments[0].Capacity
	if got := headlineWarnings(a); len(got) != 0 {
		t.Errorf("errors below the first step: %+v, want none", got)
	}
	// A lower-bound headline taken from a segment whose own capacity-at-least warning
	// says it already gets no second note; taken from the mix, it does.
	a = base()
	a.Overall, a.OverallSource = Capacity{Method: MethodAtLeast}, "chat"
	a.Warnings = []Warning{segmentWarning(WarnCapacityAtLeast, "chat", "segment chat: every step met the SLA")}
	if got := headlineWarnings(a); slices.ContainsFunc(got, func(w Warning) bool { return w.Kind == WarnHeadlineAtLeast }) {
		t.Errorf("headline from chat, already warned: %+v, want no headline-at-least", got)
	}
	a.OverallSource = plan.MixSegment
	if got := headlineWarnings(a); !slices.ContainsFunc(got, func(w Warning) bool { return w.Kind == WarnHeadlineAtLeast }) {
		t.Errorf("headline from the mix: %+v, want a headline-at-least note", got)
	}
	// A client-limited lower bound is the client's: no "extend the ladder upwards".
	a = base()
	a.Overall, a.Mix.Steps, a.Segments[0].Steps = Capacity{Method: MethodAtLeast, ClientLimited: true}, nil, nil
	if got := headlineWarnings(a); len(got) != 0 {
		t.Errorf("client-limited at_least: %+v, want none", got)
	}
	for m, k := range map[CapacityMethod]WarningKind{MethodModel: WarnHeadlineProjected, MethodBelowFirstStep: WarnHeadlineBelowFirstStep,
		MethodNoData: WarnHeadlineNoData} {
		a = base()
		a.Mix.Steps, a.Segments[0].Steps = nil, nil
		a.Overall = Capacity{Method: m, Bottleneck: RegimeNone}
		if got := headlineWarnings(a); len(got) != 1 || got[0].Kind != k {
			t.Errorf("method %s: %+v, want one %s", m, got, k)
		}
	}
	a = base()
	a.Overall, a.Mix.Steps, a.Segments[0].Steps = Capacity{Method: MethodMeasured}, nil, nil
	if got := headlineWarnings(a); len(got) != 0 {
		t.Errorf("measured, no errors: %+v, want none", got)
	}
}

// TestLoadWords: a load in a sentence reads as the report's tables write it.
func TestLoadWords(t *testing.T) {
	for v, want := range map[float64]string{1: "1", 1500: "1,500", 2.5: "2.50", 12.25: "12.2", 0.5: "0.500", 150.5: "150"} {
		if got := loadWords(v); got != want {
			t.Errorf("loadWords(%v) = %q, want %q", v, got, want)
		}
	}
	a := &Analysis{Schedule: plan.ScheduleRate}
	if got := stepLabel(a, &StepStats{Load: 2.5}); got != "mix @ 2.50 req/s" {
		t.Errorf("stepLabel = %q", got)
	}
}

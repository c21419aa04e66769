package plan

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestTargetOnlyPlanGetsDefaults: a plan holding only target.url and target.model
// validates, with one default segment, the capacity search over concurrency, the
// window, warm-up and grace, and the default SLA, each listed in Assumed.
func TestTargetOnlyPlanGetsDefaults(t *testing.T) {
	p, err := Load(writePlan(t, "target: {url: 'http://127.0.0.1:8000/v1', model: m}\n"), nil)
	if err != nil {
		t.Fatalf("a target-only plan: %v", err)
	}
	want := Segment{Name: "default", Weight: 1, PromptTokens: Dist{Kind: DistFixed, Value: 512},
		OutputTokens: Dist{Kind: DistFixed, Value: 128}}
	if len(p.Segments) != 1 || !reflect.DeepEqual(p.Segments[0], want) {
		t.Errorf("segments %+v, want one %+v", p.Segments, want)
	}
	l := p.Ladder
	wantSearch := Search{Over: SearchConcurrency, Start: 1, Max: 4096, Tolerance: 0.05, MaxSteps: 10, Growth: 4}
	if l.Search == nil || *l.Search != wantSearch || len(l.Concurrency)+len(l.Rate)+len(l.Users) != 0 {
		t.Errorf("ladder search %+v, levels %v %v %v; want %+v alone", l.Search, l.Concurrency, l.Rate, l.Users, wantSearch)
	}
	if l.Duration != 30*time.Second || l.Warmup != (Warmup{Duration: 5 * time.Second}) || l.Grace != DefaultGrace {
		t.Errorf("window %v, warm-up %+v, grace %v; want 30s, 5s, 30s", l.Duration, l.Warmup, l.Grace)
	}
	if got := p.Constraints(); !reflect.DeepEqual(got, []Constraint{{"ttft", "p95", 500}, {"itl", "p95", 50}}) || p.SLA.MaxErrorRate != 0.01 {
		t.Errorf("SLA %v, error rate %g; want TTFT p95 500, ITL p95 50, 0.01", got, p.SLA.MaxErrorRate)
	}
	if p.Name != "plan" { // the file's name (writePlan's plan.yaml), as for any plan file
		t.Errorf("name %q, want the file's", p.Name)
	}
	wantNotes := []string{
		`segments: one segment "default", prompt 512 tokens, output 128 tokens (max_tokens)`,
		"ladder: capacity search over concurrency from 1 (×4 until the SLA breaks, then narrowing to 5%; at most 10 steps per search, up to 4096)",
		"ladder.duration: 30s measurement window per step",
		"ladder.warmup: 5s per step, left out of the statistics",
		"ladder.grace: 30s for the requests in flight at the window's end to finish (they count)",
		"sla: TTFT p95 ≤ 500 ms, ITL p95 ≤ 50 ms, error rate ≤ 1%",
	}
	if !reflect.DeepEqual(p.Assumed, wantNotes) {
		t.Errorf("Assumed:\n%s\nwant:\n%s", strings.Join(p.Assumed, "\n"), strings.Join(wantNotes, "\n"))
	}
}

// TestNoFileNamedAfterModel: without a plan file the name comes from target.model.
func TestNoFileNamedAfterModel(t *testing.T) {
	p, err := Load("", map[string]any{"target.url": "http://127.0.0.1:11434/v1", "target.model": "stories:latest"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "stories-latest" || len(p.Segments) != 1 || p.Ladder.Search == nil {
		t.Errorf("name %q, %d segments, search %v", p.Name, len(p.Segments), p.Ladder.Search)
	}
	for model, want := range map[string]string{"meta-llama/Llama-3.1-8B": "meta-llama-Llama-3.1-8B", "::": DefaultName,
		strings.Repeat("x", 70): strings.Repeat("x", 64)} {
		if got := nameFromModel(model); got != want || !nameRE.MatchString(got) {
			t.Errorf("nameFromModel(%q) = %q, want %q", model, got, want)
		}
	}
}

// TestGivenSectionsKeepTheirs: what a plan gives is kept: its segments, its ladder (no
// warm-up added to a file's ladder; grace is DefaultGrace in every plan), its SLA; overrides win over defaults and
// change the default segment.
func TestGivenSectionsKeepTheirs(t *testing.T) {
	p, err := Load(writePlan(t, okSegments+okLadder+"sla: {e2e_ms: {p99: 900}}\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Segments) != 1 || p.Segments[0].Name != "short" || p.Ladder.Search != nil ||
		p.Ladder.Warmup != (Warmup{}) || p.Ladder.Grace != DefaultGrace || len(p.Assumed) != 0 {
		t.Errorf("segments %+v, search %v, warm-up %+v, grace %v, assumed %q", p.Segments, p.Ladder.Search,
			p.Ladder.Warmup, p.Ladder.Grace, p.Assumed)
	}
	if got := p.Constraints(); !reflect.DeepEqual(got, []Constraint{{"e2e", "p99", 900}}) {
		t.Errorf("SLA %v, want the file's alone", got)
	}
	// An sla section without latency bounds stays without (capacity undefined, said by the CLI).
	p, err = Load(writePlan(t, okSegments+okLadder+"sla: {max_error_rate: 0.05}\n"), nil)
	if err != nil || p.SLA.HasLatencySLA() {
		t.Errorf("sla without bounds: %v, %v", err, p.Constraints())
	}
	// A file's ladder without a window gets the window only.
	p, err = Load(writePlan(t, "ladder: {concurrency: [1, 2]}\n"), nil)
	if err != nil || p.Ladder.Duration != DefaultStepDuration || p.Ladder.Grace != DefaultGrace || p.Ladder.Search != nil {
		t.Errorf("ladder without window: %v, %+v", err, p.Ladder)
	}
	ov := map[string]any{
		"segments[0].prompt_tokens": Dist{Kind: DistNormal, Mean: 256, StdDev: 32, Min: 1}.OverrideValue(),
		"ladder.concurrency":        []any{1, 4}, "ladder.grace": "0s", "sla.ttft_ms.p99": 800,
	}
	p, err = Load("", ov)
	if err != nil {
		t.Fatal(err)
	}
	if d := p.Segments[0].PromptTokens; d != (Dist{Kind: DistNormal, Mean: 256, StdDev: 32, Min: 1}) || p.Segments[0].Name != "default" {
		t.Errorf("overridden default segment %+v", p.Segments[0])
	}
	if p.Ladder.Search != nil || !reflect.DeepEqual(p.Ladder.Concurrency, []int{1, 4}) || p.Ladder.Grace != 0 ||
		p.Ladder.Warmup.Duration != DefaultWarmup {
		t.Errorf("ladder %+v: want the overrides' levels and grace, the default warm-up", p.Ladder)
	}
	if got := p.Constraints(); !reflect.DeepEqual(got, []Constraint{{"ttft", "p99", 800}}) {
		t.Errorf("SLA %v: an override's bound replaces the default SLA", got)
	}
	if want := `segments: one segment "default", prompt 256±32 tokens, output 128 tokens (max_tokens)`; p.Assumed[0] != want {
		t.Errorf("Assumed[0] = %q, want %q", p.Assumed[0], want)
	}
}

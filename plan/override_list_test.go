package plan

import (
	"errors"
	"strings"
	"testing"
)

// TestOverrideListItems: --set can address list items as segments[1].x or segments.1.x,
// keeps the item's other fields, and names an index past the end.
func TestOverrideListItems(t *testing.T) {
	two := `
segments:
  - {name: a, weight: 1, prompt_tokens: {dist: normal, mean: 100, stddev: 10}, output_tokens: {dist: fixed, value: 8}}
  - {name: b, weight: 3, prompt_tokens: {dist: fixed, value: 50}, output_tokens: {dist: fixed, value: 8}}
` + okLadder
	path := writePlan(t, two)
	p, err := Load(path, map[string]any{
		"segments[0].prompt_tokens.mean": 400,
		"segments.1.weight":              7,
		"ladder.concurrency[1]":          9,
	})
	if err != nil {
		t.Fatal(err)
	}
	a, b := p.Segments[0], p.Segments[1]
	if a.PromptTokens.Mean != 400 || a.PromptTokens.StdDev != 10 || a.PromptTokens.Kind != DistNormal || a.Name != "a" {
		t.Errorf("segments[0] = %+v, want mean 400 with stddev 10 kept", a)
	}
	if b.Weight != 7 || b.PromptTokens.Value != 50 || b.Name != "b" {
		t.Errorf("segments[1] = %+v, want weight 7", b)
	}
	if got := p.Ladder.Concurrency; len(got) != 2 || got[0] != 1 || got[1] != 9 {
		t.Errorf("ladder.concurrency = %v, want [1 9]", got)
	}
	_, err = Load(path, map[string]any{"segments[2].weight": 1})
	var ve *ValidationError
	if !errors.As(err, &ve) || len(ve.Problems) != 1 || ve.Problems[0].Path != "segments[2].weight" ||
		!strings.Contains(ve.Problems[0].Allowed, "segments has 2 items (indexes 0..1)") {
		t.Errorf("index past the end: %v", err)
	}
	_, err = Load(path, map[string]any{"segments[0].prompt_tokens.dist": "zipf"})
	if !errors.As(err, &ve) || ve.Problems[0].Path != "segments[0].prompt_tokens.dist" {
		t.Errorf("bad value through a list override: %v", err)
	}
}

package report

import (
	"slices"
	"strings"
	"testing"

	"github.com/llmcap/llmcap/analysis"
	"github.com/llmcap/llmcap/plan"
)

// A column of numbers (prices, counts, "≥ 16 users", "–") is right-aligned; a column
// holding words (a method, a bottleneck) is left-aligned, as is the first column.
func TestPDFTableAlignsNumbersRightAndWordsLeft(t *testing.T) {
	rows := [][]string{
		{"short", "186 users", "measured (the largest load that met the SLA)", "queue", "$2.50", "≥ 16 users", "✓"},
		{"mix", "–", "model projection", "", "—", "12", "✗"},
	}
	got := numericColumns(7, rows)
	want := []bool{false, true, false, false, true, true, true}
	if !slices.Equal(got, want) {
		t.Errorf("numericColumns = %v, want %v", got, want)
	}
}

// A capacity search lists no levels in the plan: the ladder text names the loads it
// measured, ascending and once each, instead of "load levels: –".
func TestLadderTextNamesASearchsMeasuredLoads(t *testing.T) {
	a := &analysis.Analysis{Schedule: plan.ScheduleUsers}
	a.Plan.Ladder.Search = &plan.Search{}
	a.Segments = []analysis.SegmentAnalysis{{Segment: "mix", Steps: []analysis.StepStats{{Load: 100}, {Load: 25}, {Load: 186}}},
		{Segment: "short", Steps: []analysis.StepStats{{Load: 25}, {Load: 400}}}}
	got := ladderText(a)
	if !strings.Contains(got, "load levels: 25, 100, 186, 400.") {
		t.Errorf("ladderText = %q, want the measured loads 25, 100, 186, 400", got)
	}
}

// A word longer than a line holds (a long model name, a URL) gets a space where it can
// break, so maroto, which wraps only at spaces, keeps it inside the page; short words
// and the text's characters are unchanged.
func TestPDFBreaksLongWords(t *testing.T) {
	long := "org-with-a-long-name/some-model-name-that-goes-on-and-on-AWQ-int4-|pipe|-super-long-variant"
	got := breakLongWords("One H100 serving "+long+" keeps 5 users", pdfMaxWordLen)
	for _, w := range strings.Fields(got) {
		if n := len([]rune(w)); n > pdfMaxWordLen {
			t.Errorf("word %q has %d runes, want ≤ %d", w, n, pdfMaxWordLen)
		}
	}
	if strings.ReplaceAll(got, " ", "") != strings.ReplaceAll("One H100 serving "+long+" keeps 5 users", " ", "") {
		t.Errorf("breakLongWords changed the text's characters: %q", got)
	}
	if !strings.Contains(got, "One H100 serving org-with-a-long-name/") {
		t.Errorf("want the break after a '/' or '-', got %q", got)
	}
	if s := "meta-llama/Llama-3.1-8B-Instruct keeps 225 users"; breakLongWords(s, pdfMaxWordLen) != s {
		t.Errorf("a name that fits a line was broken: %q", breakLongWords(s, pdfMaxWordLen))
	}
}

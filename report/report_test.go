package report

import (
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmcap/llmcap/analysis"
	"github.com/llmcap/llmcap/plan"
)

func TestWriteRejectsBadInput(t *testing.T) {
	dir := t.TempDir()
	if err := Write(dir, nil, nil); err == nil {
		t.Error("nil analysis: want an error")
	}
	if err := Write(dir, fxAnalysis(), []string{"pdf", "docx"}); err == nil || !strings.Contains(err.Error(), "docx") {
		t.Errorf("unknown format: got %v, want an error naming docx", err)
	}
	if err := Write(filepath.Join(dir, "missing"), fxAnalysis(), nil); err == nil {
		t.Error("missing run directory: want an error")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 0 {
		t.Errorf("files written despite errors: %v", entries)
	}
}

// TestWriteDegenerate renders a run with gaps: NaN latencies, a failed step, no fit,
// an open-loop (rate) ladder, no records and no server metrics. Every format must
// still be written, without panics.
func TestWriteDegenerate(t *testing.T) {
	lowDPI(t)
	nan := math.NaN()
	a := &analysis.Analysis{RunID: "r", Schedule: plan.ScheduleRate,
		Constraints: []plan.Constraint{{Metric: "ttft", Stat: "p95", ThresholdMs: 500}},
		Segments: []analysis.SegmentAnalysis{
			{Segment: "only", Weight: 1, Steps: []analysis.StepStats{
				{Step: 0, Segment: "only", Schedule: plan.ScheduleRate, Rate: 0.5, Load: 0.5, TTFTMs: analysis.Summary{P50: 0, P95: nan, P99: math.Inf(1)}},
				{Step: 1, Segment: "only", Schedule: plan.ScheduleRate, Rate: 1, Load: 1, Errors: 10, ErrorRate: 1, TTFTMs: analysis.Summary{P50: nan, P95: nan}},
			}, Capacity: analysis.Capacity{Method: "below_first_step", MaxConcurrencyWithinSLA: nan}},
			{Segment: "empty"},
		},
		Overall: analysis.Capacity{Method: "below_first_step"}, Answer: "No load level of the ladder met the SLA."}
	dir := t.TempDir()
	if err := Write(dir, a, nil); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{FilePDF, FileXLSX, FileJSON, FileMarkdown, FileStepsCSV} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s not written: %v", f, err)
		}
	}
	md, _ := os.ReadFile(filepath.Join(dir, FileMarkdown))
	if !strings.Contains(string(md), "**No load level of the ladder met the SLA.**") {
		t.Errorf("summary.md lacks the analysis's answer:\n%s", md)
	}
}

func TestJSONMarkdownCSV(t *testing.T) {
	lowDPI(t)
	a := fxAnalysis()
	dir := fxWriteRunDir(t, a, 5)
	if err := Write(dir, a, []string{"json", "md", "csv", "charts"}); err != nil {
		t.Fatal(err)
	}
	// report.json carries the analysis and the chart files, which exist.
	b, err := os.ReadFile(filepath.Join(dir, FileJSON))
	if err != nil {
		t.Fatal(err)
	}
	var r JSONReport
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if r.Analysis == nil || r.Analysis.Overall.MaxConcurrencyWithinSLA != a.Overall.MaxConcurrencyWithinSLA {
		t.Errorf("report.json analysis does not round-trip")
	}
	if r.Records != 4*8*5 || r.RunDate != "2026-11-30T09:00:00Z" {
		t.Errorf("report.json records=%d run_date=%q", r.Records, r.RunDate)
	}
	if len(r.Charts) != 2*23 {
		t.Errorf("report.json lists %d chart files, want 46", len(r.Charts))
	}
	for _, c := range r.Charts {
		if _, err := os.Stat(filepath.Join(dir, c)); err != nil {
			t.Errorf("listed chart missing: %v", err)
		}
	}
	// steps.csv has one row per step of every segment and the mix.
	f, err := os.Open(filepath.Join(dir, FileStepsCSV))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1+4*8 || rows[0][8] != "ttft_p95_ms" {
		t.Errorf("steps.csv: %d rows, header %v", len(rows), rows[0])
	}
	md, _ := os.ReadFile(filepath.Join(dir, FileMarkdown))
	for _, want := range []string{a.Answer, "| mix |", "charts/ttft-mix.svg", "Bottleneck:** queue"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("summary.md lacks %q", want)
		}
	}
}

func TestJSONNonFinite(t *testing.T) {
	a := fxAnalysis()
	a.Overall.RangeLow = math.NaN()
	a.Segments[0].Steps[0].TTFTMs.P99 = math.Inf(1)
	a.GroundTruth["x"] = math.NaN()
	dir := t.TempDir()
	if err := Write(dir, a, []string{"json"}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, FileJSON))
	var r struct {
		Analysis struct {
			Overall struct {
				RangeLow  *float64 `json:"range_low"`
				RangeHigh *float64 `json:"range_high"`
			} `json:"overall"`
		} `json:"analysis"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if r.Analysis.Overall.RangeLow != nil || r.Analysis.Overall.RangeHigh == nil || *r.Analysis.Overall.RangeHigh != a.Overall.RangeHigh {
		t.Errorf("NaN not written as null, or finite value lost: %s", b[:200])
	}
	if !math.IsNaN(a.Overall.RangeLow) {
		t.Error("the caller's analysis was modified")
	}
}

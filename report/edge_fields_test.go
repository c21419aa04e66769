package report

import (
	"encoding/csv"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/johnfercher/go-tree/node"
	"github.com/johnfercher/maroto/v2/pkg/core"
	"github.com/xuri/excelize/v2"
	"gonum.org/v1/plot"

	"github.com/llmcap/llmcap/analysis"
	"github.com/llmcap/llmcap/plan"
)

// fxEdgeAnalysis is the synthetic run with the analysis's newer fields exercised: the
// headline bound by errors at the lowest load, a simulator speed-up, a step whose TTFT
// and ITL are missing (N == 0), an at_least and an open-ended model capacity, a fit
// whose slots were not identified, and a what-if row priced with an assumed price.
func fxEdgeAnalysis() *analysis.Analysis {
	a := fxAnalysis()
	a.SpeedUp = 20
	a.Overall = analysis.Capacity{Method: methodBelowFirstStep, Bottleneck: analysis.RegimeErrors,
		BottleneckEvidence: "error rate 37.5% > 1.0% at concurrency 1: http_500 (12 of 15 failed)",
		Advice:             "Fix the target's errors first (http_500: \"upstream overloaded\")."}
	a.Answer = "No load level met the SLA: requests fail (http_500) before any latency limit."
	a.Errors = analysis.ErrorSummary{Requests: 40, Errors: 15, ErrorRate: 0.375,
		Classes: map[string]int{"http_500": 12, "timeout": 3},
		Samples: map[string]string{
			"http_500": "HTTP 500: upstream overloaded\n" + strings.Repeat("stack frame ", 30),
			"timeout":  "context deadline exceeded",
		}}
	s0 := &a.Segments[0].Steps[0]
	s0.TTFTMs, s0.ITLMs, s0.E2EMs, s0.TTFOMs = analysis.Summary{}, analysis.Summary{}, analysis.Summary{}, analysis.Summary{}
	s0.WarmupRequests, s0.Unfinished = 7, 2
	a.Segments[0].Capacity = analysis.Capacity{MaxConcurrencyWithinSLA: 128, RangeLow: 128, OpenEnded: true, Method: methodAtLeast,
		Bottleneck: analysis.RegimeNone}
	a.Segments[1].Capacity.Method, a.Segments[1].Capacity.OpenEnded = methodModel, true
	a.Segments[1].Capacity.RangeLow, a.Segments[1].Capacity.RangeHigh = 40, 64
	f := a.Segments[2].Fit
	f.SlotsIdentified, f.Slots, f.SlotsCILow, f.SlotsCIHigh, f.ServiceRate = false, 0, 0, 0, 0
	a.WhatIf[1].GPUHourUSD, a.WhatIf[1].SamePriceAssumed = 2.5, true
	a.WhatIf[0].GPUHourUSD = 3.75
	return a
}

func TestEdgeFieldsFormatting(t *testing.T) {
	for _, tc := range []struct {
		c    analysis.Capacity
		want string
	}{
		{analysis.Capacity{RangeLow: 64, OpenEnded: true}, "≥ 64"},
		{analysis.Capacity{RangeLow: 40, RangeHigh: 64, OpenEnded: true}, "40 – > 64"},
		{analysis.Capacity{RangeLow: 40, RangeHigh: 64}, "40 – 64"},
	} {
		if got := rangeText(tc.c); got != tc.want {
			t.Errorf("rangeText(%+v) = %q, want %q", tc.c, got, tc.want)
		}
	}
	for m, want := range map[analysis.CapacityMethod]string{methodMeasured: "measured (the largest load that met the SLA)", methodInterpolated: "interpolated by the queueing model between measured steps", methodModel: "projected by the queueing model",
		methodAtLeast: "at least (no limit reached within the ladder)", methodBelowFirstStep: "SLA missed at the lowest load", methodNoData: "no data"} {
		if got := methodText(m); got != want {
			t.Errorf("methodText(%s) = %q", m, got)
		}
	}
	if s := shown(analysis.Summary{P95: 0}); !math.IsNaN(s.P95) || auto(s.P95) != "–" {
		t.Errorf("missing summary shows %v", s.P95)
	}
	if s := shown(analysis.Summary{N: 3, P95: 0}); s.P95 != 0 {
		t.Errorf("present summary altered: %v", s.P95)
	}
	ra := &analysis.Analysis{Schedule: plan.ScheduleRate}
	if got := capacityText(ra, analysis.Capacity{MaxRateWithinSLA: 3.2, OfferedRateRps: 4, Method: methodMeasured}); got != "3.20 req/s served (4.00 req/s offered)" {
		t.Errorf("open-loop capacity below the offered rate = %q", got)
	}
	rows := errorRows(fxEdgeAnalysis().Errors)
	if len(rows) != 2 || rows[0][0] != "http_500" || rows[0][1] != "12" || strings.Contains(rows[0][2], "\n") ||
		len([]rune(rows[0][2])) > errorSampleLen || !strings.HasPrefix(rows[0][2], "HTTP 500: upstream overloaded stack frame") {
		t.Errorf("errorRows = %q", rows)
	}
}

// rowTexts collects the text values of a PDF row's component tree.
func rowTexts(r core.Row) []string {
	var out []string
	var walk func(n *node.Node[core.Structure])
	walk = func(n *node.Node[core.Structure]) {
		if d := n.GetData(); d.Type == "text" {
			if s, ok := d.Value.(string); ok {
				out = append(out, s)
			}
		}
		for _, next := range n.GetNexts() {
			walk(next)
		}
	}
	walk(r.GetStructure())
	return out
}

// pageTexts is every row's texts, one joined string per row.
func pageTexts(rows []core.Row) []string {
	var out []string
	for _, r := range rows {
		out = append(out, strings.Join(rowTexts(r), " | "))
	}
	return out
}

// findRow returns the first row text containing sub ("" when none).
func findRow(rows []string, sub string) string {
	for _, r := range rows {
		if strings.Contains(r, sub) {
			return r
		}
	}
	return ""
}

func TestPDFEdgeFields(t *testing.T) {
	a := fxEdgeAnalysis()
	in, err := loadInput(fxWriteRunDir(t, a, 5), a)
	if err != nil {
		t.Fatal(err)
	}
	p1 := pageTexts(summaryPage(in))
	banner := "Simulator ran 20.0× faster than real time: latencies and capacity are not real-time figures"
	if !strings.Contains(p1[1], banner) {
		t.Errorf("page 1 second row = %q, want the speed-up banner", p1[1])
	}
	if r := findRow(p1, "what failed"); r != "what failed | count | sample message" {
		t.Errorf("page 1 error table header = %q", r)
	}
	if r := findRow(p1, "http_500 | 12"); !strings.Contains(r, "HTTP 500: upstream overloaded stack frame") || !strings.HasSuffix(r, "…") {
		t.Errorf("page 1 error row = %q", r)
	}
	if findRow(p1, "timeout | 3 | context deadline exceeded") == "" || findRow(p1, "15 of 40 measured requests failed (37.5%)") == "" {
		t.Errorf("page 1 lacks the timeout row or the error sentence:\n%s", strings.Join(p1, "\n"))
	}
	all := strings.Join(p1, "\n")
	for _, bad := range []string{"queue/admission", "Add replicas", "extend the ladder downwards"} {
		if strings.Contains(all, bad) {
			t.Errorf("page 1 contradicts the errors bottleneck with %q", bad)
		}
	}
	ev := pageTexts(evidenceSection(in)) // the technical key numbers follow page 1
	if r := findRow(ev, "Throughput at capacity"); !strings.HasPrefix(r, "Throughput at capacity (") || !strings.HasSuffix(r, ") | –") {
		t.Errorf("throughput row = %q, want – without a capacity point", r)
	}
	if r := findRow(ev, "Method"); !strings.Contains(r, "SLA missed at the lowest load") {
		t.Errorf("method row = %q", r)
	}
	if r := findRow(p1, "$ / GPU-hour"); r == "" || findRow(p1, "$3.75") == "" || !strings.Contains(findRow(p1, "A100-80G"), "$2.50*") ||
		findRow(p1, "* No catalog price for this GPU") == "" {
		t.Errorf("what-if price column or assumed-price mark missing:\n%s", all)
	}
	// A segment's step with missing TTFT/ITL shows "–", never 0.
	seg := pageTexts(rowsOf(segmentSection(in, a.Segments[0], nil)))
	if r := findRow(seg, "1 | 400 |"); !strings.HasPrefix(r, "1 | 400 | 0.0% | – | – | – | – |") {
		t.Errorf("missing-metric step row = %q", r)
	}
	if r := seg[1]; !strings.Contains(r, "≥ 128 concurrency (range ≥ 128, at least (no limit reached within the ladder))") {
		t.Errorf("at_least segment capacity = %q", r)
	}
	seg1 := pageTexts(rowsOf(segmentSection(in, a.Segments[1], nil)))
	if !strings.Contains(seg1[1], "range 40 – > 64, projected by the queueing model") {
		t.Errorf("open-ended model segment capacity = %q", seg1[1])
	}
	model := pageTexts(rowsOf(modelSection(in, nil)))
	if r := findRow(model, a.Segments[2].Segment); !strings.HasPrefix(r, a.Segments[2].Segment+" | not identified (no step saturated the server) | – |") {
		t.Errorf("unidentified slots row = %q", r)
	}
}

func TestPDFTextEdgeFields(t *testing.T) {
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Skip("pdftotext not installed (apt-get install poppler-utils)")
	}
	lowDPI(t)
	a := fxEdgeAnalysis()
	dir := fxWriteRunDir(t, a, 5)
	if err := Write(dir, a, []string{"pdf"}); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("pdftotext", "-enc", "UTF-8", "-l", "1", filepath.Join(dir, FilePDF), "-").Output()
	if err != nil {
		t.Fatal(err)
	}
	flat := strings.Join(strings.Fields(string(out)), " ")
	for _, want := range []string{"Simulator ran 20.0× faster than real time", "what failed", "http_500", "context deadline exceeded", "$2.50*"} {
		if !strings.Contains(flat, want) {
			t.Errorf("PDF page 1 lacks %q", want)
		}
	}
	out, err = exec.Command("pdftotext", "-enc", "UTF-8", "-f", "2", "-l", "2", filepath.Join(dir, FilePDF), "-").Output()
	if err != nil {
		t.Fatal(err)
	}
	if flat := strings.Join(strings.Fields(string(out)), " "); !strings.Contains(flat, "Evidence") ||
		!strings.Contains(flat, "errors (requests fail before any latency limit") {
		t.Errorf("PDF page 2 lacks the Evidence section's bottleneck verdict:\n%s", flat)
	}
}

func TestMarkdownCSVXLSXEdgeFields(t *testing.T) {
	a := fxEdgeAnalysis()
	dir := fxWriteRunDir(t, a, 5)
	if err := Write(dir, a, []string{"md", "csv", "xlsx"}); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, FileMarkdown))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Simulator ran 20.0× faster than real time: latencies and capacity are not real-time figures",
		"| http_500 | 12 | HTTP 500: upstream overloaded stack frame",
		"| timeout | 3 | context deadline exceeded |",
		"| short-chat | 60% | ≥ 128 concurrency | ≥ 128 | at least (no limit reached within the ladder) |",
		"| 40 – > 64 | projected by the queueing model |",
		"| Method | SLA missed at the lowest load |",
		"| $3.75 |", "| $2.50\\* |", "No catalog price for this GPU",
	} {
		if !strings.Contains(string(md), want) {
			t.Errorf("summary.md lacks %q", want)
		}
	}
	if strings.Contains(string(md), "extend the ladder downwards") {
		t.Error("summary.md contradicts the errors bottleneck")
	}
	fcsv, err := os.Open(filepath.Join(dir, FileStepsCSV))
	if err != nil {
		t.Fatal(err)
	}
	defer fcsv.Close()
	rows, err := csv.NewReader(fcsv).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if r := rows[1]; r[0] != "short-chat" || r[3] != "1" || r[7] != "" || r[8] != "" || r[11] != "" || r[13] != "" {
		t.Errorf("steps.csv missing-metric row = %q, want empty latency fields", r)
	}
	if h, r := rows[0][23:25], rows[1][23:25]; h[0] != "warmup_requests" || h[1] != "unfinished" || r[0] != "7" || r[1] != "2" {
		t.Errorf("steps.csv warm-up/unfinished = %q %q, want 7 and 2", h, r)
	}
	if rows[2][8] == "" {
		t.Errorf("steps.csv row 2 lost its TTFT p95")
	}
	f, err := excelize.OpenFile(filepath.Join(dir, FileXLSX))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, col := range []int{8, 9, 10, 12, 14} {
		if v, _ := f.GetCellValue(SheetSteps, cellName(col, 2, false)); v != "" {
			t.Errorf("Steps!%s = %q, want empty (missing metric)", cellName(col, 2, false), v)
		}
	}
	if v, _ := f.GetCellValue(SheetSummary, "A5"); !strings.Contains(v, "Simulator ran 20.0× faster than real time") {
		t.Errorf("Summary!A5 = %q, want the speed-up banner", v)
	}
	sum, _ := f.GetRows(SheetSummary)
	var text []string
	for _, r := range sum {
		text = append(text, strings.Join(r, " | "))
	}
	for _, want := range []string{"error class | count | sample message", "http_500 | 12 | HTTP 500: upstream overloaded",
		"Method | SLA missed at the lowest load", "A100-80G | projected", "same price assumed (no catalog price for this GPU)"} {
		if findRow(text, want) == "" {
			t.Errorf("Summary sheet lacks %q", want)
		}
	}
	if r := findRow(text, "H100-SXM | measured"); !strings.HasSuffix(r, "| report.gpu_hour_usd") {
		t.Errorf("Summary what-if row = %q, want the plan's price (report.gpu_hour_usd) as its source", r)
	}
	seg, _ := f.GetRows(SheetSegments)
	if r := strings.Join(seg[1], " | "); !strings.Contains(r, "at least (no limit reached within the ladder)") {
		t.Errorf("Segments row = %q", r)
	}
	if v, _ := f.GetCellValue(SheetSegments, "E2"); v != "" {
		t.Errorf("Segments!E2 (CI high of at_least) = %q, want empty", v)
	}
	model, _ := f.GetRows(SheetModel)
	if r := strings.Join(model[3], " | "); !strings.Contains(r, "not identified (no step saturated the server)") {
		t.Errorf("Model row = %q", r)
	}
}

func TestChartsSkipMissingMetrics(t *testing.T) {
	a := fxEdgeAnalysis()
	seg := a.Segments[0]
	tp, err := TTFTPlot(a, seg)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := tp.Y.Scale.(plot.LogScale); !ok {
		t.Errorf("TTFT chart lost its log scale: a missing TTFT was taken as 0 ms")
	}
}

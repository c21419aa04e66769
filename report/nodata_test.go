package report

import (
	"archive/zip"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmcap/llmcap/rundir"

	"github.com/llmcap/llmcap/analysis"
)

// fxAllFailed is the fixture with every measured request failed (HTTP 500 at every
// step, as a target that answers nothing but errors): no latency, no throughput, no fit.
func fxAllFailed() *analysis.Analysis {
	a := fxAnalysis()
	fail := func(seg *analysis.SegmentAnalysis) {
		seg.Fit = nil
		for i := range seg.Steps {
			s := &seg.Steps[i]
			*s = analysis.StepStats{Step: s.Step, Segment: s.Segment, Schedule: s.Schedule, Concurrency: s.Concurrency,
				Load: s.Load, Requests: 40, Errors: 40, ErrorRate: 1, ErrorClasses: map[string]int{rundir.ErrHTTP5xx: 40}}
		}
	}
	for i := range a.Segments {
		fail(&a.Segments[i])
	}
	if a.Mix != nil {
		fail(a.Mix)
	}
	return a
}

// TestAllFailedRunHasNoCharts: a run where no request succeeded gets no latency,
// throughput or Pareto chart (they used to be empty −1..1 axes, a (0,0) point and a
// gonum "log scale" error text in the PDF), and the PDF says why in one sentence.
func TestAllFailedRunHasNoCharts(t *testing.T) {
	lowDPI(t)
	a := fxAllFailed()
	dir := fxWriteRunDir(t, a, 0)
	if err := Write(dir, a, []string{"pdf", "charts"}); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(filepath.Join(dir, DirCharts))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		for _, kind := range []string{"ttft-", "itl-", "throughput-", "pareto", "cdf-", "fit-"} {
			if strings.HasPrefix(e.Name(), kind) {
				t.Errorf("chart %s written for a run where nothing succeeded", e.Name())
			}
		}
	}
	in, err := loadInput(dir, a)
	if err != nil {
		t.Fatal(err)
	}
	m, err := buildPDF(in, buildCharts(in))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := writeStructLines(&b, toStructNode(m.GetStructure()), 0); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	if n := strings.Count(text, noSuccessText+"."); n != len(allSegments(a)) {
		t.Errorf("%q appears %d times, want once per segment (%d)", noSuccessText, n, len(allSegments(a)))
	}
	for _, bad := range []string{"unavailable", "log scale", "draw chart", "could not be drawn"} {
		if strings.Contains(text, bad) {
			t.Errorf("PDF contains %q", bad)
		}
	}
}

// TestLogScaleNeedsPositiveData: a y axis over no finite value, or over zero or
// negative values, stays linear (gonum panics drawing a log axis over them).
func TestLogScaleNeedsPositiveData(t *testing.T) {
	nan := math.NaN()
	for _, ys := range [][]float64{nil, {nan, nan}, {0, 100, 5000}, {-1, 10, 1000}, {math.Inf(1), nan}} {
		if useLogY(newPlot("t", "x", "y"), ys, 20) {
			t.Errorf("useLogY(%v) = true", ys)
		}
	}
	if !useLogY(newPlot("t", "x", "y"), []float64{nan, 10, 1000}, 20) {
		t.Errorf("useLogY over 10..1000 = false, want a log axis")
	}
	seg := fxAllFailed().Segments[0]
	for name, build := range map[string]func() error{
		"ttft": func() error { _, err := TTFTPlot(fxAllFailed(), seg); return err },
		"itl":  func() error { _, err := ITLPlot(fxAllFailed(), seg); return err },
	} {
		var nd *noDataError
		if err := build(); !errors.As(err, &nd) {
			t.Errorf("%s plot over no data: err %v, want a noDataError", name, err)
		}
	}
}

// TestGroundTruthRows: simulator settings read as a table with human units, never as
// Go map literals or exponent notation.
func TestGroundTruthRows(t *testing.T) {
	gt := map[string]any{
		"weight_bytes": 1.6060522496e+10, "kv_bytes_per_token": 131072.0, "max_num_seqs": 16.0,
		"decode_ms_by_batch_ctx1024": map[string]any{"128": 14.409391, "1": 8.042862, "16": 8.794814},
		"hbm_tbps":                   3.35, "prefix_caching": false, "gpu": "H100-SXM", "kv_cache_tokens": 426784.0,
		"x": math.NaN(), "speed_up": 1.0,
	}
	got := map[string]string{}
	var order []string
	for _, kv := range groundTruthRows(gt) {
		got[kv.Key] = kv.Value
		order = append(order, kv.Key)
	}
	want := map[string]string{
		"weight_bytes":               "16.06 GB (14.96 GiB)",
		"kv_bytes_per_token":         "131.07 kB (128 KiB) per token",
		"max_num_seqs":               "16",
		"decode_ms_by_batch_ctx1024": "batch 1: 8.04 ms · 16: 8.79 ms · 128: 14.4 ms",
		"hbm_tbps":                   "3.35 TB/s",
		"prefix_caching":             "no",
		"gpu":                        "H100-SXM",
		"kv_cache_tokens":            "426,784",
		"x":                          "–",
		"speed_up":                   "1×",
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s = %q, want %q", k, got[k], w)
		}
	}
	if order[0] != "gpu" || order[1] != "max_num_seqs" {
		t.Errorf("order %v: want gpu, max_num_seqs first", order)
	}
}

// TestRunDirText: the footer names the run directory as the user passed it, relative
// or absolute (the run id for "."), quoted for the shell when it holds a space or quote.
func TestRunDirText(t *testing.T) {
	a := &analysis.Analysis{RunID: "demo-1"}
	for dir, want := range map[string]string{
		"runs/20261130-demo": "runs/20261130-demo", "/tmp/x/20261130-demo": "/tmp/x/20261130-demo",
		"../other/run7": "../other/run7", "./runs/r/": "./runs/r", ".": "demo-1", "": "demo-1",
		"sp ace/run 1": "'sp ace/run 1'", "/tmp/it's": `'/tmp/it'\''s'`,
	} {
		if got := runDirText(&input{dir: dir, a: a}); got != want {
			t.Errorf("runDirText(%q) = %q, want %q", dir, got, want)
		}
	}
}

// TestAllFailedWorkbookCharts: the workbook's Charts sheet says why it has no chart.
func TestAllFailedWorkbookCharts(t *testing.T) {
	a := fxAllFailed()
	f, _, dir := writeXLSXOf(t, a, 0)
	zr, err := zip.OpenReader(filepath.Join(dir, FileXLSX))
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	charts := 0
	for _, zf := range zr.File {
		if strings.HasPrefix(zf.Name, "xl/charts/") {
			charts++
		}
	}
	if v, _ := f.GetCellValue(SheetCharts, "A1"); v != noSuccessText+"." || charts != 0 {
		t.Errorf("Charts!A1 = %q with %d chart parts, want the no-success sentence and none", v, charts)
	}
}

// TestChartMissingText: a chart without data is explained in words, a drawing error
// never shows its Go text.
func TestChartMissingText(t *testing.T) {
	nd := Chart{Title: "ITL vs load: s", Err: noData("no request produced two or more tokens")}
	if got := chartMissingText(nd); got != "(ITL vs load: s: no chart, because no request produced two or more tokens.)" {
		t.Errorf("no-data note = %q", got)
	}
	draw := Chart{Title: "TTFT vs load: s", Err: errors.New("draw chart: Values must be greater than 0 for a log scale.")}
	if got := chartMissingText(draw); strings.Contains(got, "log scale") || !strings.Contains(got, "TTFT vs load: s") {
		t.Errorf("drawing-error note = %q", got)
	}
}

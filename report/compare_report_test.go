package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/llmcap/llmcap/analysis"
	"github.com/llmcap/llmcap/compare"
	"github.com/llmcap/llmcap/plan"
)

// cmpFixture is a two-run comparison as compare.Compare builds it: the 128-slot run
// 20× faster to first token at 64, the same ITL.
func cmpFixture() *compare.Comparison {
	run := func(label string, capacity float64, open bool) compare.RunSummary {
		return compare.RunSummary{Label: label, Dir: "runs/" + label, Schedule: plan.ScheduleConcurrency, Capacity: capacity,
			RangeLow: capacity, RangeHigh: map[bool]float64{true: 0, false: 2*capacity - 1}[open], OpenEnded: open,
			Method: analysis.MethodMeasured, Basis: compare.BasisMeasured, Bottleneck: analysis.RegimeQueue, Users: int(capacity),
			UsersWithThinkTime: capacity, UsersSource: analysis.UsersConverted,
			Sizing: []analysis.WhatIf{{GPU: "RTX-3060", TargetUsers: 100, Replicas: int(200 / capacity), GPUs: int(200 / capacity),
				CostPerMonthUSD: 219 * 200 / capacity, GPUHourUSD: 0.3, CostPerMOutputUSD: 0.13}}}
	}
	pts := func(ttft64 float64) []compare.CurvePoint {
		return []compare.CurvePoint{{Load: 1, TTFTP50Ms: 40, TTFTP95Ms: 45, ITLP95Ms: 22, OutputTokensPerS: 45, GoodputRps: 0.18, HasLatency: true},
			{Load: 64, TTFTP50Ms: ttft64, TTFTP95Ms: ttft64 * 1.1, ITLP95Ms: 25, OutputTokensPerS: 1400, GoodputRps: 5, HasLatency: true}}
	}
	return &compare.Comparison{FormatVersion: compare.FormatVersion, Baseline: "32", Labels: []string{"32", "128"},
		PlanDiff:    []compare.FieldDiff{{Path: "target.simulator.max_num_seqs", Values: []string{"32", "128"}}},
		SLA:         plan.SLA{TTFTMs: map[string]float64{"p95": 1000}, MaxErrorRate: 0.01},
		Constraints: []plan.Constraint{{Metric: "ttft", Stat: "p95", ThresholdMs: 1000}},
		Runs:        []compare.RunSummary{run("32", 32, false), run("128", 64, true)},
		Loads:       []compare.SegmentLoads{{Segment: "chat", Loads: []float64{64}}},
		Deltas: []compare.LoadDelta{{Segment: "chat", Load: 64, Metrics: []compare.MetricDelta{
			{Metric: compare.TTFTP50, Values: []float64{1000, 50}, N: []int{300, 300},
				Diffs: []compare.Diff{{Run: "128", Diff: -950, Ratio: 0.05, Low: -990, High: -910, Significance: compare.Significant, Better: true}}},
			{Metric: compare.ITLP95, Values: []float64{25, 25.1}, N: []int{300, 300},
				Diffs: []compare.Diff{{Run: "128", Diff: 0.1, Ratio: 1.004, Low: -0.4, High: 0.5, Significance: compare.Noise}}}}}},
		Curves:    []compare.SegmentCurves{{Segment: "chat", Runs: []compare.RunCurve{{Label: "32", Points: pts(1000)}, {Label: "128", Points: pts(50)}}}},
		Bootstrap: compare.Bootstrap{Reps: compare.BootstrapReps, Seed: compare.BootstrapSeed, Level: 0.95},
		Verdict: compare.Verdict{Kind: compare.VerdictBetter, Better: "128", Other: "32", Unit: "users", Factor: 2,
			Sentence: "128 serves at least 2.0× the users of 32 within the SLA (64 against 32) at the same cost ($219 a month per replica)."}}
}

// WriteCompare writes compare.json (the Comparison as it is), compare.md and
// compare.html (the verdict, the plan diff, the runs and the delta table with its
// intervals and significance) and the overlaid charts, one line per run.
func TestCompareReportWritesEveryFormat(t *testing.T) {
	c := cmpFixture()
	dir := filepath.Join(t.TempDir(), "cmp")
	written, err := WriteCompare(dir, c, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(written) != 4*2+5 { // 4 charts × (svg, png) + json, md, html, pdf, xlsx
		t.Errorf("wrote %v, want 8 chart files and 5 reports", written)
	}
	var back compare.Comparison
	raw, _ := os.ReadFile(filepath.Join(dir, FileCompareJSON))
	if err := json.Unmarshal(raw, &back); err != nil || !reflect.DeepEqual(&back, c) {
		t.Errorf("compare.json does not read back as the comparison (err %v)", err)
	}
	md, _ := os.ReadFile(filepath.Join(dir, FileCompareMarkdown))
	for _, want := range []string{"**" + c.Verdict.Sentence + "**", "| target.simulator.max_num_seqs | 32 | 128 |",
		"| chat | 64 | TTFT p50 (ms) | 1,000 | 50.0 | -950 | 0.05× (1/20.00) | \\[-990, -910\\] | significant, better |",
		"| chat | 64 | ITL p95 (ms) | 25.0 | 25.1 | +0.100 | 1.00× | \\[-0.400, +0.500\\] | noise |",
		"| capacity within the SLA | 32 concurrent requests | ≥ 64 concurrent requests |", "| basis | measured | measured |", "(charts/compare-ttft-chat.svg)"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("compare.md lacks %q:\n%s", want, md)
		}
	}
	html, _ := os.ReadFile(filepath.Join(dir, FileCompareHTML))
	// Ratios in one format (two decimals); the runs table's rows mix numbers and words,
	// so every cell of it is aligned left, none right.
	for _, want := range []string{c.Verdict.Sentence, `<td class="num" data-sort="-950">-950</td>`, "significant, better", `data-chart="compare-ttft-chat"`,
		">0.05× (1/20.00)</td>", ">1.00×</td>", "<td>32 concurrent requests</td>", "<td>≥ 64 concurrent requests</td>", "<td>measured</td>"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("compare.html lacks %q", want)
		}
	}
	svg, _ := os.ReadFile(filepath.Join(dir, DirCharts, "compare-ttft-chat.svg"))
	for _, want := range []string{"32 p50", "128 p95"} {
		if !strings.Contains(string(svg), want) {
			t.Errorf("TTFT chart's legend lacks %q", want)
		}
	}
}

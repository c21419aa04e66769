package report

import (
	"slices"
	"strings"
	"testing"

	"github.com/llmcap/llmcap/analysis"
	"github.com/llmcap/llmcap/plan"
)

// TestWarningScope: whether the warnings touch the headline follows each warning's
// Segment, not its wording.
func TestWarningScope(t *testing.T) {
	a := &analysis.Analysis{OverallSource: plan.MixSegment}
	seg := func(s, msg string) analysis.Warning {
		return analysis.Warning{Kind: analysis.WarnNotSteady, Segment: s, Step: 3, Message: msg}
	}
	// The messages name other segments (or none): only Segment counts.
	segOnly := []analysis.Warning{seg("medium", "segment mix, load 32: not in steady state"), seg("long", "no steady step filled the slots")}
	got := warningScope(a, segOnly)
	if got != "These warnings concern only the per-segment ladders (medium, long); the headline comes from the weighted-mix ladder and is not affected by them." {
		t.Errorf("segment-only warnings: %q", got)
	}
	runWide := analysis.Warning{Kind: analysis.WarnHeadlineProjected, Step: -1, Message: "segment medium: the capacity is a model projection"}
	for _, ws := range [][]analysis.Warning{append(slices.Clone(segOnly), seg(plan.MixSegment, "segment medium, load 32")), {runWide}} {
		if got := warningScope(a, ws); got != "Some warnings concern the headline itself (the mix ladder or the whole run): read them before using the numbers." {
			t.Errorf("%+v: scope %q, want a headline caveat", ws, got)
		}
	}
	if got := warningScope(a, nil); got != "" {
		t.Errorf("no warnings: %q", got)
	}
}

func TestCDFStepsDistinct(t *testing.T) {
	seg := analysis.SegmentAnalysis{Capacity: analysis.Capacity{MaxConcurrencyWithinSLA: 27.5}}
	for i, l := range []float64{1, 4, 16, 32} {
		seg.Steps = append(seg.Steps, analysis.StepStats{Step: i, Load: l})
	}
	// The capacity is nearest the highest load: the middle pick must still differ.
	var loads []float64
	for _, s := range cdfSteps(&analysis.Analysis{Schedule: plan.ScheduleConcurrency}, seg) {
		loads = append(loads, s.Load)
	}
	if len(loads) != 3 || loads[0] != 1 || loads[1] != 16 || loads[2] != 32 {
		t.Errorf("cdfSteps loads = %v, want [1 16 32]", loads)
	}
}

func TestNiceTicksAndShares(t *testing.T) {
	var labels []string
	for _, tk := range (niceTicks{}).Ticks(0, 18.4) {
		labels = append(labels, tk.Label)
	}
	if got := strings.Join(labels, ","); got != "0,5,10,15" {
		t.Errorf("ticks over [0, 18.4] = %s, want 0,5,10,15", got)
	}
	sh := weightShares([]float64{70, 20, 10})
	if shareText(sh[0]) != "70%" || shareText(sh[2]) != "10%" {
		t.Errorf("shares = %v (%s)", sh, shareText(sh[0]))
	}
	if wholeUsers(184.9999999) != 185 || wholeUsers(184.65) != 184 || capacityUsersText(analysis.Capacity{UsersWithThinkTime: 184.65}) != "184" {
		t.Error("whole users must round down (within 1e-6)")
	}
	a := &analysis.Analysis{Plan: plan.Plan{Report: plan.Report{TargetUsers: []int{100, 5000, 1000}}}}
	if headlineTarget(a) != 5000 {
		t.Errorf("headlineTarget = %d, want 5000", headlineTarget(a))
	}
}

// TestSummaryRendersAnalysisVerdict: page 1, the Markdown and the workbook show the
// analysis's answer, advice and warnings as written and add none of their own — not
// for an at_least headline, projected what-if rows or steps above the error bound.
func TestSummaryRendersAnalysisVerdict(t *testing.T) {
	a := fxAnalysis()
	a.Overall.Method, a.Overall.OpenEnded, a.Overall.RangeHigh = methodAtLeast, true, 0
	a.Answer, a.Overall.Advice = "The analysis's own answer.", "The analysis's own advice."
	a.Segments[0].Steps[0].ErrorRate = 0.5
	only := analysis.Warning{Kind: analysis.WarnNotSteady, Segment: a.Segments[0].Segment, Step: 0, Message: "The only warning."}
	a.Warnings = []analysis.Warning{only}
	in, err := loadInput(fxWriteRunDir(t, a, 5), a)
	if err != nil {
		t.Fatal(err)
	}
	a.Headline = analysis.Headline{Action: "The analysis's own action.", Certainty: "The analysis's own certainty."}
	md := renderMarkdown(in, nil)
	if !strings.Contains(md, "**The analysis's own answer.**") || !strings.Contains(md, "**What to do:** The analysis's own action.") ||
		!strings.Contains(md, "**How sure:** The analysis's own certainty.") ||
		!strings.Contains(md, "**What to do, in the engine's settings:** The analysis's own advice.") ||
		!strings.Contains(md, "\n- The only warning.\n") || !strings.Contains(md, "**⚠ 1 warning (none about the measurements behind this answer) — see Evidence below.**") {
		t.Errorf("summary.md:\n%s", md)
	}
	p1 := strings.Join(pageTexts(summaryPage(in)), "\n")
	if !strings.Contains(p1, "The analysis's own answer.") || !strings.Contains(p1, "What to do | The analysis's own action.") ||
		!strings.Contains(p1, "How sure | The analysis's own certainty.") || strings.Count(p1, "⚠ ") != 1 ||
		!strings.Contains(p1, "⚠ 1 warning (none about the measurements behind this answer) — see Evidence, page 2.") {
		t.Errorf("page 1:\n%s", p1)
	}
	ev := strings.Join(pageTexts(evidenceSection(in)), "\n")
	if !strings.Contains(ev, "What to do, in the engine's settings: The analysis's own advice.") ||
		strings.Count(ev, "⚠ ") != 1 || !strings.Contains(ev, "⚠ The only warning.") {
		t.Errorf("evidence:\n%s", ev)
	}
	a.Warnings = nil
	if md := renderMarkdown(in, nil); strings.Contains(md, "### Warnings") || strings.Contains(md, "warning (") {
		t.Errorf("no analysis warnings, yet a warnings section:\n%s", md)
	}
}

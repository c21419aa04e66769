package report

import (
	"strings"
	"testing"

	"github.com/llmcap/llmcap/analysis"
	"github.com/llmcap/llmcap/plan"
)

func TestWarningScope(t *testing.T) {
	a := &analysis.Analysis{OverallSource: plan.MixSegment}
	segOnly := []string{"segment medium, load 32: not in steady state", "segment long: no steady step filled the slots"}
	got := warningScope(a, segOnly)
	if !strings.Contains(got, "(medium, long)") || !strings.Contains(got, "not affected") {
		t.Errorf("segment-only warnings: %q", got)
	}
	for _, ws := range [][]string{append(segOnly, "segment mix, load 32: not in steady state"), {"The capacity is a model projection"}} {
		if got := warningScope(a, ws); !strings.HasPrefix(got, "Some warnings concern the headline") {
			t.Errorf("%q: scope %q, want a headline caveat", ws, got)
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

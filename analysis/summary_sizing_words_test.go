package analysis

import (
	"regexp"
	"strings"
	"testing"
)

// TestSummarySizingTableUsesReportWords: the console summary's sizing table names each
// row's basis as the report does (SizingBasis: "measured", "projected", "lower bound"…),
// not a raw yes/no "projected" flag, and gives users per replica as whole users.
func TestSummarySizingTableUsesReportWords(t *testing.T) {
	dir, _ := mixRun(t)
	a, err := Analyze(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := summaryText(t, a)
	if strings.Contains(out, "projected  users/replica") || regexp.MustCompile(`(?m)^\s*\S+\s+(no|yes)\s+\d`).MatchString(out) {
		t.Errorf("sizing table has a yes/no projected column:\n%s", out)
	}
	for _, w := range a.WhatIf {
		basis := SizingBasis(a, w)
		row := regexp.MustCompile(`(?m)^\s*` + regexp.QuoteMeta(w.GPU) + `\s+` + regexp.QuoteMeta(basis) + `\s+\d+\s+`)
		if !row.MatchString(out) {
			t.Errorf("no %s row with basis %q and whole users:\n%s", w.GPU, basis, out)
		}
	}
	if !strings.Contains(out, "basis") {
		t.Errorf("no basis column:\n%s", out)
	}
}

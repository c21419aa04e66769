package report

import (
	"strings"
	"testing"
)

// TestPDFModelTableFlagsPoorFit checks the model-fit table: a fit with R² below
// poorFitR2 reads "0.630 — poor fit", a good one only its R².
func TestPDFModelTableFlagsPoorFit(t *testing.T) {
	a := fxAnalysis()
	in, err := loadInput(fxWriteRunDir(t, a, 2), a)
	if err != nil {
		t.Fatal(err)
	}
	a.Segments[0].Fit.R2, a.Segments[1].Fit.R2 = 0.63, 0.97
	rows := pageTexts(rowsOf(modelSection(in, nil)))
	if r := findRow(rows, a.Segments[0].Segment+" |"); !strings.Contains(r, "| 0.630 — poor fit |") {
		t.Errorf("poor-fit row = %q, want R² flagged", r)
	}
	if r := findRow(rows, a.Segments[1].Segment+" |"); !strings.Contains(r, "| 0.970 |") || strings.Contains(r, "poor fit") {
		t.Errorf("good-fit row = %q, want R² 0.970 unflagged", r)
	}
	if got := fitR2Text(nanValue); strings.Contains(got, "poor") {
		t.Errorf("fitR2Text(NaN) = %q, want no flag for an unknown R²", got)
	}
}

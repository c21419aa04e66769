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

// TestXLSXModelSheetFlagsPoorFit checks the Model sheet's last column: "poor fit" for
// an R² below poorFitR2, empty for a good fit.
func TestXLSXModelSheetFlagsPoorFit(t *testing.T) {
	a := fxAnalysis()
	a.Segments[0].Fit.R2, a.Segments[1].Fit.R2 = 0.63, 0.97
	f, _, _ := writeXLSXOf(t, a, 2)
	rows, _ := f.GetRows(SheetModel)
	col := -1
	for i, h := range rows[0] {
		if h == "fit quality" {
			col = i
		}
	}
	if col < 0 {
		t.Fatalf("Model sheet header %q lacks a fit quality column", rows[0])
	}
	got := map[string]string{} // the fit table's rows (the curves table below repeats the segments)
	for _, r := range rows[1:] {
		if _, seen := got[r0(r)]; len(r) > 0 && !seen {
			v := ""
			if col < len(r) {
				v = r[col]
			}
			got[r[0]] = v
		}
	}
	if g := got[a.Segments[0].Segment]; g != "poor fit" {
		t.Errorf("fit quality of R² 0.63 = %q, want poor fit", g)
	}
	if g, ok := got[a.Segments[1].Segment]; !ok || g != "" {
		t.Errorf("fit quality of R² 0.97 = %q (present %v), want empty", g, ok)
	}
}

// r0 is a row's first cell ("" when none).
func r0(r []string) string {
	if len(r) == 0 {
		return ""
	}
	return r[0]
}

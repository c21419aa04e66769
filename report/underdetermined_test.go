package report

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"
)

// TestUnderdeterminedFitNotShownAsFact: a model fitted from two steps is reported as
// too few to identify the model in the PDF table and the workbook, and gets no fit chart
// (no R² title on a curve through two points).
func TestUnderdeterminedFitNotShownAsFact(t *testing.T) {
	a := fxAnalysis()
	fit := a.Segments[0].Fit
	fit.Underdetermined, fit.FitSteps, fit.R2 = true, 2, 1
	if _, err := FitPlot(a, a.Segments[0]); !errors.As(err, new(*noDataError)) {
		t.Errorf("FitPlot of an underdetermined fit: %v, want a no-data reason", err)
	}
	dir := fxWriteRunDir(t, a, 5)
	if err := Write(dir, a, []string{"pdf", "xlsx"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(pdfStructure(t, dir, a), "fit from 2 steps: too few to identify the model") {
		t.Error("PDF model table does not say the fit is underdetermined")
	}
	f, err := excelize.OpenFile(filepath.Join(dir, FileXLSX))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, _ := f.GetRows(SheetModel)
	found := false
	for _, r := range rows {
		if len(r) > 2 && r[0] == a.Segments[0].Segment && strings.Contains(strings.Join(r, " "), "too few to identify") {
			found = true
		}
	}
	if !found {
		t.Errorf("Model sheet rows %q lack the underdetermined note", rows)
	}
}

package report

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/llmcap/llmcap/analysis"
)

// TestXLSXFormulasCached: the reopened workbook's calculator formulas carry their
// computed values (for viewers that never recalculate) equal to the analysis's sizing,
// and the workbook asks to be recalculated on load.
func TestXLSXFormulasCached(t *testing.T) {
	f, _, in := writeFixtureXLSX(t)
	props, err := f.GetCalcProps()
	if err != nil || props.FullCalcOnLoad == nil || !*props.FullCalcOnLoad {
		t.Errorf("calcPr fullCalcOnLoad = %v (%v), want true", props.FullCalcOnLoad, err)
	}
	w := whatIfRow(t, in, 5000)
	for name, want := range map[string]float64{
		NameUsersPerReplica: math.Floor(in.a.Overall.UsersWithThinkTime),
		NameReplicas:        float64(w.Replicas),
		NameGPUs:            float64(w.GPUs),
		NameCostPerMonthUSD: w.CostPerMonthUSD,
	} {
		cell := definedCell(t, f, name)
		if fo, _ := f.GetCellFormula(SheetSummary, cell); fo == "" {
			t.Errorf("%s (%s) lost its formula", name, cell)
		}
		raw, err := f.GetCellValue(SheetSummary, cell, excelize.Options{RawCellValue: true})
		got, perr := strconv.ParseFloat(raw, 64)
		if err != nil || perr != nil || math.Abs(got-want) > 1e-6*max(1, want) {
			t.Errorf("%s (%s) cached value %q, want %v", name, cell, raw, want)
		}
	}
}

// TestPriceSource: the measured GPU's row is priced by report.gpu_hour_usd, a projected
// GPU's by the catalog, or by the plan's price when the catalog has none.
func TestPriceSource(t *testing.T) {
	for _, c := range []struct {
		projected, same bool
		price           float64
		want            string
	}{
		{false, false, 2.5, "report.gpu_hour_usd"},
		{true, false, 4, "catalog"},
		{true, true, 2.5, "same price assumed (no catalog price for this GPU)"},
		{false, false, 0, "no price (set report.gpu_hour_usd)"},
	} {
		w := whatIfFor(c.projected, c.same, c.price)
		if got := priceSource(w); got != c.want {
			t.Errorf("priceSource(projected %v, same %v, $%v) = %q, want %q", c.projected, c.same, c.price, got, c.want)
		}
	}
	// Without report.gpu_hour_usd the measured GPU's row is priced by the catalog.
	w := whatIfFor(false, false, 3)
	w.PriceSource = analysis.PriceCatalog
	if got := priceSource(w); got != "catalog" {
		t.Errorf("priceSource(measured, catalog-priced) = %q, want catalog", got)
	}
}

func whatIfFor(projected, same bool, price float64) analysis.WhatIf {
	return analysis.WhatIf{GPU: "H100-SXM", Projected: projected, SamePriceAssumed: same, GPUHourUSD: price}
}

// TestXLSXNoPriceCachedAsDash: without a price (none in the plan, none in the sizing)
// the written workbook's cached cost is the text "—", typed as text, as the PDF shows an
// unknown price; not $0, and not excelize's shared-string index as a number.
func TestXLSXNoPriceCachedAsDash(t *testing.T) {
	a := fxAnalysis()
	a.Plan.Report.GPUHourUSD = 0
	for i := range a.WhatIf {
		a.WhatIf[i].GPUHourUSD, a.WhatIf[i].CostPerMonthUSD, a.WhatIf[i].CostPerMOutputUSD = 0, 0, 0
	}
	f, path, _ := writeXLSXOf(t, a, 5)
	cell := definedCell(t, f, NameCostPerMonthUSD)
	sheet := zipParts(t, path, summarySheetPart)[summarySheetPart]
	want := `<c r="` + cell + `" s="`
	i := strings.Index(sheet, want)
	if i < 0 {
		t.Fatalf("no cell %s in %s", cell, summarySheetPart)
	}
	c := sheet[i : i+strings.Index(sheet[i:], "</c>")]
	if !strings.Contains(c, ` t="str">`) || !strings.HasSuffix(c, "<v>—</v>") {
		t.Errorf("cost cell %s = %s, want a text cell caching —", cell, c)
	}
	if got, _ := f.GetCellValue(SheetSummary, cell); got != "—" {
		t.Errorf("cost shows %q, want —", got)
	}
}

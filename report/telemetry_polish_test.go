package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/johnfercher/maroto/v2"
	"github.com/johnfercher/maroto/v2/pkg/config"
	"github.com/johnfercher/maroto/v2/pkg/core"
	"github.com/johnfercher/maroto/v2/pkg/props"
	"github.com/xuri/excelize/v2"

	"github.com/llmcap/llmcap/analysis"
)

// Prices under $0.10 (an energy cost per million output tokens) show two significant
// digits, which cents would round to $0.02 or $0.00; larger ones keep cents.
func TestSmallPricesShowTwoSignificantDigits(t *testing.T) {
	for v, want := range map[float64]string{0.0158: "$0.016", 0.0042: "$0.0042", 0.05: "$0.050", 0.1: "$0.10",
		2.5: "$2.50", 1234.567: "$1,234.57", 0: noPrice} {
		if got := sizingUSDCents(v); got != want {
			t.Errorf("sizingUSDCents(%v) = %q, want %q", v, got, want)
		}
	}
}

// The note under a table stays on the page of the table's last row: when the two do
// not fit the rest of a page, the last row moves over with it under a repeated header,
// however many rows push the table's end to the page's foot.
func TestTableNoteStaysWithItsLastRow(t *testing.T) {
	note := strings.Repeat("A note explaining the table's columns and where their figures come from. ", 4)
	height := func(core.Row) float64 { return 15 } // the note's three lines and more, any other row
	for n := 35; n < 60; n++ {
		m := maroto.New(config.NewBuilder().WithSequentialMode().Build())
		var rows [][]string
		for i := range n {
			rows = append(rows, []string{fmt.Sprintf("row %d", i), "x"})
		}
		all := append([]core.Row{heading("Before the table")}, table([]string{"name", "value"}, []int{6, 6}, rows)...)
		all = append(all, tableNoteRow(note, props.Text{Size: 8}))
		flowFit(m, all, m.FitlnCurrentPage, height)
		pages := pageRowTexts(toStructNode(m.GetStructure()))
		last, notePage := -1, -2
		for pi, p := range pages {
			for _, s := range p {
				switch {
				case s == fmt.Sprintf("row %d", n-1):
					last = pi
				case strings.HasPrefix(s, "A note explaining"):
					notePage = pi
				}
			}
		}
		if last != notePage {
			t.Errorf("%d rows: the last row on page %d, its note on page %d", n, last+1, notePage+1)
		}
	}
}

// The workbook's shares from averaging are rounded to 4 decimals and formatted as a
// percentage with one decimal, so a sheet printing the stored value shows 94.0%, not
// 93.9999999999%.
func TestWorkbookTelemetrySharesRounded(t *testing.T) {
	if got := fraction4(0.939999999999); got != 0.94 {
		t.Errorf("fraction4(0.939999999999) = %v, want 0.94", got)
	}
	if got := fraction4(0.123456); got != 0.1235 {
		t.Errorf("fraction4(0.123456) = %v, want 0.1235", got)
	}
}

// MIG GPUs' utilisation (dcgm-exporter reports 0) reads n/a with a note, not 0 %; a
// step whose energy spans under half its window has its power and energy figures
// starred, and the note gives the span.
func TestTelemetryCellsMIGAndLowCoverage(t *testing.T) {
	mig := &analysis.GPUStats{GPUs: 1, UtilizationUnavailable: true, MIGGPUs: 1, PowerW: 400, JoulesPerOutputToken: 0.5,
		OutputTokensPerJoule: 2, EnergyJ: 200, EnergyWindowS: 0.5, EnergyCoverage: 0.0625, EnergySource: analysis.EnergyFromCounter,
		PerGPU: []analysis.GPUDeviceStats{{GPU: "0", Model: "NVIDIA A100", MIG: true}}}
	cells := gpuCells(mig)
	if cells[0] != "n/a" || cells[2] != "400*" || cells[3] != "0.500*" || cells[4] != "2.00*" {
		t.Errorf("MIG, low-coverage cells %q, want n/a utilisation and starred power, J/token, tokens/J", cells)
	}
	full := *mig
	full.UtilizationUnavailable, full.MIGGPUs, full.UtilizationMean, full.EnergyCoverage = false, 0, 0.9, 0.9
	if cells := gpuCells(&full); cells[0] != "90.0%" || strings.Contains(strings.Join(cells, ""), "*") {
		t.Errorf("full-coverage cells %q, want 90.0%% and no star", cells)
	}
	seg := analysis.SegmentAnalysis{Steps: []analysis.StepStats{{Load: 2, GPU: mig}}}
	n := telemetryNote(seg)
	for _, want := range []string{"GPU utilisation is not reported for MIG instances", "* Power and energy from under 50% of the step's window", "0.5 s of 8.0 s at 2"} {
		if !strings.Contains(n, want) {
			t.Errorf("note %q lacks %q", n, want)
		}
	}
}

// With a power price and an energy at capacity, the calculator has the power per GPU
// and the price as inputs and the energy cost per month as a formula of them and the
// GPUs needed, cached (a viewer that does not recalculate shows it) and equal to the
// GPUs × W ÷ 1000 × 730 h × price; without a price there is no energy row.
func TestXLSXCalculatorEnergyCostFormula(t *testing.T) {
	f, _ := fixtureXLSXWith(t, func(a *analysis.Analysis) {
		a.Plan.Report.PowerUSDPerKWh = 0.15
		a.Overall.Energy = &analysis.EnergyAtCapacity{PowerW: 1400, GPUs: 2, JoulesPerOutputToken: 0.4, OutputTokensPerJoule: 2.5}
	})
	cell := definedCell(t, f, NameEnergyCostPerMonthUSD)
	formula, err := f.GetCellFormula(SheetSummary, cell)
	if err != nil || !strings.Contains(formula, NameGPUs) || !strings.Contains(formula, NamePowerPerGPUW) || !strings.Contains(formula, NamePowerUSDPerKWh) {
		t.Fatalf("energy cost formula %q (%v), want one of GPUs, power per GPU and price", formula, err)
	}
	gpus := calc(t, f, definedCell(t, f, NameGPUs))
	if w := calc(t, f, definedCell(t, f, NamePowerPerGPUW)); w != 700 {
		t.Errorf("power per GPU input %v, want 1400 W ÷ 2 GPUs = 700", w)
	}
	want := gpus * 0.7 * float64(hoursPerMonth) * 0.15
	if got := calc(t, f, cell); math.Abs(got-want) > 1e-6*want || gpus <= 0 {
		t.Errorf("energy cost per month %v, want %v GPUs × 0.7 kW × %d h × $0.15 = %v", got, gpus, hoursPerMonth, want)
	}
	cached, err := f.GetCellValue(SheetSummary, cell, excelize.Options{RawCellValue: true})
	if x, perr := strconv.ParseFloat(cached, 64); err != nil || perr != nil || math.Abs(x-want) > 1e-6*want {
		t.Errorf("cached energy cost %q (%v), want %v", cached, err, want)
	}
	f2, _ := fixtureXLSXWith(t, func(a *analysis.Analysis) {
		a.Overall.Energy = &analysis.EnergyAtCapacity{PowerW: 1400, GPUs: 2}
		a.Plan.Report.PowerUSDPerKWh = 0
	})
	if _, ok := definedCellOK(f2, NameEnergyCostPerMonthUSD); ok {
		t.Error("an energy cost row without a power price")
	}
}

// The Markdown capacity plan shows the energy columns, the per-million cost to two
// significant digits, when a what-if row prices the energy.
func TestMarkdownCapacityPlanShowsEnergyCost(t *testing.T) {
	a := fxAnalysis()
	a.Plan.Report.PowerUSDPerKWh = 0.15
	a.WhatIf[0].EnergyCostPerMonthUSD, a.WhatIf[0].EnergyCostPerMOutputUSD = 219.1, 0.0158
	var b strings.Builder
	writeMarkdownWhatIf(&b, a)
	md := b.String()
	if !strings.Contains(md, "| energy / month | energy $ / M output tokens |") || !strings.Contains(md, "| $219 | $0.016 |") {
		t.Errorf("Markdown capacity plan lacks the energy columns or $0.016:\n%s", md)
	}
}

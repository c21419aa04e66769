package report

import (
	"testing"

	"github.com/llmcap/llmcap/plan"
)

// run.json's report.xlsx_max_rows is not validated again by the report: a hand-edited
// value above Excel's rows per sheet is held to plan.MaxXLSXRows (a larger one would
// make the Requests sheet fail past row 1,048,576), 0 or less is the default.
func TestXLSXRowLimitFromRunJSON(t *testing.T) {
	cases := []struct{ set, want int }{
		{0, plan.DefaultXLSXMaxRows},
		{-5, plan.DefaultXLSXMaxRows},
		{1, 1},
		{plan.MaxXLSXRows, plan.MaxXLSXRows},
		{plan.MaxXLSXRows + 1, plan.MaxXLSXRows},
		{2_000_000, plan.MaxXLSXRows},
	}
	for _, c := range cases {
		a := fxAnalysis()
		a.Plan.Report.XLSXMaxRows = c.set
		dir := fxWriteRunDir(t, a, 1)
		s, err := Load(dir, a)
		if err != nil {
			t.Fatal(err)
		}
		if s.in.xlsxMaxRows != c.want {
			t.Errorf("run.json report.xlsx_max_rows %d: the sheet's limit is %d, want %d", c.set, s.in.xlsxMaxRows, c.want)
		}
	}
}

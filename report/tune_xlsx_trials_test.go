package report

import (
	"archive/zip"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"
)

// TestTuneWorkbookTrialsSheet: the Trials sheet has a header and one row per trial,
// each parameter its own column with the trial's value, the failed trial's reason
// whole and its server log tail in its own column; the Summary has the answer, the
// command and the gain as a number.
func TestTuneWorkbookTrialsSheet(t *testing.T) {
	dir := writeTuneFixture(t)
	if _, err := WriteTune(dir, []string{"xlsx"}); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenFile(filepath.Join(dir, FileTuneXLSX))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := f.GetRows(SheetTuneTrials)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1+len(tuneFixtureTrials) {
		t.Fatalf("Trials has %d rows, want a header and %d trials", len(rows), len(tuneFixtureTrials))
	}
	col := func(name string) int {
		i := slices.Index(rows[0], name)
		if i < 0 {
			t.Fatalf("Trials has no column %q: %q", name, rows[0])
		}
		return i
	}
	cell := func(trial int, name string) string {
		r, c := rows[1+trial], col(name)
		if c >= len(r) {
			return ""
		}
		return r[c]
	}
	for i, ft := range tuneFixtureTrials {
		if got := cell(i, "trial"); got != tuneParamText(float64(ft.n)) {
			t.Errorf("row %d is trial %s, want %d", i+2, got, ft.n)
		}
		if got := cell(i, "max_num_seqs"); got != tuneParamText(ft.seqs) {
			t.Errorf("trial %d max_num_seqs %q, want %v", ft.n, got, ft.seqs)
		}
		if got := cell(i, "max_num_batched_tokens"); got != tuneParamText(ft.tokens) {
			t.Errorf("trial %d max_num_batched_tokens %q, want %v", ft.n, got, ft.tokens)
		}
		col("gpu_memory_utilization")
	}
	if got := cell(7, "fail reason"); got != tuneFixtureLongReason {
		t.Errorf("trial 7's fail reason %q, want it whole: %q", got, tuneFixtureLongReason)
	}
	if got := cell(2, "fail class"); got != "not_ready" {
		t.Errorf("trial 2's fail class %q", got)
	}
	if got := cell(2, "server_log_tail"); strings.TrimSpace(got) != strings.TrimSpace(tuneFixtureLogTail) {
		t.Errorf("trial 2's server log tail %q", got)
	}
	if got := cell(4, "recommended"); got != "yes" {
		t.Errorf("trial 4 recommended %q", got)
	}
	if got := cell(4, "users within the SLA (users)"); got != "138.00" {
		t.Errorf("trial 4's users %q", got)
	}
	checkTuneSummarySheet(t, f)
}

// checkTuneSummarySheet checks the Summary's answer, command and gain cells.
func checkTuneSummarySheet(t *testing.T, f *excelize.File) {
	t.Helper()
	get := func(cell string) string {
		v, err := f.GetCellValue(SheetTuneSummary, cell, excelize.Options{RawCellValue: true})
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if got := get("A3"); got != tuneFixtureAnswer {
		t.Errorf("Summary A3 %q, want the answer", got)
	}
	if got, want := get("A6"), tuneCommandText(tuneFixtureArgv(128, 8192, 0.9), []string{"VLLM_LOGGING_LEVEL=INFO"}); got != want {
		t.Errorf("Summary A6 %q, want %q", got, want)
	}
	if got := get("B8"); got != "0.38" {
		t.Errorf("Summary gain cell %q, want 0.38", got)
	}
	for cell, want := range map[string]string{"B10": "10", "B11": "8", "B12": "2"} {
		if got := get(cell); got != want {
			t.Errorf("Summary %s = %q, want %q", cell, got, want)
		}
	}
}

// TestTuneWorkbookFrontChart: the Front sheet holds a native scatter chart whose front
// series caches the front's points in the main objective's order (60, 112, 138 users
// at 120, 150, 260 ms), and whose other series caches every measured trial.
func TestTuneWorkbookFrontChart(t *testing.T) {
	dir := writeTuneFixture(t)
	if _, err := WriteTune(dir, []string{"xlsx"}); err != nil {
		t.Fatal(err)
	}
	z, err := zip.OpenReader(filepath.Join(dir, FileTuneXLSX))
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	var chart string
	for _, zf := range z.File {
		if strings.HasPrefix(zf.Name, "xl/charts/chart") {
			r, err := zf.Open()
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(r)
			r.Close()
			chart = string(b)
		}
	}
	if !strings.Contains(chart, "scatterChart") {
		t.Fatalf("no scatter chart in the workbook:\n%.400s", chart)
	}
	front := `<xVal><numRef><f>Front!$G$3:$G$5</f><numCache><formatCode>General</formatCode><ptCount val="3"></ptCount>` +
		`<pt idx="0"><v>60</v></pt><pt idx="1"><v>112</v></pt><pt idx="2"><v>138</v></pt></numCache></numRef></xVal>`
	if !strings.Contains(chart, front) {
		t.Errorf("the front series' x values are not 60, 112, 138:\n%s", chart)
	}
	if !strings.Contains(chart, `<yVal><numRef><f>Front!$H$3:$H$5</f><numCache><formatCode>General</formatCode><ptCount val="3"></ptCount>`+
		`<pt idx="0"><v>120</v></pt><pt idx="1"><v>150</v></pt><pt idx="2"><v>260</v></pt>`) {
		t.Errorf("the front series' y values are not 120, 150, 260 ms:\n%s", chart)
	}
	if !strings.Contains(chart, `<f>Front!$B$3:$B$10</f><numCache><formatCode>General</formatCode><ptCount val="8">`) {
		t.Errorf("the trials series does not hold the 8 measured trials:\n%s", chart)
	}
}

package report

import (
	"github.com/xuri/excelize/v2"

	"github.com/llmcap/llmcap/analysis"
	"github.com/llmcap/llmcap/compare"
)

// The comparison workbook's Drift sheet (only with a drift section): the findings in
// words, a row per run with its counts as numbers (against the reference run, and its
// own repeats), then a row per output that changed with both texts as drift.jsonl
// kept them.

// writeCmpDriftSheet writes the Drift sheet; nothing when d is nil.
func writeCmpDriftSheet(f *excelize.File, st styles, d *compare.DriftSection) error {
	if d == nil {
		return nil
	}
	s := cmpSheet{f, SheetCmpDrift}
	if err := f.SetCellValue(s.sheet, "A1", cmpHeadDrift); err != nil {
		return err
	}
	_ = f.SetCellStyle(s.sheet, "A1", "A1", st.title)
	s.merged(2, cmpDriftIntro(d), st.wrap, 11)
	row := 3
	for _, line := range cmpDriftSentences(d) {
		s.merged(row, line, st.boldWrap, 12)
		row++
	}
	row++
	s.header(row, []string{"run", "drift probe", "compared with " + d.Reference, "identical to " + d.Reference, "differed from " + d.Reference,
		"prompts not compared", "own verdict", "own compared", "own identical", "own changed", "probe requests failed"}, st.header)
	for _, r := range d.Runs {
		row++
		s.set(1, row, r.Label, 0)
		s.set(2, row, r.Probe, 0)
		if b := r.VsReference; b != nil {
			for k, v := range []int{b.Compared, b.Identical, len(b.Changed), b.OtherPrompts} {
				s.set(3+k, row, v, st.int0)
			}
		}
		if o := r.Own; o != nil {
			s.set(7, row, string(o.Verdict), 0)
			for k, v := range []int{o.Compared, o.Identical, len(o.Changed), o.Failed} {
				s.set(8+k, row, v, st.int0)
			}
		}
	}
	row += 2
	s.header(row, []string{"run", "changed against", "prompt", "phase", "repeat", "at character", "reference output", "this output"}, st.header)
	for _, r := range d.Runs {
		if b := r.VsReference; b != nil {
			for _, ch := range b.Changed {
				row++
				cmpDriftChangeRow(s, st, row, r.Label, d.Reference, ch)
			}
		}
		if r.Own != nil {
			for _, ch := range r.Own.Changed {
				row++
				cmpDriftChangeRow(s, st, row, r.Label, "its own first output", ch)
			}
		}
	}
	_ = f.SetColWidth(s.sheet, "A", "F", 16)
	_ = f.SetColWidth(s.sheet, "G", "H", 60)
	return nil
}

// cmpDriftChangeRow writes one changed output.
func cmpDriftChangeRow(s cmpSheet, st styles, row int, label, against string, ch analysis.DriftChange) {
	s.set(1, row, label, 0)
	s.set(2, row, against, 0)
	s.set(3, row, ch.Prompt, st.int0)
	s.set(4, row, string(ch.Phase), 0)
	s.set(5, row, ch.Repeat, st.int0)
	s.set(6, row, ch.DiffersAt, st.int0)
	s.set(7, row, ch.Reference, st.wrap)
	s.set(8, row, ch.Text, st.wrap)
}

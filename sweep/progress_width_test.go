package sweep

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/llmcap/llmcap/rundir"
)

// widthProgress is a display on step 1/3 of segment "default" at concurrency 1 in
// warm-up with 12 requests done, TTFT p95 230 ms and no errors.
func widthProgress() *progress {
	p := &progress{}
	p.beginStep(stepLabel{segment: "default", index: 1, total: 3, schedule: "concurrency", load: 1})
	for i := 0; i < 12; i++ {
		v := 230.0
		p.observe(&rundir.Record{Status: rundir.StatusOK, TTFTMs: &v})
	}
	return p
}

// TestProgressDescriptionWidths: at 160 columns the wide form; at 80 the compact form
// with the step, load, phase, done count, TTFT p95, errors and segment; at 60 the figures first, the phase dropped. Every form fits beside the bar.
func TestProgressDescriptionWidths(t *testing.T) {
	p := widthProgress()
	for _, c := range []struct {
		cols int
		want string
	}{
		{160, "default step 1/3 concurrency=1 warm-up | done 12 | TTFT p50 230 ms p95 230 ms | errors 0"},
		{80, "1/3 c=1 warm-up done 12 TTFT p95 230ms err 0 default"},
		{60, "1/3 c=1 done 12 TTFT p95 230ms"},
	} {
		got := p.describeFor(c.cols)
		if got != c.want {
			t.Errorf("%d columns: description %q, want %q", c.cols, got, c.want)
		}
		if n := utf8.RuneCountInString(got); n > c.cols-barColumns(c.cols) {
			t.Errorf("%d columns: description of %d runes leaves no room for the bar", c.cols, n)
		}
	}
	p.stepNote("stopped early: error rate 100%")
	if got := p.describeFor(130); !strings.HasPrefix(got, "1/3 c=1 warm-up done 12 TTFT p95 230ms err 0 ") || !strings.Contains(got, "stopped early") {
		t.Errorf("130 columns with a note: %q, want the compact form with the note", got)
	}
}

// TestProgressBarLineFits: the bar as drawn (percentage, bar, count, elapsed time and the
// description) stays within the terminal's width, so it never wraps.
func TestProgressBarLineFits(t *testing.T) {
	p := widthProgress()
	for _, cols := range []int{60, 80, 160} {
		var buf bytes.Buffer
		bar := newBar(&buf, 16, cols, 0)
		bar.Describe(p.describeFor(cols))
		if err := bar.Add(12); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(buf.String(), "\r")
		last := lines[len(lines)-1]
		if n := utf8.RuneCountInString(last); n > cols || !strings.Contains(last, "p95 230") {
			t.Errorf("%d columns: drawn line %q is %d runes or lacks the TTFT", cols, last, n)
		}
	}
}

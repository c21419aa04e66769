package sweep

import (
	"os"
	"strings"
	"testing"

	"github.com/llmcap/llmcap/rundir"
)

func TestProgressQuietAndDescription(t *testing.T) {
	if newProgress(nil, 3) != nil || newProgress(&strings.Builder{}, 3) != nil {
		t.Fatal("progress display on a nil or non-file writer")
	}
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if newProgress(f, 3) != nil {
		t.Fatal("progress display on a regular file (not a terminal)")
	}
	var p *progress // nil: every method is a no-op
	p.beginStep(stepLabel{segment: "x"})
	p.observe(&rundir.Record{})
	p.endStep()
	p.close()

	p = &progress{}
	p.beginStep(stepLabel{segment: "short", index: 2, total: 5, schedule: "concurrency", load: 8})
	for _, ms := range []float64{10, 20, 30} {
		v := ms
		p.observe(&rundir.Record{Status: rundir.StatusOK, TTFTMs: &v})
	}
	p.observe(&rundir.Record{Status: rundir.StatusError})
	p.stepPhase("measure")
	got := p.describe()
	for _, want := range []string{"short step 2/5 concurrency=8 measure", "done 4", "TTFT p50 20 ms p95 29 ms", "errors 1"} {
		if !strings.Contains(got, want) {
			t.Errorf("description %q lacks %q", got, want)
		}
	}
}

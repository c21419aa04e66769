package sweep

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/llmcap/llmcap/rundir"
)

// TestFinalizeGracePhase: a successful measure request is grace only when its last
// content event (end_ns) came after the window closed, whenever Do returned; a failed
// one by when Do returned.
func TestFinalizeGracePhase(t *testing.T) {
	closed := time.Now()
	ms := time.Millisecond
	rec := func(ok bool, end time.Time) *rundir.Record {
		r := &rundir.Record{Phase: rundir.PhaseMeasure, Status: rundir.StatusOK}
		if !ok {
			r.Status, r.ErrorClass = rundir.StatusError, rundir.ErrCancelled
		}
		if !end.IsZero() {
			r.EndNs = unixNs(end)
		}
		return r
	}
	cases := []struct {
		name string
		rec  *rundir.Record
		end  time.Time // Do returned
		want string
	}{
		{"ended inside, Do returned after", rec(true, closed.Add(-5*ms)), closed.Add(time.Second), rundir.PhaseMeasure},
		{"ended after", rec(true, closed.Add(5*ms)), closed.Add(6 * ms), rundir.PhaseGrace},
		{"ok without content events", rec(true, time.Time{}), closed.Add(ms), rundir.PhaseGrace},
		{"cancelled after content inside", rec(false, closed.Add(-5*ms)), closed.Add(time.Second), rundir.PhaseGrace},
		{"failed inside", rec(false, time.Time{}), closed.Add(-ms), rundir.PhaseMeasure},
	}
	s := &stepRun{measureEnd: closed}
	for _, tc := range cases {
		s.results = append(s.results, stepResult{rec: tc.rec, end: tc.end})
	}
	s.finalize()
	for _, tc := range cases {
		if tc.rec.Phase != tc.want {
			t.Errorf("%s: phase %s, want %s", tc.name, tc.rec.Phase, tc.want)
		}
	}
}

// TestNoteOpenAfterDone: one run.json warning, its count replaced on a resumed run.
func TestNoteOpenAfterDone(t *testing.T) {
	c := NewClient(ClientConfig{})
	other := rundir.Warning{Kind: rundir.WarnLegacy, Step: rundir.RunWide, Message: "other"}
	// The earlier invocation's warning is found by its kind, whatever its wording.
	earlier := rundir.Warning{Kind: rundir.WarnHeldOpenAfterDone, Step: rundir.RunWide, Message: "3 held open",
		Data: &rundir.WarningData{Count: 3}}
	rn := &runner{client: c, meta: &rundir.RunMeta{Warnings: []rundir.Warning{other, earlier}}, log: slog.New(slog.DiscardHandler)}
	rn.noteOpenAfterDone()
	if len(rn.meta.Warnings) != 2 {
		t.Fatalf("no responses left open: warnings %+v, want them unchanged", rn.meta.Warnings)
	}
	c.openAfterDone.Add(7)
	rn.noteOpenAfterDone()
	w := rn.meta.Warnings
	if len(w) != 2 || w[0] != other || w[1].Kind != rundir.WarnHeldOpenAfterDone || w[1].Data.Count != 7 ||
		!strings.HasPrefix(w[1].Message, openAfterDoneWarning+": 7 responses") {
		t.Errorf("warnings %+v, want other and one open-after-[DONE] warning with count 7", w)
	}
}

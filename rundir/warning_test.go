package rundir

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestWarningJSON: a warning writes its kind, segment, step and message (no "step" when
// run-wide) and reads back equal.
func TestWarningJSON(t *testing.T) {
	step := Warning{Kind: WarnTraceWindowCut, Segment: "tr", Step: 0, Message: "step 0 (tr): cut",
		Data: &WarningData{Count: 200}}
	wide := Warning{Kind: WarnCaptureFailed, Step: RunWide, Message: "profile capture failed (step chat c=2): boom",
		Data: &WarningData{Steps: []string{"chat c=2"}, Error: "boom"}}
	b, err := json.Marshal([]Warning{step, wide})
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"kind":"trace-window-cut","segment":"tr","step":0,"message":"step 0 (tr): cut","data":{"count":200}},` +
		`{"kind":"capture-failed","message":"profile capture failed (step chat c=2): boom","data":{"steps":["chat c=2"],"error":"boom"}}]`
	if string(b) != want {
		t.Errorf("JSON\n got %s\nwant %s", b, want)
	}
	var back []Warning
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if len(back) != 2 || back[0].Kind != step.Kind || back[0].Step != 0 || back[0].Data.Count != 200 ||
		back[1].Step != RunWide || !slices.Equal(back[1].Data.Steps, []string{"chat c=2"}) || back[1].Data.Error != "boom" {
		t.Errorf("read back %+v", back)
	}
}

// TestLegacyRunMetaWarnings: an older run.json's plain-string warnings still read, as
// run-wide legacy warnings holding the string.
func TestLegacyRunMetaWarnings(t *testing.T) {
	var m RunMeta
	old := `{"run_id":"r1","state":"complete","warnings":["server does not stream: TTFT = E2E and ITL are meaningless",` +
		`{"kind":"not-streaming","message":"typed"}]}`
	if err := json.Unmarshal([]byte(old), &m); err != nil {
		t.Fatal(err)
	}
	if len(m.Warnings) != 2 {
		t.Fatalf("warnings %+v", m.Warnings)
	}
	if w := m.Warnings[0]; w.Kind != WarnLegacy || w.Step != RunWide || w.Segment != "" ||
		w.Message != "server does not stream: TTFT = E2E and ITL are meaningless" {
		t.Errorf("legacy warning %+v", w)
	}
	if w := m.Warnings[1]; w.Kind != WarnNotStreaming || w.Step != RunWide || w.Message != "typed" {
		t.Errorf("typed warning without step %+v", w)
	}
	// A number reads as legacy text (TestOddWarningsStayReadable), not as an error.
}

// TestWarningSame: warnings are the same by kind, segment and step, whatever their
// wording; legacy warnings (no other identity) only when their messages match.
func TestWarningSame(t *testing.T) {
	a := Warning{Kind: WarnTraceTooShort, Segment: "tr", Step: 1, Message: "one wording"}
	for _, c := range []struct {
		b    Warning
		same bool
	}{
		{Warning{Kind: WarnTraceTooShort, Segment: "tr", Step: 1, Message: "another wording"}, true},
		{Warning{Kind: WarnTraceWindowCut, Segment: "tr", Step: 1, Message: "one wording"}, false},
		{Warning{Kind: WarnTraceTooShort, Segment: "tr", Step: 2, Message: "one wording"}, false},
		{Warning{Kind: WarnTraceTooShort, Segment: "chat", Step: 1, Message: "one wording"}, false},
	} {
		if got := a.Same(c.b); got != c.same {
			t.Errorf("Same(%+v) = %v, want %v", c.b, got, c.same)
		}
	}
	l1, l2 := Warning{Kind: WarnLegacy, Step: RunWide, Message: "x"}, Warning{Kind: WarnLegacy, Step: RunWide, Message: "y"}
	if l1.Same(l2) || !l1.Same(l1) {
		t.Error("legacy warnings must be the same only with the same message")
	}
}

// TestOddWarningsStayReadable: null, a number or a list in run.json's warnings reads as
// a legacy warning (its text; "" for null) instead of failing the whole run.json.
func TestOddWarningsStayReadable(t *testing.T) {
	var m RunMeta
	if err := json.Unmarshal([]byte(`{"run_id":"r","warnings":[null,123,["x"],"old text"]}`), &m); err != nil {
		t.Fatal(err)
	}
	want := []string{"", "123", `["x"]`, "old text"}
	if len(m.Warnings) != len(want) {
		t.Fatalf("warnings %+v", m.Warnings)
	}
	for i, w := range m.Warnings {
		if w.Kind != WarnLegacy || w.Message != want[i] || w.Step != RunWide {
			t.Errorf("warning %d = %+v, want legacy %q", i, w, want[i])
		}
	}
	if err := json.Unmarshal([]byte(`{"warnings":[{"kind":5}]}`), &m); err == nil || !strings.Contains(err.Error(), `{"kind":5}`) {
		t.Errorf("a malformed object: %v, want an error quoting it", err)
	}
}

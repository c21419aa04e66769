package rundir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDriftReaderFollowsTheDamageRule: drift.jsonl's reader keeps the good lines in
// file order, skips and counts a corrupt line and a line that is no probe request
// (naming the first), drops a torn last line, and keeps the first of a repeated key;
// a resume's repair leaves only the good lines.
func TestDriftReaderFollowsTheDamageRule(t *testing.T) {
	dir := t.TempDir()
	w, err := OpenWriter(dir)
	if err != nil {
		t.Fatal(err)
	}
	good := []DriftRecord{
		{Phase: DriftBefore, Repeat: 0, Prompt: 0, Status: StatusOK, SHA256: "a", Text: "x"},
		{Phase: DriftBefore, Repeat: 0, Prompt: 1, Status: StatusError, ErrorClass: ErrHTTP5xx},
	}
	if err := w.AppendDrift(good); err != nil {
		t.Fatal(err)
	}
	w.Close()
	f, _ := os.OpenFile(filepath.Join(dir, FileDrift), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("{not json\n" + `{"phase":"during","repeat":0,"prompt":2,"status":"ok"}` + "\n" +
		`{"phase":"before","repeat":0,"prompt":0,"status":"ok","sha256":"second"}` + "\n" + `{"phase":"after","rep`)
	f.Close()
	recs, dmg, ok, err := ReadDrift(dir)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	if len(recs) != 2 || recs[0].SHA256 != "a" || recs[1].ErrorClass != ErrHTTP5xx {
		t.Errorf("records %+v; want the two good lines, the first of a repeated key", recs)
	}
	if dmg.Corrupt != 2 || dmg.FirstCorrupt != 3 || !dmg.Torn || !strings.Contains(dmg.String(), FileDrift) {
		t.Errorf("damage %+v; want 2 corrupt from line 3 and a torn last line", dmg)
	}
	if err := repairDrift(dir); err != nil {
		t.Fatal(err)
	}
	recs, dmg, _, _ = ReadDrift(dir)
	if len(recs) != 2 || dmg.Any() {
		t.Errorf("after the repair: %d records, damage %v; want the 2 good ones (and the repeat) undamaged", len(recs), dmg)
	}
	if _, _, ok, err := ReadDrift(t.TempDir()); ok || err != nil {
		t.Errorf("no drift.jsonl: ok %v, %v; want a run without the probe", ok, err)
	}
}

// TestDriftTextIsCutAtACharacterAndDiffsCountCharacters: SetText keeps at most
// DriftTextBytes bytes, never half a character; FirstDiff counts code points.
func TestDriftTextIsCutAtACharacterAndDiffsCountCharacters(t *testing.T) {
	var r DriftRecord
	long := strings.Repeat("a", DriftTextBytes-1) + "é" + "tail"
	r.SetText(long)
	if r.Text != strings.Repeat("a", DriftTextBytes-1) || !r.TextTruncated || r.TextBytes != len(long) {
		t.Errorf("cut to %d bytes, truncated %v, %d bytes in all", len(r.Text), r.TextTruncated, r.TextBytes)
	}
	r.SetText("short")
	if r.Text != "short" || r.TextTruncated || r.TextBytes != 5 {
		t.Errorf("short text: %+v", r)
	}
	for _, c := range []struct {
		a, b string
		want int
	}{{"same", "same", -1}, {"héllo", "hélp", 3}, {"abc", "abcd", 3}, {"", "x", 0}} {
		if got := FirstDiff(c.a, c.b); got != c.want {
			t.Errorf("FirstDiff(%q, %q) = %d; want %d", c.a, c.b, got, c.want)
		}
	}
}

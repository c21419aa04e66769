package rundir_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmcap/llmcap/rundir"
	"github.com/llmcap/llmcap/rundir/rundirtest"
)

// TestImpossibleRecordsAreCorrupt: a records.jsonl line that decodes but holds a value
// no sweep writes — a negative step, latency, token count or time, an unknown phase or
// status, a latency of 1e308 ms — is corrupt under the Damage rule: skipped, counted,
// the first one's line and reason kept. A negative schedule lag and a latency just
// under MaxRecordLatencyMs are values a sweep can write and are read.
func TestImpossibleRecordsAreCorrupt(t *testing.T) {
	dir := t.TempDir()
	rundirtest.Write(t, dir, rundirtest.Run{Meta: rundir.RunMeta{RunID: "run-1"}, Records: varied(2)})
	const base = `"run_id":"run-1","segment":"short","schedule":"concurrency","concurrency":8,"status":"ok"`
	bad := []string{
		`"step":-1,"phase":"measure"`,
		`"step":0,"phase":"bogus"`,
		`"step":0,"phase":"measure","status":"fine"`,
		`"step":0,"phase":"measure","ttft_ms":-50`,
		`"step":0,"phase":"measure","e2e_ms":1e308`,
		`"step":0,"phase":"measure","itl_ms":1e11`,
		`"step":0,"phase":"measure","output_tokens":-3`,
		`"step":0,"phase":"measure","prompt_tokens":-1`,
		`"step":0,"phase":"measure","sent_ns":-1`,
		`"step":0,"phase":"measure","icl_ms":[1,-2]`,
	}
	good := []string{
		`"step":0,"phase":"measure","schedule_lag_ms":-0.5,"e2e_ms":9.9e9`,
		`"step":1,"phase":"grace","ttft_ms":0`,
	}
	var b strings.Builder
	for _, l := range append(bad, good...) {
		b.WriteString("{" + base + "," + l + "}\n")
	}
	f, err := os.OpenFile(filepath.Join(dir, rundir.FileRecords), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(b.String())
	f.Close()
	recs, dmg, err := rundir.ReadRecords(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2+len(good) {
		t.Errorf("%d records, want %d (2 written + %d possible)", len(recs), 2+len(good), len(good))
	}
	if dmg.Corrupt != len(bad) || dmg.FirstCorrupt != 3 || dmg.FirstError != "impossible record: step -1" || dmg.Torn {
		t.Errorf("damage %+v, want %d corrupt lines from line 3 (step -1)", dmg, len(bad))
	}
	for i, l := range bad {
		dir := t.TempDir()
		rundirtest.Write(t, dir, rundirtest.Run{Meta: rundir.RunMeta{RunID: "run-1"}})
		if err := os.WriteFile(filepath.Join(dir, rundir.FileRecords), []byte("{"+base+","+l+"}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		recs, dmg, _ := rundir.ReadRecords(dir)
		if len(recs) != 0 || dmg.Corrupt != 1 || !strings.HasPrefix(dmg.FirstError, "impossible record: ") {
			t.Errorf("line %d (%s): %d records, damage %+v: want it corrupt as impossible", i+1, l, len(recs), dmg)
		}
	}
}

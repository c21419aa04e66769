package rundir

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// FuzzResumeRepair checks the repair of a run directory's append-only files
// (PrepareResume) on arbitrary steps.jsonl and records.jsonl contents. When it
// succeeds: each file is a subsequence of the input's complete (newline-ended) lines,
// in order, each a whole input line; records.jsonl keeps only lines of finished steps
// (or step < 0); and a second repair changes nothing.
func FuzzResumeRepair(f *testing.F) {
	step0 := `{"index":0,"concurrency":1,"requests":2,"ok":2}` + "\n"
	rec := func(step int) string {
		return `{"id":"r` + string(rune('0'+step)) + `","step":` + string(rune('0'+step)) + `,"sent_ns":1,"http_status":200,"output_tokens":8}` + "\n"
	}
	f.Add([]byte(step0), []byte(rec(0)+rec(1)+`{"id":"torn","st`))
	f.Add([]byte(step0+step0+`{"index":1,"conc`), []byte(rec(0)+"\n  \n"+rec(0)))
	f.Add([]byte(""), []byte(`{"step":-1}`+"\n"+rec(2)))
	f.Add([]byte(step0+"{\"index\":1}\r\n"), []byte(rec(1)+"\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, steps, records []byte) {
		dir := t.TempDir()
		write := func(name string, b []byte) {
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		write(FileRun, []byte(`{"schema_version":1}`))
		write(FileSteps, steps)
		write(FileRecords, records)
		st, err := PrepareResume(dir)
		if err != nil {
			return
		}
		gotSteps := readFile(t, dir, FileSteps)
		gotRecords := readFile(t, dir, FileRecords)
		checkWholeLines(t, FileSteps, gotSteps, steps)
		checkWholeLines(t, FileRecords, gotRecords, records)
		for _, l := range bytes.SplitAfter(gotRecords, []byte{'\n'}) {
			if len(l) == 0 {
				continue
			}
			var v struct {
				Step int `json:"step"`
			}
			if err := json.Unmarshal(l, &v); err != nil {
				t.Fatalf("kept record %q: %v", l, err)
			}
			if _, ok := st.Done[v.Step]; !ok && v.Step >= 0 {
				t.Fatalf("kept record %q of unfinished step %d", l, v.Step)
			}
		}
		st2, err := PrepareResume(dir)
		if err != nil {
			t.Fatalf("second repair: %v", err)
		}
		if !slices.Equal(slices.Sorted(maps.Keys(st.Done)), slices.Sorted(maps.Keys(st2.Done))) ||
			!bytes.Equal(gotSteps, readFile(t, dir, FileSteps)) || !bytes.Equal(gotRecords, readFile(t, dir, FileRecords)) {
			t.Fatalf("second repair changed the directory")
		}
	})
}

func readFile(t *testing.T, dir, name string) []byte {
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// checkWholeLines fails unless out is a sequence of in's complete lines, in order.
func checkWholeLines(t *testing.T, name string, out, in []byte) {
	t.Helper()
	var complete [][]byte
	for _, l := range bytes.SplitAfter(in, []byte{'\n'}) {
		if bytes.HasSuffix(l, []byte{'\n'}) {
			complete = append(complete, l)
		}
	}
	k := 0
	for _, l := range bytes.SplitAfter(out, []byte{'\n'}) {
		if len(l) == 0 {
			continue
		}
		for k < len(complete) && !bytes.Equal(complete[k], l) {
			k++
		}
		if k == len(complete) {
			t.Fatalf("%s: line %q is not one of the input's complete lines, in order", name, l)
		}
		k++
	}
}

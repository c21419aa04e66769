package tracefile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzTraceMooncake checks the Mooncake JSONL reader on arbitrary files and row
// windows (see checkTraceWindow for the properties).
func FuzzTraceMooncake(f *testing.F) {
	for _, name := range []string{"mooncake_conversation_trace.jsonl", "mooncake_synthetic_trace.jsonl"} {
		f.Add(seedLines(f, name, 12), uint8(0), uint8(0))
		f.Add(seedLines(f, name, 12), uint8(3), uint8(4))
	}
	f.Add([]byte("{\"timestamp\": 5, \"input_length\": 1, \"output_length\": 1}\n{\"timestamp\": 2}\n"), uint8(0), uint8(0))
	f.Add([]byte("{\"timestamp\": -1e300}\n\n{\"timestamp\": 1e300, \"hash_ids\": [1]}\n"), uint8(0), uint8(0))
	f.Fuzz(func(t *testing.T, in []byte, start, rows uint8) {
		checkTraceWindow(t, FormatMooncake, in, int(start), int(rows))
	})
}

// checkTraceWindow reads in as a trace of format, rows [start, start+rows), and checks:
// either an error, or 1..rows rows (any number when rows is 0) whose unscaled offsets
// from the first are non-negative and non-decreasing and whose lengths are ≥ 1.
func checkTraceWindow(t *testing.T, format string, in []byte, start, rows int) {
	path := filepath.Join(t.TempDir(), "trace")
	if err := os.WriteFile(path, in, 0o644); err != nil {
		t.Fatal(err)
	}
	raw, err := Read(format, path, start, rows)
	if err != nil {
		if !strings.Contains(err.Error(), path) {
			t.Fatalf("error %q does not name the file", err)
		}
		return
	}
	if len(raw) == 0 || rows > 0 && len(raw) > rows {
		t.Fatalf("%d rows for a window of %d", len(raw), rows)
	}
	prev := Row{}
	for i, r := range (Scale{}).Apply(raw) {
		if r.Offset < 0 || r.Offset < prev.Offset {
			t.Fatalf("row %d: offset %v after %v (raw %+v)", i, r.Offset, prev.Offset, raw)
		}
		if r.Prompt < 1 || r.Output < 1 {
			t.Fatalf("row %d: lengths %d, %d", i, r.Prompt, r.Output)
		}
		prev = r
	}
}

// seedLines is the first n lines of the repository's trace data/traces/name.
func seedLines(f *testing.F, name string, n int) []byte {
	b, err := os.ReadFile(filepath.Join("..", "data", "traces", name))
	if err != nil {
		f.Fatal(err)
	}
	lines := strings.SplitAfterN(string(b), "\n", n+1)
	return []byte(strings.Join(lines[:min(n, len(lines))], ""))
}

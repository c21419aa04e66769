package importer_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmcap/llmcap/importer"
)

// aiperfCopy copies the AIPerf fixture at concurrency 4 into a temporary directory,
// with edit applied to the lines of its export, and returns the directory.
func aiperfCopy(t *testing.T, edit func(lines [][]byte) [][]byte, withSummary bool) string {
	t.Helper()
	src := filepath.Join("testdata", "aiperf", "c4")
	dir := t.TempDir()
	lines := bytes.Split(bytes.TrimRight(readFile(t, filepath.Join(src, importer.AIPerfExportFile)), "\n"), []byte("\n"))
	writeFile(t, dir, importer.AIPerfExportFile, append(bytes.Join(edit(lines), []byte("\n")), '\n'))
	if withSummary {
		writeFile(t, dir, importer.AIPerfSummaryFile, readFile(t, filepath.Join(src, importer.AIPerfSummaryFile)))
	}
	return dir
}

// TestAIPerfCorruptLinesAreSkippedNamingLineAndField: a line that is no JSON and a
// line whose TTFT has an unknown unit are skipped, each named by file, line and
// field; the other 60 records are imported and analysed.
func TestAIPerfCorruptLinesAreSkippedNamingLineAndField(t *testing.T) {
	dir := aiperfCopy(t, func(l [][]byte) [][]byte {
		l[4] = []byte(`{"metadata": {"request_start_ns": 17`)
		l[8] = bytes.Replace(l[8], []byte(`"unit": "ms"}, "request_latency"`), []byte(`"unit": "furlongs"}, "request_latency"`), 1)
		return l
	}, true)
	res, out := importInto(t, importer.FormatAIPerf, []string{dir}, nil)
	if len(res.Skipped) != 2 {
		t.Fatalf("skipped %v, want lines 5 and 9", res.Skipped)
	}
	s0, s1 := res.Skipped[0].String(), res.Skipped[1].String()
	if res.Skipped[0].Line != 5 || !strings.Contains(s0, "not a JSON record") || !strings.Contains(s0, importer.AIPerfExportFile) {
		t.Errorf("first skip %q: want line 5 of %s, not a JSON record", s0, importer.AIPerfExportFile)
	}
	if res.Skipped[1].Line != 9 || !strings.Contains(s1, `metrics.time_to_first_token.unit "furlongs"`) {
		t.Errorf("second skip %q: want line 9, metrics.time_to_first_token.unit", s1)
	}
	steps := analyze(t, out)
	if got := steps[0].Requests + steps[0].WarmupRequests; got != 62-2 {
		t.Errorf("%d requests analysed, want the 60 readable of 62", got)
	}
	if !strings.Contains(res.Plan.Description, "2 corrupt records skipped") {
		t.Errorf("description %q does not count the skipped records", res.Plan.Description)
	}
}

// TestAIPerfWithoutItsSummaryIsRefused: an export without profile_export_aiperf.json
// beside it has no load level; the error names the file and what is missing.
func TestAIPerfWithoutItsSummaryIsRefused(t *testing.T) {
	dir := aiperfCopy(t, func(l [][]byte) [][]byte { return l }, false)
	_, err := importer.Import(importer.Options{Format: importer.FormatAIPerf, Files: []string{dir}, OutDir: filepath.Join(t.TempDir(), "o")})
	if err == nil || !strings.Contains(err.Error(), importer.AIPerfSummaryFile+" is missing") || !strings.Contains(err.Error(), dir) {
		t.Errorf("err = %v, want the missing %s named with %s", err, importer.AIPerfSummaryFile, dir)
	}
}

// vllmCopy writes the vLLM fixture rate2.json, edited, to a temporary file.
func vllmCopy(t *testing.T, name string, edit func(m map[string]any)) string {
	t.Helper()
	var m map[string]any
	readJSON(t, filepath.Join("testdata", "vllm", "rate2.json"), &m)
	edit(m)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return writeFile(t, t.TempDir(), name, b)
}

// TestVLLMBenchBadFilesAreRefusedNamingTheField: arrays of different lengths, a
// result saved without --save-detailed and a file that is no JSON are refused, the
// error naming the file and the field.
func TestVLLMBenchBadFilesAreRefusedNamingTheField(t *testing.T) {
	short := vllmCopy(t, "short.json", func(m map[string]any) { m["itls"] = m["itls"].([]any)[1:] })
	plain := vllmCopy(t, "plain.json", func(m map[string]any) {
		for _, k := range []string{"ttfts", "itls", "input_lens", "output_lens", "errors", "start_times", "generated_texts"} {
			delete(m, k)
		}
	})
	junk := writeFile(t, t.TempDir(), "junk.json", []byte(`{"ttfts": [0.1, "fast"]}`))
	for _, c := range []struct{ file, want string }{
		{short, "itls has 79 entries but ttfts 80"},
		{plain, "--save-detailed"},
		{junk, "ttfts"},
	} {
		_, err := importer.Import(importer.Options{Format: importer.FormatVLLMBench, Files: []string{c.file}, OutDir: filepath.Join(t.TempDir(), "o")})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.file) {
			t.Errorf("%s: err = %v, want %q and the file named", c.file, err, c.want)
		}
	}
}

// TestVLLMBenchImpossibleRequestIsSkipped: a request with a negative TTFT and one
// whose TTFT Python wrote as NaN are skipped, named by index and field; the rest
// imports.
func TestVLLMBenchImpossibleRequestIsSkipped(t *testing.T) {
	file := vllmCopy(t, "bad.json", func(m map[string]any) { m["ttfts"].([]any)[3] = -0.1; m["ttfts"].([]any)[5] = "NAN" })
	b := bytes.Replace(readFile(t, file), []byte(`"NAN"`), []byte(`NaN`), 1)
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	res, dir := importInto(t, importer.FormatVLLMBench, []string{file}, nil)
	if len(res.Skipped) != 2 || res.Skipped[0].Index != 3 || res.Skipped[1].Index != 5 ||
		!strings.Contains(res.Skipped[0].Reason, "ttft -100 ms") || !strings.Contains(res.Skipped[1].Reason, "ttfts[5] is null") {
		t.Fatalf("skipped %v, want requests 3 (negative ttft) and 5 (NaN)", res.Skipped)
	}
	if st := analyze(t, dir)[0]; st.Requests != 78 || st.TTFTMs.N != 75 {
		t.Errorf("analysed %d requests (%d with TTFT), want 78 (75: the 77 successes less the 2 skipped)", st.Requests, st.TTFTMs.N)
	}
}

// TestNonEmptyRunDirectoryIsRefused: -o naming a directory with a file in it is
// refused before anything is read or written.
func TestNonEmptyRunDirectoryIsRefused(t *testing.T) {
	out := t.TempDir()
	writeFile(t, out, "notes.txt", []byte("mine"))
	_, err := importer.Import(importer.Options{Format: importer.FormatVLLMBench, Files: []string{filepath.Join("testdata", "vllm", "rate2.json")}, OutDir: out})
	if err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("err = %v, want the non-empty directory refused", err)
	}
	if b := readFile(t, filepath.Join(out, "notes.txt")); string(b) != "mine" {
		t.Errorf("notes.txt changed to %q", b)
	}
}

// TestLadderOverridesAreRefused: --set ladder.* or segments… would contradict the
// imported files and is refused as ErrOverride.
func TestLadderOverridesAreRefused(t *testing.T) {
	for _, k := range []string{"ladder.concurrency", "segments[0].prompt_tokens"} {
		_, err := importer.Import(importer.Options{Format: importer.FormatVLLMBench, Files: []string{filepath.Join("testdata", "vllm", "rate2.json")},
			OutDir: filepath.Join(t.TempDir(), "o"), Overrides: map[string]any{k: 4}})
		if !errors.Is(err, importer.ErrOverride) || !strings.Contains(err.Error(), k) {
			t.Errorf("--set %s: err = %v, want ErrOverride naming it", k, err)
		}
	}
}

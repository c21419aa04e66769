package importer_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/llmcap/llmcap/importer"
	"github.com/llmcap/llmcap/rundir"
)

var xRequestID = regexp.MustCompile(`"x_request_id": "[^"]*"`)

// setIDs sets line i's x_request_id to id(i).
func setIDs(id func(i int) string) func([][]byte) [][]byte {
	return func(l [][]byte) [][]byte {
		for i := range l {
			l[i] = xRequestID.ReplaceAll(l[i], []byte(fmt.Sprintf(`"x_request_id": %q`, id(i))))
		}
		return l
	}
}

// recordIDs are the request ids of dir's records.jsonl, in file order.
func recordIDs(t *testing.T, dir string) []string {
	t.Helper()
	var ids []string
	if _, err := rundir.EachRecord(dir, func(r *rundir.Record) error { ids = append(ids, r.RequestID); return nil }); err != nil {
		t.Fatal(err)
	}
	return ids
}

// TestAIPerfRepeatedRequestIDsAreAllAnalysed: an export whose 62 records share 2
// x_request_ids (and one record already named like a suffixed id) imports 62 records
// with 62 distinct ids, the first of each id kept as given, and the analysis counts all
// 62 — none dropped as a duplicate line — as does rundir.DuplicateFilter, which the
// analysis keys records by.
func TestAIPerfRepeatedRequestIDsAreAllAnalysed(t *testing.T) {
	dir := aiperfCopy(t, setIDs(func(i int) string {
		if i == 61 {
			return "dup-0#2" // a source id that a suffix must pass over
		}
		return fmt.Sprintf("dup-%d", i%2)
	}), true)
	res, out := importInto(t, importer.FormatAIPerf, []string{dir}, nil)
	if st := res.Steps[0]; st.Measured+st.Warmup != 62 || st.RenamedIDs != 59 {
		t.Errorf("step %+v: want 62 records, 59 renamed", st)
	}
	ids := recordIDs(t, out)
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			t.Errorf("request_id %q written twice", id)
		}
		seen[id] = true
	}
	for _, id := range []string{"dup-0", "dup-1", "dup-0#2", "dup-0#3", "dup-0#32", "dup-1#2", "dup-1#30"} {
		if !seen[id] {
			t.Errorf("no record %q among %d ids", id, len(ids))
		}
	}
	var dups rundir.DuplicateFilter
	if _, err := rundir.EachRecord(out, func(r *rundir.Record) error { dups.Repeat(r); return nil }); err != nil || dups.Count() != 0 {
		t.Errorf("DuplicateFilter finds %d repeats (%v), want 0", dups.Count(), err)
	}
	steps := analyze(t, out)
	if got := steps[0].Requests + steps[0].WarmupRequests; got != 62 {
		t.Errorf("%d requests analysed, want the 62 imported", got)
	}
	if d := res.Plan.Description; !strings.Contains(d, "59 records repeat an earlier record's request id") ||
		!strings.Contains(d, "dup-0#3 at line 3, the id first at line 1") {
		t.Errorf("description %q does not note the renaming", d)
	}
	// The renaming is stable: a second import of the same file writes the same ids.
	_, again := importInto(t, importer.FormatAIPerf, []string{dir}, nil)
	if a, b := strings.Join(ids, ","), strings.Join(recordIDs(t, again), ","); a != b {
		t.Errorf("ids differ between two imports of one file")
	}
}

// TestAIPerfSameIDsAcrossFilesAreAllAnalysed: two files (two steps) with the same ids
// keep them as given — the analysis keys records by step too — and every record of
// both is analysed.
func TestAIPerfSameIDsAcrossFilesAreAllAnalysed(t *testing.T) {
	ids := setIDs(func(i int) string { return fmt.Sprintf("req-%d", i) })
	c4 := aiperfCopy(t, ids, true)
	c1 := t.TempDir()
	src := filepath.Join("testdata", "aiperf", "c1")
	lines := bytes.Split(bytes.TrimRight(readFile(t, filepath.Join(src, importer.AIPerfExportFile)), "\n"), []byte("\n"))
	writeFile(t, c1, importer.AIPerfExportFile, append(bytes.Join(ids(lines), []byte("\n")), '\n'))
	writeFile(t, c1, importer.AIPerfSummaryFile, readFile(t, filepath.Join(src, importer.AIPerfSummaryFile)))
	res, out := importInto(t, importer.FormatAIPerf, []string{c4, c1}, nil)
	for _, st := range res.Steps {
		if st.RenamedIDs != 0 {
			t.Errorf("%s: %d ids renamed, want none (ids repeat only across files)", st.File, st.RenamedIDs)
		}
	}
	for i, st := range analyze(t, out) {
		if got := st.Requests + st.WarmupRequests; got != 62 {
			t.Errorf("step %d: %d requests analysed, want 62", i+1, got)
		}
	}
}

// TestAIPerfSuccessWithoutLatenciesIsSkipped: a successful record with no metrics
// object, one without time_to_first_token and request_latency, and one without
// request_latency alone are skipped as impossible, each named by line and field; a
// failed record without metrics still imports as a failure.
func TestAIPerfSuccessWithoutLatenciesIsSkipped(t *testing.T) {
	metrics := regexp.MustCompile(`"metrics": \{.*\}, "error": null\}$`)
	lat := regexp.MustCompile(`"request_latency": \{[^}]*\}, `)
	ttft := regexp.MustCompile(`"time_to_first_token": \{[^}]*\}, `)
	var failed int
	dir := aiperfCopy(t, func(l [][]byte) [][]byte {
		l[10] = metrics.ReplaceAll(l[10], []byte(`"error": null}`))
		l[11] = ttft.ReplaceAll(lat.ReplaceAll(l[11], nil), nil)
		l[12] = lat.ReplaceAll(l[12], nil)
		for i := range l {
			if bytes.Contains(l[i], []byte(`"error": {"code": 500`)) {
				failed = i
				l[i] = regexp.MustCompile(`"metrics": \{.*\}, "error": \{`).ReplaceAll(l[i], []byte(`"error": {`))
			}
		}
		return l
	}, true)
	res, out := importInto(t, importer.FormatAIPerf, []string{dir}, nil)
	want := []struct {
		line int
		why  string
	}{{11, "no metrics object"}, {12, "metrics.time_to_first_token and metrics.request_latency missing"}, {13, "metrics.request_latency missing"}}
	if len(res.Skipped) != len(want) {
		t.Fatalf("skipped %v, want lines 11, 12, 13", res.Skipped)
	}
	for i, w := range want {
		if s := res.Skipped[i]; s.Line != w.line || !strings.Contains(s.Reason, w.why) {
			t.Errorf("skip %d: %s; want line %d: %s", i, s, w.line, w.why)
		}
	}
	if failed == 0 || (failed >= 10 && failed <= 12) || !bytes.Contains(readFile(t, filepath.Join(out, rundir.FileRecords)), []byte(`"http_status":500`)) {
		t.Errorf("the failed record without metrics (line %d) was not imported as a failure", failed+1)
	}
	st := analyze(t, out)[0]
	if st.Requests+st.WarmupRequests != 62-3 || st.TTFTMs.N != st.Requests-st.Errors {
		t.Errorf("analysed %d requests, %d with TTFT, %d errors: want 59, each success with a TTFT", st.Requests+st.WarmupRequests, st.TTFTMs.N, st.Errors)
	}
}

// TestMissingAndWrongFormatFilesAreNamed: a path that does not exist is said not to
// exist (not "profile_export_aiperf.json is missing beside it"); a vLLM result given
// to aiperf and an AIPerf export or directory given to vllm-bench name the other
// command.
func TestMissingAndWrongFormatFilesAreNamed(t *testing.T) {
	vllm := filepath.Join("testdata", "vllm", "rate2.json")
	aiperfDir := filepath.Join("testdata", "aiperf", "c4")
	missing := filepath.Join(t.TempDir(), "nonexist")
	for _, c := range []struct {
		f          importer.Format
		file, want string
	}{
		{importer.FormatAIPerf, missing, missing + ": no such file or directory"},
		{importer.FormatVLLMBench, missing, missing + ": no such file or directory"},
		{importer.FormatAIPerf, vllm, "looks like a vllm-bench result: use llmcap import vllm-bench"},
		{importer.FormatVLLMBench, filepath.Join(aiperfDir, importer.AIPerfExportFile), "looks like an AIPerf export: use llmcap import aiperf"},
		{importer.FormatVLLMBench, aiperfDir, "use llmcap import aiperf"},
		{importer.FormatAIPerf, filepath.Join(aiperfDir, importer.AIPerfSummaryFile), "give the " + importer.AIPerfExportFile},
		{importer.FormatAIPerf, t.TempDir(), "holds no " + importer.AIPerfExportFile},
	} {
		_, err := importer.Import(importer.Options{Format: c.f, Files: []string{c.file}, OutDir: filepath.Join(t.TempDir(), "o")})
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "is missing beside it") {
			t.Errorf("import %s %s: err = %v, want %q", c.f, c.file, err, c.want)
		}
	}
}

// TestVLLMBenchDate: a missing date places the run at the file's modification time,
// said in the description; a date not in vLLM's %Y%m%d-%H%M%S is refused naming the
// field and the layout; a good date places the run's end there.
func TestVLLMBenchDate(t *testing.T) {
	noDate := vllmCopy(t, "nodate.json", func(m map[string]any) { delete(m, "date") })
	mtime := time.Date(2025, 3, 14, 9, 15, 0, 0, time.UTC)
	if err := os.Chtimes(noDate, mtime, mtime); err != nil {
		t.Fatal(err)
	}
	res, out := importInto(t, importer.FormatVLLMBench, []string{noDate}, nil)
	if d := res.Plan.Description; !strings.Contains(d, "no date in the file") || !strings.Contains(d, "2025-03-14T09:15:00Z") {
		t.Errorf("description %q does not say the date is missing and the time used", d)
	}
	meta, err := rundir.ReadMeta(out)
	if err != nil {
		t.Fatal(err)
	}
	if end := meta.FinishedAt; end == nil || end.Sub(mtime).Abs() > time.Minute {
		t.Errorf("run finished at %v, want about the file's modification time %v", end, mtime)
	}

	bad := vllmCopy(t, "baddate.json", func(m map[string]any) { m["date"] = "2025-03-14 09:15:00" })
	_, err = importer.Import(importer.Options{Format: importer.FormatVLLMBench, Files: []string{bad}, OutDir: filepath.Join(t.TempDir(), "o")})
	if err == nil || !strings.Contains(err.Error(), `date "2025-03-14 09:15:00"`) || !strings.Contains(err.Error(), "%Y%m%d-%H%M%S") ||
		!strings.Contains(err.Error(), bad) {
		t.Errorf("err = %v, want the file, the field date and the layout %%Y%%m%%d-%%H%%M%%S", err)
	}

	good := vllmCopy(t, "good.json", func(m map[string]any) { m["date"] = "20250314-091500" })
	res, out = importInto(t, importer.FormatVLLMBench, []string{good}, nil)
	if strings.Contains(res.Plan.Description, "no date") {
		t.Errorf("description %q notes a missing date", res.Plan.Description)
	}
	if meta, err = rundir.ReadMeta(out); err != nil || meta.FinishedAt.Sub(mtime).Abs() > time.Minute {
		t.Errorf("run finished at %v (%v), want about the date 2025-03-14 09:15:00", meta.FinishedAt, err)
	}
}

// TestImportWritesNoServerMetrics: an import has no scrapes, so its run directory has
// no server-metrics.jsonl (not an empty one), and the analysis reads it.
func TestImportWritesNoServerMetrics(t *testing.T) {
	for _, c := range []struct {
		f    importer.Format
		file string
	}{{importer.FormatVLLMBench, filepath.Join("testdata", "vllm", "rate2.json")}, {importer.FormatAIPerf, filepath.Join("testdata", "aiperf", "c4")}} {
		_, out := importInto(t, c.f, []string{c.file}, nil)
		if _, err := os.Stat(filepath.Join(out, rundir.FileServerMetrics)); !os.IsNotExist(err) {
			t.Errorf("%s: %s exists (%v), want none", c.file, rundir.FileServerMetrics, err)
		}
		analyze(t, out)
	}
}

// TestOmitServerMetricsRefusesAfterAScrape: rundir's OmitServerMetrics removes only an
// empty server-metrics.jsonl.
func TestOmitServerMetricsRefusesAfterAScrape(t *testing.T) {
	dir := t.TempDir()
	w, err := rundir.OpenWriter(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.AppendMetric(&rundir.MetricSample{}); err != nil {
		t.Fatal(err)
	}
	if err := w.OmitServerMetrics(); err == nil {
		t.Error("OmitServerMetrics removed a file holding a scrape")
	}
	var sample json.RawMessage = readFile(t, filepath.Join(dir, rundir.FileServerMetrics))
	if len(sample) == 0 {
		t.Error("the scrape is gone")
	}
}

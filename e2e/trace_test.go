package e2e

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/llmcap/llmcap/rundir"

	"go.yaml.in/yaml/v3"

	"github.com/llmcap/llmcap/plan"
)

// TestTraceReplayAzureConv replays a short window of the real Azure conversation trace
// against Ollama and checks that the achieved request rate matches the trace's rate
// (after time_scale) and that every request succeeded.
func TestTraceReplayAzureConv(t *testing.T) {
	testTraceReplay(t, "configs/trace-azure-conv.yaml", 60)
}

// TestTraceReplayMooncake replays a short window of the real Mooncake conversation trace
// (long prompts scaled down, served by stories-16k) and checks the achieved rate.
func TestTraceReplayMooncake(t *testing.T) {
	testTraceReplay(t, "configs/trace-mooncake.yaml", 40)
}

// testTraceReplay runs config with its trace window shortened to rows and compares the
// achieved send rate with the rate computed independently from the trace file.
func testTraceReplay(t *testing.T, config string, rows int) {
	base := ollamaURL(t)
	root := repoRoot(t)
	tmp := t.TempDir()
	cfg, tr := shortTraceConfig(t, filepath.Join(root, config), tmp, rows)
	out := filepath.Join(tmp, "run")
	runLLMCap(t, base, 10*time.Minute, "run", "-c", cfg, "-o", out)

	rd := loadRunDir(t, out)
	if rd.Meta.State != rundir.StateComplete {
		t.Errorf("run.json state = %q, want %q", rd.Meta.State, rundir.StateComplete)
	}
	var sent []int64
	for i := range rd.Records {
		r := &rd.Records[i]
		if r.Schedule != plan.ScheduleTrace {
			continue
		}
		if !r.OK() {
			t.Errorf("record %s failed: %s %s", r.RequestID, r.ErrorClass, r.Error)
		}
		sent = append(sent, r.SentNs)
	}
	if len(sent) != rows {
		t.Errorf("%d trace records, want %d (the window's rows)", len(sent), rows)
	}
	if len(sent) < 2 {
		t.Fatalf("too few trace records (%d) to compute a rate", len(sent))
	}
	sort.Slice(sent, func(i, j int) bool { return sent[i] < sent[j] })
	achieved := float64(len(sent)-1) / (float64(sent[len(sent)-1]-sent[0]) / 1e9)
	want := traceRate(t, tr)
	t.Logf("%s rows [%d, %d): trace rate %.3f req/s (time_scale %.2f), achieved %.3f req/s (%+.1f%%)",
		filepath.Base(tr.File), tr.StartRow, tr.StartRow+tr.Rows, want, tr.TimeScale, achieved, 100*(achieved/want-1))
	if math.Abs(achieved/want-1) > 0.10 {
		t.Errorf("achieved request rate %.3f req/s differs from the trace's %.3f req/s by more than 10%%", achieved, want)
	}
}

// shortTraceConfig copies the YAML config at src into dir with every trace segment's
// window cut to rows and its file made absolute; it returns the new path and the trace.
func shortTraceConfig(t *testing.T, src, dir string, rows int) (string, plan.Trace) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatalf("read %s: %v", src, err)
	}
	var doc map[string]any
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("parse %s: %v", src, err)
	}
	segs, _ := doc["segments"].([]any)
	var tr plan.Trace
	for _, s := range segs {
		m, _ := s.(map[string]any)
		trm, ok := m["trace"].(map[string]any)
		if !ok {
			continue
		}
		file, _ := trm["file"].(string)
		if !filepath.IsAbs(file) {
			file = filepath.Join(filepath.Dir(src), file)
			if _, err := os.Stat(file); err != nil { // paths relative to the repo root
				file = filepath.Join(repoRoot(t), trm["file"].(string))
			}
		}
		trm["file"], trm["rows"] = file, rows
		raw, _ := json.Marshal(trm)
		if err := json.Unmarshal(raw, &tr); err != nil {
			t.Fatalf("decode trace section of %s: %v", src, err)
		}
	}
	if tr.File == "" {
		t.Fatalf("%s has no trace segment", src)
	}
	if tr.TimeScale == 0 {
		tr.TimeScale = 1
	}
	out, err := yaml.Marshal(doc)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	path := filepath.Join(dir, filepath.Base(src))
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatalf("write %s: %v", path, err)
	}
	return path, tr
}

// traceRate reads the trace window's arrival times straight from the file and returns
// its request rate in req/s after time scaling: (rows−1) / (span · time_scale).
func traceRate(t *testing.T, tr plan.Trace) float64 {
	t.Helper()
	ts := traceTimes(t, tr)
	if len(ts) < 2 {
		t.Fatalf("trace window has %d rows", len(ts))
	}
	span := ts[len(ts)-1] - ts[0]
	if span <= 0 {
		t.Fatalf("trace window spans %.3f s", span)
	}
	return float64(len(ts)-1) / (span * tr.TimeScale)
}

// traceTimes returns the arrival times (s) of rows [StartRow, StartRow+Rows).
func traceTimes(t *testing.T, tr plan.Trace) []float64 {
	t.Helper()
	f, err := os.Open(tr.File)
	if err != nil {
		t.Fatalf("open trace: %v", err)
	}
	defer f.Close()
	var ts []float64
	keep := func(i int) bool { return i >= tr.StartRow && (tr.Rows == 0 || i < tr.StartRow+tr.Rows) }
	switch tr.Format {
	case plan.TraceAzure:
		r := csv.NewReader(f)
		if _, err := r.Read(); err != nil { // header
			t.Fatalf("trace header: %v", err)
		}
		for i := 0; ; i++ {
			rec, err := r.Read()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("trace row %d: %v", i, err)
			}
			if keep(i) {
				ts = append(ts, azureTime(t, rec[0]))
			}
		}
	case plan.TraceMooncake:
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for i := 0; sc.Scan(); i++ {
			if !keep(i) {
				continue
			}
			var row struct {
				Timestamp float64 `json:"timestamp"`
			}
			if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
				t.Fatalf("trace row %d: %v", i, err)
			}
			ts = append(ts, row.Timestamp/1000)
		}
	default:
		t.Fatalf("unknown trace format %q", tr.Format)
	}
	return ts
}

// azureTime parses an Azure trace TIMESTAMP ("2023-11-16 18:15:46.6805900", 7 fraction
// digits) to seconds.
func azureTime(t *testing.T, s string) float64 {
	t.Helper()
	date, frac, _ := strings.Cut(s, ".")
	tm, err := time.Parse("2006-01-02 15:04:05", date)
	if err != nil {
		t.Fatalf("trace TIMESTAMP %q: %v", s, err)
	}
	f := 0.0
	if frac != "" {
		if f, err = strconv.ParseFloat("0."+frac, 64); err != nil {
			t.Fatalf("trace TIMESTAMP %q: %v", s, err)
		}
	}
	return float64(tm.Unix()) + f
}

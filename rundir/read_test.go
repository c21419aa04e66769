package rundir_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/llmcap/llmcap/rundir"
	"github.com/llmcap/llmcap/rundir/rundirtest"
)

// varied returns n records covering every field shape the sweep writes: nil and set
// latencies, ICL arrays, errors with escaped characters, both phases and statuses.
func varied(n int) []rundir.Record {
	rng := rand.New(rand.NewPCG(1, 2))
	out := make([]rundir.Record, n)
	for i := range out {
		r := rundir.Record{RunID: "run-1", Segment: []string{"short", "long"}[i%2], StepSegment: "mix",
			Step: i / 100, Schedule: "concurrency", Concurrency: 8, Phase: rundir.PhaseMeasure,
			RequestID: fmt.Sprintf("r%06d", i), SessionID: fmt.Sprintf("s%04d", i/3), Turn: i%3 + 1,
			SentNs: 1_700_000_000_000_000_000 + int64(i)*1e6, FirstTokenNs: 1_700_000_000_050_000_000 + int64(i)*1e6,
			EndNs:                1_700_000_001_000_000_000 + int64(i)*1e6,
			IntendedPromptTokens: 100 + i, IntendedOutputTokens: 64, PromptTokens: 101 + i, OutputTokens: 64,
			TokensSource: rundir.TokensUsage, Chunks: 64, FinishReason: "length", Status: rundir.StatusOK}
		switch i % 5 {
		case 0:
			r.Phase = rundir.PhaseWarmup
			r.TTFTMs, r.TTFOMs, r.ITLMs, r.E2EMs = rundirtest.Ms(rng.Float64()*100), rundirtest.Ms(12.5), rundirtest.Ms(1.0/3), rundirtest.Ms(1234.0625)
		case 1:
			r.Status, r.ErrorClass, r.HTTPStatus = rundir.StatusError, rundir.ErrHTTP5xx, 503
			r.Error = "upstream said \"busy\"\n\ttry later ✓"
		case 2:
			r.TTFTMs, r.E2EMs = rundirtest.Ms(7e-7), rundirtest.Ms(9.87654321e9) // 7e-7 reads through strconv; e2e just under MaxRecordLatencyMs
			r.ICLMs = []float64{10.25, 9.75, 1e-3}
		case 3:
			r.Rate, r.Schedule = 2.5, "rate"
			r.ScheduleLagMs = rundirtest.Ms(-0.5)
			r.TTFTMs, r.ITLMs = rundirtest.Ms(0), rundirtest.Ms(10)
		}
		out[i] = r
	}
	return out
}

// TestEachRecordDecodesLikeEncodingJSON: every record read back equals what
// encoding/json decodes from the same line, across chunk boundaries, in file order.
func TestEachRecordDecodesLikeEncodingJSON(t *testing.T) {
	dir := t.TempDir()
	want := varied(12000) // > 2 MiB: several parallel chunks
	rundirtest.Write(t, dir, rundirtest.Run{Records: want})
	b, err := os.ReadFile(filepath.Join(dir, rundir.FileRecords))
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 2<<20 {
		t.Fatalf("records.jsonl is %d bytes, want several chunks", len(b))
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	got, dmg, err := rundir.ReadRecords(dir)
	if err != nil || dmg.Any() {
		t.Fatalf("ReadRecords: %v, damage %+v", err, dmg)
	}
	if len(got) != len(lines) {
		t.Fatalf("read %d records, file has %d lines", len(got), len(lines))
	}
	for i, line := range lines {
		var j rundir.Record
		if err := json.Unmarshal([]byte(line), &j); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got[i], j) {
			t.Fatalf("record %d:\n fast %+v\n json %+v", i, got[i], j)
		}
	}
}

// TestDamageRule: a corrupt middle line is skipped, counted and named by its line
// number; a torn last line is dropped; every other record is still read.
func TestDamageRule(t *testing.T) {
	dir := t.TempDir()
	rundirtest.Write(t, dir, rundirtest.Run{Records: varied(10)})
	path := filepath.Join(dir, rundir.FileRecords)
	b, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	// Line 4 corrupt, line 7 corrupt, and the last line torn half-way.
	lines[3] = `{"run_id":"run-1","step":` // cut
	lines[6] = `not json at all`
	torn := lines[9][:len(lines[9])/2]
	data := strings.Join(lines[:9], "\n") + "\n" + torn
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	var steps []int
	dmg, err := rundir.EachRecord(dir, func(r *rundir.Record) error { steps = append(steps, r.Turn); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != 7 {
		t.Errorf("read %d records, want 7 (10 − 2 corrupt − 1 torn)", len(steps))
	}
	if dmg.Corrupt != 2 || dmg.FirstCorrupt != 4 || !dmg.Torn {
		t.Errorf("damage %+v, want 2 corrupt from line 4 and a torn last line", dmg)
	}
	if s := dmg.String(); !strings.Contains(s, "2 corrupt lines skipped (first: line 4") || !strings.Contains(s, "torn") {
		t.Errorf("damage sentence %q", s)
	}
	// A complete last line without its newline is not torn: it decodes and is kept.
	if err := os.WriteFile(path, []byte(strings.Join(lines[:3], "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	recs, dmg, err := rundir.ReadRecords(dir)
	if err != nil || len(recs) != 3 || dmg.Any() {
		t.Errorf("3 whole lines, the last without newline: %d records, damage %+v, err %v", len(recs), dmg, err)
	}
}

// TestReadStepsAndMetricsFollowTheRule: steps.jsonl and server-metrics.jsonl follow the
// same damage rule; a missing optional file reads as empty.
func TestReadStepsAndMetricsFollowTheRule(t *testing.T) {
	dir := t.TempDir()
	sums := []rundir.StepSummary{{Step: rundirtest.Step(0, "a", 1), MeasureRequests: 5},
		{Step: rundirtest.Step(1, "a", 2), MeasureRequests: 9}}
	ms := []rundir.MetricSample{{TimeNs: 1, Step: 0, URL: "u", Values: map[string]float64{"vllm:num_requests_running": 3}}}
	rundirtest.Write(t, dir, rundirtest.Run{Steps: sums, Metrics: ms})
	f, _ := os.OpenFile(filepath.Join(dir, rundir.FileSteps), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("{broken\n" + `{"index":0,"segment":"a","measure_requests":7}` + "\n")
	f.Close()
	got, dmg, err := rundir.ReadSteps(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].MeasureRequests != 7 || got[1].MeasureRequests != 9 {
		t.Errorf("steps %+v, want step 0 replaced by its last summary (7) and step 1 (9)", got)
	}
	if dmg.Corrupt != 1 || dmg.FirstCorrupt != 3 {
		t.Errorf("steps damage %+v, want line 3 corrupt", dmg)
	}
	m, dmg, err := rundir.ReadMetrics(dir)
	if err != nil || dmg.Any() || len(m) != 1 || m[0].Values["vllm:num_requests_running"] != 3 {
		t.Errorf("metrics %+v damage %+v err %v", m, dmg, err)
	}
	empty := t.TempDir()
	if s, d, err := rundir.ReadSteps(empty); err != nil || len(s) != 0 || d.Any() {
		t.Errorf("missing steps.jsonl: %v %v %v", s, d, err)
	}
	if _, err := rundir.ReadMeta(empty); err == nil {
		t.Error("ReadMeta of a directory without run.json: no error")
	}
	if _, _, err := rundir.ReadRecords(empty); err == nil {
		t.Error("ReadRecords without records.jsonl: no error")
	}
}

// TestEachRecordStopsOnCallbackError: the callback's error ends the read and is
// returned as is.
func TestEachRecordStopsOnCallbackError(t *testing.T) {
	dir := t.TempDir()
	rundirtest.Write(t, dir, rundirtest.Run{Records: varied(20000)})
	stop := fmt.Errorf("enough")
	n := 0
	_, err := rundir.EachRecord(dir, func(*rundir.Record) error {
		n++
		if n == 10 {
			return stop
		}
		return nil
	})
	if err != stop || n != 10 {
		t.Errorf("err %v after %d records, want the callback's error after 10", err, n)
	}
}

// TestNonRecordsAreCorrupt: lines that decode but are no record of this run — "{}",
// "null", a record without phase or status, another run's record — count as corrupt.
func TestNonRecordsAreCorrupt(t *testing.T) {
	dir := t.TempDir()
	rundirtest.Write(t, dir, rundirtest.Run{Meta: rundir.RunMeta{RunID: "run-1"}, Records: varied(3)})
	f, _ := os.OpenFile(filepath.Join(dir, rundir.FileRecords), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("{}\nnull\n" + `{"segment":"short","status":"ok"}` + "\n" +
		`{"run_id":"other","segment":"short","step":0,"phase":"measure","status":"ok"}` + "\n" +
		`{"segment":"short","step":0,"phase":"measure","status":"ok"}` + "\n")
	f.Close()
	recs, dmg, err := rundir.ReadRecords(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 4 {
		t.Errorf("%d records, want 4 (3 written + one without run_id)", len(recs))
	}
	if dmg.Corrupt != 4 || dmg.FirstCorrupt != 4 || dmg.Torn {
		t.Errorf("damage %+v, want 4 corrupt lines from line 4", dmg)
	}
}

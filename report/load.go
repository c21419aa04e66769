package report

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/llmcap/llmcap/sweep"
)

// maxLineBytes bounds one JSONL line (a record with --save-icl can be long).
const maxLineBytes = 64 << 20

// readRecords reads records.jsonl; a missing file yields no records and no error.
// A malformed line is an error naming the file and line number.
func readRecords(path string) ([]sweep.Record, error) {
	var out []sweep.Record
	err := readJSONL(path, func(line []byte) error {
		var r sweep.Record
		if err := json.Unmarshal(line, &r); err != nil {
			return err
		}
		out = append(out, r)
		return nil
	})
	return out, err
}

// readMetrics reads server-metrics.jsonl; a missing file yields no samples and no error.
func readMetrics(path string) ([]sweep.MetricSample, error) {
	var out []sweep.MetricSample
	err := readJSONL(path, func(line []byte) error {
		var s sweep.MetricSample
		if err := json.Unmarshal(line, &s); err != nil {
			return err
		}
		out = append(out, s)
		return nil
	})
	return out, err
}

// readJSONL calls fn for each non-empty line of path. A missing file is not an error.
// A truncated last line (an interrupted run) is skipped rather than failing the report.
func readJSONL(path string, fn func([]byte) error) error {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("report: open %s: %w", path, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), maxLineBytes)
	lineNo := 0
	var pending error
	for sc.Scan() {
		lineNo++
		line := sc.Bytes()
		if len(line) == 0 {
			continue
		}
		if pending != nil {
			return pending // a bad line that was not the last one
		}
		if err := fn(line); err != nil {
			pending = fmt.Errorf("report: %s line %d: %w", filepath.Base(path), lineNo, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("report: read %s: %w", path, err)
	}
	return nil
}

// runDate is the run's start time: run.json's started_at, else the earliest record's
// sent time, else the zero time. Reports use it instead of the wall clock.
func runDate(dir string, records []sweep.Record) time.Time {
	if b, err := os.ReadFile(filepath.Join(dir, sweep.FileRun)); err == nil {
		var meta struct {
			StartedAt time.Time `json:"started_at"`
		}
		if json.Unmarshal(b, &meta) == nil && !meta.StartedAt.IsZero() {
			return meta.StartedAt.UTC()
		}
	}
	var first int64
	for i := range records {
		if s := records[i].SentNs; s > 0 && (first == 0 || s < first) {
			first = s
		}
	}
	if first == 0 {
		return time.Time{}
	}
	return time.Unix(0, first).UTC()
}

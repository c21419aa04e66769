package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/llmcap/llmcap/rundir"
)

// parallelMinBytes is the file size from which JSONL decoding is split across cores.
const parallelMinBytes = 1 << 20

// readRecords reads records.jsonl; a missing file yields no records and no error.
// A malformed line is an error naming the file and line number, except a truncated
// last line (an interrupted run), which is skipped.
func readRecords(path string) ([]rundir.Record, error) {
	return readJSONL[rundir.Record](path)
}

// readMetrics reads server-metrics.jsonl; a missing file yields no samples and no error.
func readMetrics(path string) ([]rundir.MetricSample, error) {
	return readJSONL[rundir.MetricSample](path)
}

// readJSONL decodes every non-empty line of path as a T, in file order, splitting
// large files into one chunk per core (decoding dominates the report's start-up).
func readJSONL[T any](path string) ([]T, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("report: read %s: %w", path, err)
	}
	chunks := splitLines(data, runtime.GOMAXPROCS(0))
	results := make([][]T, len(chunks))
	errs := make([]error, len(chunks))
	var wg sync.WaitGroup
	for i, c := range chunks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = decodeLines[T](c.data, c.firstLine, i == len(chunks)-1)
		}()
	}
	wg.Wait()
	var out []T
	for i := range chunks {
		if errs[i] != nil {
			return nil, fmt.Errorf("report: %s %w", filepath.Base(path), errs[i])
		}
		out = append(out, results[i]...)
	}
	return out, nil
}

// lineChunk is a run of whole lines and the 1-based number of its first line.
type lineChunk struct {
	data      []byte
	firstLine int
}

// splitLines cuts data into at most n chunks at line boundaries.
func splitLines(data []byte, n int) []lineChunk {
	if len(data) < parallelMinBytes || n < 2 {
		return []lineChunk{{data, 1}}
	}
	var out []lineChunk
	line, start := 1, 0
	for k := 1; k <= n && start < len(data); k++ {
		end := len(data)
		if k < n {
			end = max(start, len(data)*k/n)
			if i := bytes.IndexByte(data[end:], '\n'); i >= 0 {
				end += i + 1
			} else {
				end = len(data)
			}
		}
		out = append(out, lineChunk{data[start:end], line})
		line += bytes.Count(data[start:end], []byte{'\n'})
		start = end
	}
	return out
}

// decodeLines decodes each non-empty line; a bad final line of the file is skipped.
func decodeLines[T any](data []byte, firstLine int, isLast bool) ([]T, error) {
	out := make([]T, 0, bytes.Count(data, []byte{'\n'})+1)
	lineNo := firstLine - 1
	for len(data) > 0 {
		lineNo++
		line, rest, _ := bytes.Cut(data, []byte{'\n'})
		data = rest
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var v T
		if err := json.Unmarshal(line, &v); err != nil {
			if isLast && len(bytes.TrimSpace(rest)) == 0 {
				break // a truncated last line of an interrupted run
			}
			return nil, fmt.Errorf("line %d: %w", lineNo, err)
		}
		out = append(out, v)
	}
	return out, nil
}

// runDate is the run's start time: run.json's started_at, else the earliest record's
// sent time, else the zero time. Reports use it instead of the wall clock.
func runDate(dir string, records []rundir.Record) time.Time {
	if b, err := os.ReadFile(filepath.Join(dir, rundir.FileRun)); err == nil {
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

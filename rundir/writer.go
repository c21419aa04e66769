package rundir

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/llmcap/llmcap/redact"
)

// Writer owns a run directory's files: run.json (rewritten atomically),
// records.jsonl and steps.jsonl (appended and fsynced per step) and
// server-metrics.jsonl (appended per scrape, fsynced per step) and drift.jsonl
// (appended and fsynced per repeat of the drift probe). Every line and run.json
// pass through its redactor (SetRedactor) before they reach the disk.
type Writer struct {
	dir     string
	red     *redact.Redactor
	records *os.File
	steps   *os.File
	metrics *os.File
	drift   *os.File   // drift.jsonl, opened by the first AppendDrift
	mu      sync.Mutex // guards metrics and drift
}

// OpenWriter opens (creating) the append-only files of dir.
func OpenWriter(dir string) (*Writer, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create run directory: %w", err)
	}
	w := &Writer{dir: dir}
	var err error
	for _, f := range []struct {
		name string
		dst  **os.File
	}{{FileRecords, &w.records}, {FileSteps, &w.steps}, {FileServerMetrics, &w.metrics}} {
		*f.dst, err = os.OpenFile(filepath.Join(dir, f.name), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			w.Close()
			return nil, fmt.Errorf("open %s: %w", f.name, err)
		}
	}
	return w, nil
}

// SetRedactor makes every later write mask r's secrets (the plan's: plan.Plan.Redactor)
// and the generic shapes of a secret (URL passwords, bearer tokens), which a Writer
// without one masks too. Call it before the writes start.
func (w *Writer) SetRedactor(r *redact.Redactor) { w.red = r }

// Close fsyncs and closes the files.
func (w *Writer) Close() error {
	var first error
	for _, f := range []*os.File{w.records, w.steps, w.metrics, w.drift} {
		if f == nil {
			continue
		}
		if err := f.Sync(); err != nil && first == nil {
			first = err
		}
		if err := f.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// WriteMeta writes run.json atomically (temporary file, fsync, rename).
func (w *Writer) WriteMeta(m *RunMeta) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", FileRun, err)
	}
	return WriteFileAtomic(filepath.Join(w.dir, FileRun), append(w.red.Bytes(b), '\n'))
}

// WriteFileAtomic writes data to path through a temporary file, fsync and rename, so a
// reader sees the old file or the new one, never a torn one.
func WriteFileAtomic(path string, data []byte) error {
	return WriteAtomic(path, writeBytes(data))
}

// AppendRecords appends one JSON line per record and fsyncs.
func (w *Writer) AppendRecords(recs []*Record) error {
	bw := bufio.NewWriterSize(w.records, 1<<16)
	var line bytes.Buffer
	enc := json.NewEncoder(&line)
	for _, r := range recs {
		line.Reset()
		if err := enc.Encode(r); err != nil {
			return fmt.Errorf("write %s: %w", FileRecords, err)
		}
		if _, err := bw.Write(w.red.Bytes(line.Bytes())); err != nil {
			return fmt.Errorf("write %s: %w", FileRecords, err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write %s: %w", FileRecords, err)
	}
	if err := w.records.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", FileRecords, err)
	}
	return nil
}

// AppendStep appends a step summary line and fsyncs; the step is then finished.
func (w *Writer) AppendStep(sum *StepSummary) error {
	b, err := json.Marshal(sum)
	if err != nil {
		return fmt.Errorf("encode step %d: %w", sum.Index+1, err)
	}
	if _, err := w.steps.Write(append(w.red.Bytes(b), '\n')); err != nil {
		return fmt.Errorf("write %s: %w", FileSteps, err)
	}
	if err := w.steps.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", FileSteps, err)
	}
	return nil
}

// AppendMetric appends one scrape as a line (one write call, so lines never interleave).
func (w *Writer) AppendMetric(m *MetricSample) error {
	b, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("encode metric sample: %w", err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, err := w.metrics.Write(append(w.red.Bytes(b), '\n')); err != nil {
		return fmt.Errorf("write %s: %w", FileServerMetrics, err)
	}
	return nil
}

// SyncMetrics fsyncs server-metrics.jsonl.
func (w *Writer) SyncMetrics() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.metrics.Sync()
}

package redact

import (
	"bytes"
	"io"
	"sync"
)

// maxPending bounds the bytes a Writer holds back waiting for the end of a line.
const maxPending = 64 << 10

// Writer redacts a stream line by line (a launched server's output into server.log):
// it passes on each complete line, or maxPending bytes of a longer one, redacted, and
// the rest on Close. It is safe for concurrent use.
type Writer struct {
	r       *Redactor
	w       io.Writer
	mu      sync.Mutex
	pending []byte
}

// NewWriter returns a Writer redacting into w with r.
func NewWriter(w io.Writer, r *Redactor) *Writer { return &Writer{r: r, w: w} }

// Write buffers p and writes out the complete lines; it reports len(p) unless the
// underlying write fails.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.pending = append(w.pending, p...)
	cut := bytes.LastIndexByte(w.pending, '\n') + 1
	if cut == 0 && len(w.pending) >= maxPending {
		cut = len(w.pending)
	}
	if cut == 0 {
		return len(p), nil
	}
	_, err := w.w.Write(w.r.Bytes(w.pending[:cut]))
	w.pending = append(w.pending[:0], w.pending[cut:]...)
	if err != nil {
		return 0, err
	}
	return len(p), nil
}

// Close writes out what is left (a last line without its newline); it does not close
// the underlying writer.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.pending) == 0 {
		return nil
	}
	_, err := w.w.Write(w.r.Bytes(w.pending))
	w.pending = nil
	return err
}

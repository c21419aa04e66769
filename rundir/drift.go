package rundir

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"unicode/utf8"
)

// FileDrift is the output-drift probe's file (plan.Drift, docs/drift.md): one DriftRecord
// per probe request, appended as each repeat of the prompt set ends.
const FileDrift = "drift.jsonl"

// DriftPhase says when a probe request was sent: before the ladder or after it.
type DriftPhase string

// Drift phases (DriftRecord.Phase).
const (
	DriftBefore DriftPhase = "before"
	DriftAfter  DriftPhase = "after"
)

// DriftTextBytes bounds DriftRecord.Text: an output's text is kept up to this many bytes
// (cut at a character boundary), for the reader; its SHA-256 covers the whole text.
const DriftTextBytes = 512

// DriftRecord is one line of drift.jsonl: one probe request, identified by (Phase,
// Repeat, Prompt).
type DriftRecord struct {
	RunID string     `json:"run_id"`
	Phase DriftPhase `json:"phase"`
	// Repeat is the pass over the prompt set within the phase (0-based: before has
	// plan.Drift.Repeats passes, after one).
	Repeat int `json:"repeat"`
	// Prompt is the prompt's 0-based index in the set; PromptSHA256 the SHA-256 (hex)
	// of its text, so runs with different sets are not compared prompt by prompt.
	Prompt       int    `json:"prompt"`
	PromptSHA256 string `json:"prompt_sha256"`
	// SentNs is when the request was sent (unix ns).
	SentNs int64 `json:"sent_ns"`
	// Status is ok or error (Record's statuses); ErrorClass and Error say why a
	// request failed (Record's failure classes, e.g. timeout_idle, http_5xx).
	Status     string `json:"status"`
	ErrorClass string `json:"error_class,omitempty"`
	Error      string `json:"error,omitempty"`
	// FinishReason is the server's (stop, length).
	FinishReason string `json:"finish_reason,omitempty"`
	// SHA256 is the SHA-256 (hex) of the output's exact content text; empty for a
	// failed request.
	SHA256 string `json:"sha256,omitempty"`
	// OutputTokens is the output's token count (the server's usage, else counted).
	OutputTokens int `json:"output_tokens"`
	// TextBytes is the whole text's length in bytes; Text its first DriftTextBytes
	// bytes, TextTruncated set when that is not all of it.
	TextBytes     int    `json:"text_bytes"`
	Text          string `json:"text"`
	TextTruncated bool   `json:"text_truncated,omitempty"`
	// DiffersAt, present when SHA256 differs from the reference's (the first repeat
	// before the ladder, of the same prompt, when it succeeded), is the first
	// character (0-based Unicode code point) where the two texts differ. When both
	// agree as far as the reference was kept (a resumed run keeps only its Text), it
	// is the length of the shorter kept text: they differ there or later.
	DiffersAt *int `json:"differs_at,omitempty"`
}

// Key identifies the record's probe request within the run.
func (r *DriftRecord) Key() DriftKey { return DriftKey{r.Phase, r.Repeat, r.Prompt} }

// OK reports whether the probe request succeeded.
func (r *DriftRecord) OK() bool { return r.Status == StatusOK }

// DriftKey is a probe request's (phase, repeat, prompt index).
type DriftKey struct {
	Phase  DriftPhase
	Repeat int
	Prompt int
}

// SetText sets SHA256-independent text fields from the whole output text: TextBytes,
// Text (at most DriftTextBytes bytes, cut at a character boundary) and TextTruncated.
func (r *DriftRecord) SetText(text string) {
	r.TextBytes = len(text)
	r.Text, r.TextTruncated = text, false
	if len(text) > DriftTextBytes {
		cut := DriftTextBytes
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		r.Text, r.TextTruncated = text[:cut], true
	}
}

// check rejects a line that decodes but is no probe request of a sweep: an unknown
// phase or status, a negative repeat, prompt index or length.
func (r *DriftRecord) check() error {
	switch {
	case r.Phase != DriftBefore && r.Phase != DriftAfter:
		return fmt.Errorf("not a drift record: phase %q (want before or after)", r.Phase)
	case r.Status != StatusOK && r.Status != StatusError:
		return fmt.Errorf("not a drift record: status %q (want ok or error)", r.Status)
	case r.Repeat < 0 || r.Prompt < 0 || r.OutputTokens < 0 || r.TextBytes < 0:
		return errors.New("not a drift record: a negative repeat, prompt, output_tokens or text_bytes")
	}
	return nil
}

// EachDrift calls fn for every probe request of drift.jsonl in file order, under the
// Damage rule (a line that does not decode, or decodes to no probe request, is corrupt;
// a torn last line is dropped). A missing file (a run without the probe) has none: ok
// is then false. An error from fn stops the read and is returned.
func EachDrift(dir string, fn func(*DriftRecord) error) (dmg Damage, ok bool, err error) {
	path := filepath.Join(dir, FileDrift)
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return Damage{File: FileDrift}, false, nil
	}
	dmg, err = eachLine(path, func(line []byte) error {
		var r DriftRecord
		if err := json.Unmarshal(line, &r); err != nil {
			return errDecode{err}
		}
		if err := r.check(); err != nil {
			return errDecode{err}
		}
		return fn(&r)
	})
	return dmg, true, err
}

// ReadDrift returns every probe request of drift.jsonl (see EachDrift), keeping the
// first line of a (phase, repeat, prompt) that appears twice.
func ReadDrift(dir string) ([]DriftRecord, Damage, bool, error) {
	var out []DriftRecord
	seen := map[DriftKey]bool{}
	dmg, ok, err := EachDrift(dir, func(r *DriftRecord) error {
		if !seen[r.Key()] {
			seen[r.Key()] = true
			out = append(out, *r)
		}
		return nil
	})
	return out, dmg, ok, err
}

// AppendDrift appends probe requests to drift.jsonl (created on first use), each line
// through the writer's redactor, and fsyncs.
func (w *Writer) AppendDrift(recs []DriftRecord) error {
	if len(recs) == 0 {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.drift == nil {
		f, err := os.OpenFile(filepath.Join(w.dir, FileDrift), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return fmt.Errorf("open %s: %w", FileDrift, err)
		}
		w.drift = f
	}
	var buf []byte
	for i := range recs {
		b, err := json.Marshal(&recs[i])
		if err != nil {
			return fmt.Errorf("encode %s line: %w", FileDrift, err)
		}
		buf = append(append(buf, w.red.Bytes(b)...), '\n')
	}
	if _, err := w.drift.Write(buf); err != nil {
		return fmt.Errorf("write %s: %w", FileDrift, err)
	}
	if err := w.drift.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", FileDrift, err)
	}
	return nil
}

// repairDrift rewrites drift.jsonl for a resume keeping its complete probe requests: a
// torn last line and lines that are no probe request are dropped (those requests are
// sent again).
func repairDrift(dir string) error {
	return filterJSONL(filepath.Join(dir, FileDrift), func(line []byte) (bool, error) {
		var r DriftRecord
		return json.Unmarshal(line, &r) == nil && r.check() == nil, nil
	})
}

// FirstDiff is the first character (0-based Unicode code point) at which a and b
// differ, or -1 when they are equal; when one is a prefix of the other, the shorter's
// length in characters. DriftRecord.DiffersAt holds it.
func FirstDiff(a, b string) int {
	if a == b {
		return -1
	}
	n := 0
	for a != "" && b != "" {
		ra, sa := utf8.DecodeRuneInString(a)
		rb, sb := utf8.DecodeRuneInString(b)
		if ra != rb || sa != sb {
			return n
		}
		a, b, n = a[sa:], b[sb:], n+1
	}
	return n
}

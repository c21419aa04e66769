package rundir

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
)

// Damage counts the lines of one JSONL file that could not be decoded. The rule, the
// same for every file of a run directory: a complete line that does not decode is
// corrupt — it is skipped, counted, and the first one's line number kept; a last line
// without its newline that does not decode is torn (the writer died mid-line) and is
// dropped. Reading always goes on past either. A records.jsonl line that decodes but is
// no record of this run (no segment, phase or status, e.g. "{}" or "null"; or another
// run's run_id) is corrupt too, and so is one with a value no sweep writes (a negative
// step, latency, token count or time, an unknown phase or status, a latency above
// MaxRecordLatencyMs: Record.impossible).
type Damage struct {
	File         string `json:"file"`                    // base name, e.g. records.jsonl
	Corrupt      int    `json:"corrupt,omitempty"`       // complete lines that did not decode
	FirstCorrupt int    `json:"first_corrupt,omitempty"` // 1-based line number of the first
	FirstError   string `json:"first_error,omitempty"`   // its decode error
	Torn         bool   `json:"torn,omitempty"`          // an undecodable last line without newline
}

// Any reports whether any line was skipped.
func (d Damage) Any() bool { return d.Corrupt > 0 || d.Torn }

// String describes the damage in one sentence ("" when there is none).
func (d Damage) String() string {
	lines := "lines"
	if d.Corrupt == 1 {
		lines = "line"
	}
	switch {
	case d.Corrupt > 0 && d.Torn:
		return fmt.Sprintf("%s: %d corrupt %s skipped (first: line %d, %s) and a torn last line dropped",
			d.File, d.Corrupt, lines, d.FirstCorrupt, d.FirstError)
	case d.Corrupt > 0:
		return fmt.Sprintf("%s: %d corrupt %s skipped (first: line %d, %s)", d.File, d.Corrupt, lines, d.FirstCorrupt, d.FirstError)
	case d.Torn:
		return fmt.Sprintf("%s: a torn last line (no newline, not valid JSON) was dropped", d.File)
	}
	return ""
}

// note records a line that did not decode; last marks the file's final, newline-less line.
func (d *Damage) note(lineNo int, last bool, err error) {
	if last {
		d.Torn = true
		return
	}
	if d.Corrupt == 0 {
		d.FirstCorrupt, d.FirstError = lineNo, err.Error()
	}
	d.Corrupt++
}

// merge adds e's counts (e's lines come after d's).
func (d *Damage) merge(e Damage) {
	if e.Corrupt > 0 && d.Corrupt == 0 {
		d.FirstCorrupt, d.FirstError = e.FirstCorrupt, e.FirstError
	}
	d.Corrupt += e.Corrupt
	d.Torn = d.Torn || e.Torn
}

// ReadMeta reads run.json. Errors: the file is missing or is not a RunMeta.
func ReadMeta(dir string) (*RunMeta, error) {
	b, err := os.ReadFile(filepath.Join(dir, FileRun))
	if err != nil {
		return nil, fmt.Errorf("read run meta: %w", err)
	}
	var m RunMeta
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("parse %s: %w", filepath.Join(dir, FileRun), err)
	}
	return &m, nil
}

// ReadSteps reads steps.jsonl (a missing file has no steps) under the Damage rule; a
// step index that appears twice keeps its last summary.
func ReadSteps(dir string) ([]StepSummary, Damage, error) {
	var out []StepSummary
	at := map[int]int{}
	dmg, err := eachLine(filepath.Join(dir, FileSteps), func(line []byte) error {
		var s StepSummary
		if err := json.Unmarshal(line, &s); err != nil {
			return err
		}
		if i, dup := at[s.Index]; dup {
			out[i] = s
			return nil
		}
		at[s.Index] = len(out)
		out = append(out, s)
		return nil
	})
	return out, dmg, err
}

// EachMetric calls fn for every scrape in server-metrics.jsonl, in file order, under the
// Damage rule (a missing file has none). An error from fn stops the read and is returned.
func EachMetric(dir string, fn func(*MetricSample) error) (Damage, error) {
	return eachLine(filepath.Join(dir, FileServerMetrics), func(line []byte) error {
		var m MetricSample
		if err := json.Unmarshal(line, &m); err != nil {
			return errDecode{err}
		}
		return fn(&m)
	})
}

// ReadMetrics returns every scrape of server-metrics.jsonl (see EachMetric).
func ReadMetrics(dir string) ([]MetricSample, Damage, error) {
	var out []MetricSample
	dmg, err := EachMetric(dir, func(m *MetricSample) error { out = append(out, *m); return nil })
	return out, dmg, err
}

// errDecode marks a line's decode error (a Damage), as opposed to the callback's own.
type errDecode struct{ err error }

func (e errDecode) Error() string { return e.err.Error() }

// eachLine calls fn for every non-blank line of the optional file at path, applying the
// Damage rule to lines whose fn returns an error (an errDecode from fn's own decoding, or
// a plain error from a json.Unmarshal in fn: both count as damage). A missing file is
// not an error.
func eachLine(path string, fn func(line []byte) error) (Damage, error) {
	dmg := Damage{File: filepath.Base(path)}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return dmg, nil
	}
	if err != nil {
		return dmg, fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<20)
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		last := err == io.EOF
		if err != nil && !last {
			return dmg, fmt.Errorf("read %s: %w", path, err)
		}
		if t := bytes.TrimSpace(line); len(t) > 0 {
			if ferr := fn(t); ferr != nil {
				var de errDecode
				var se *json.SyntaxError
				var te *json.UnmarshalTypeError
				if !errors.As(ferr, &de) && !errors.As(ferr, &se) && !errors.As(ferr, &te) {
					return dmg, ferr
				}
				dmg.note(n, last, ferr)
			}
		}
		if last {
			return dmg, nil
		}
	}
}

// recordChunkBytes is the size of the blocks of records.jsonl decoded in parallel.
const recordChunkBytes = 1 << 20

// chunk is a block of whole lines of records.jsonl, numbered in file order; first is
// the 1-based line number of its first line and final marks the file's last block.
type chunk struct {
	seq, first int
	data       []byte
	final      bool
}

// decoded is a chunk's records and its damage.
type decoded struct {
	seq  int
	recs []Record
	dmg  Damage
}

// EachRecord calls fn for every record of records.jsonl in file order, under the Damage
// rule. The file is read in blocks decoded by one worker per CPU, so memory stays bounded
// (a few blocks per worker) however large the run: a 1M-record run is never held whole
// by the reader. fn may keep the *Record (each is its own). An error from fn stops the
// read and is returned. Errors: records.jsonl is missing or unreadable.
func EachRecord(dir string, fn func(*Record) error) (Damage, error) {
	path := filepath.Join(dir, FileRecords)
	dmg := Damage{File: FileRecords}
	runID := ""
	if m, err := ReadMeta(dir); err == nil {
		runID = m.RunID
	}
	f, err := os.Open(path)
	if err != nil {
		return dmg, err // *fs.PathError: names the file
	}
	defer f.Close()
	workers := max(runtime.GOMAXPROCS(0), 1)
	chunks := make(chan chunk, workers)
	out := make(chan decoded, 2*workers)
	stop := make(chan struct{})
	var readErr error
	go func() {
		defer close(chunks)
		readErr = splitChunks(f, chunks, stop)
	}()
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d := newDecoder()
			d.runID = runID
			for c := range chunks {
				dc := d.chunk(c)
				putChunkBuf(c.data) // the records hold copies, never the block's bytes
				select {
				case out <- dc:
				case <-stop:
				}
			}
		}()
	}
	go func() { wg.Wait(); close(out) }()
	pending := map[int]decoded{}
	next := 0
	var fnErr error
	for dc := range out {
		if fnErr != nil {
			continue // drain
		}
		pending[dc.seq] = dc
		for {
			p, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			dmg.merge(p.dmg)
			for i := range p.recs {
				if fnErr = fn(&p.recs[i]); fnErr != nil {
					close(stop)
					break
				}
			}
			next++
			if fnErr != nil {
				break
			}
		}
	}
	if fnErr != nil {
		return dmg, fnErr
	}
	if readErr != nil {
		return dmg, fmt.Errorf("read %s: %w", path, readErr)
	}
	return dmg, nil
}

// ReadRecords returns every record of records.jsonl (see EachRecord). Prefer
// EachRecord for large runs.
func ReadRecords(dir string) ([]Record, Damage, error) {
	var out []Record
	dmg, err := EachRecord(dir, func(r *Record) error { out = append(out, *r); return nil })
	return out, dmg, err
}

// splitChunks reads rd into blocks that end at a newline (the last block may not).
func splitChunks(rd io.Reader, out chan<- chunk, stop <-chan struct{}) error {
	var carry []byte
	line := 1
	send := func(c chunk) bool {
		select {
		case out <- c:
			return true
		case <-stop:
			return false
		}
	}
	for seq := 0; ; seq++ {
		need := len(carry) + recordChunkBytes
		buf := getChunkBuf(need)[:len(carry)]
		copy(buf, carry)
		n, err := io.ReadFull(rd, buf[len(carry):need])
		buf = buf[:len(carry)+n]
		eof := errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
		if err != nil && !eof {
			return err
		}
		if eof {
			if len(buf) > 0 {
				send(chunk{seq: seq, first: line, data: buf, final: true})
			}
			return nil
		}
		cut := bytes.LastIndexByte(buf, '\n')
		if cut < 0 { // one line longer than a block: keep reading
			carry = buf
			seq--
			continue
		}
		carry = append([]byte(nil), buf[cut+1:]...)
		c := chunk{seq: seq, first: line, data: buf[:cut+1]}
		line += bytes.Count(c.data, []byte{'\n'})
		if !send(c) {
			return nil
		}
	}
}

// chunkBufs recycles the blocks' buffers once decoded, so reading a large file does
// not allocate (and zero) a fresh megabyte per block.
var chunkBufs sync.Pool

// getChunkBuf returns a buffer of at least need bytes capacity (from chunkBufs when one
// is big enough).
func getChunkBuf(need int) []byte {
	if p, ok := chunkBufs.Get().(*[]byte); ok && cap(*p) >= need {
		return (*p)[:need]
	}
	return make([]byte, need)
}

// putChunkBuf gives b back to chunkBufs.
func putChunkBuf(b []byte) { chunkBufs.Put(&b) }

// chunk decodes every line of a block.
func (d *decoder) chunk(c chunk) decoded {
	dc := decoded{seq: c.seq, recs: make([]Record, 0, len(c.data)/400+1), dmg: Damage{File: FileRecords}}
	data := c.data
	for n := c.first; len(data) > 0; n++ {
		i := bytes.IndexByte(data, '\n')
		line, last := data, false
		if i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data, last = nil, c.final
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		dc.recs = append(dc.recs, Record{})
		if err := d.record(line, &dc.recs[len(dc.recs)-1]); err != nil {
			dc.recs = dc.recs[:len(dc.recs)-1]
			dc.dmg.note(n, last, err)
		}
	}
	return dc
}

// record decodes one line into r and checks that it is a record of this run: it names
// its segment, phase and status, its run_id (when set) is the run's, and no value is
// impossible (Record.impossible).
func (d *decoder) record(line []byte, r *Record) error {
	if err := d.decode(line, r); err != nil {
		return err
	}
	switch {
	case r.Segment == "":
		return errors.New("not a record: no segment")
	case r.Phase == "":
		return errors.New("not a record: no phase")
	case r.Status == "":
		return errors.New("not a record: no status")
	case d.runID != "" && r.RunID != "" && r.RunID != d.runID:
		return fmt.Errorf("a record of run %q, not of this run %q", r.RunID, d.runID)
	}
	return r.impossible()
}

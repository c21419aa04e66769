package rundir

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
)

// decoder decodes records.jsonl lines into Records. Its fast path understands the flat
// shape the sweep writes (strings without escapes, numbers, null, the icl_ms array) and
// falls back to encoding/json for anything else, so both give the same Record. Low-
// cardinality strings (segment, phase, status, error class, ...) are interned, and the
// latency pointers point into shared slabs, so a record costs few allocations.
type decoder struct {
	runID  string // the run's id (run.json), "" when unknown
	names  map[string]string
	recent [256]string // intern's cache of recent names
	slab   []float64   // the current slab of latency values; pointers into it stay valid
}

func newDecoder() *decoder { return &decoder{names: map[string]string{}} }

// slabSize is the number of latency values per slab.
const slabSize = 4096

// float returns a pointer to a fresh copy of v from the slab.
func (d *decoder) float(v float64) *float64 {
	if len(d.slab) == cap(d.slab) {
		d.slab = make([]float64, 0, slabSize)
	}
	d.slab = append(d.slab, v)
	return &d.slab[len(d.slab)-1]
}

// intern returns b as a string, shared with every earlier equal string. A direct-
// mapped cache (by length and end bytes) answers the common case, a value repeated
// from an earlier line, with one comparison instead of a map lookup.
func (d *decoder) intern(b []byte) string {
	slot := 0
	if len(b) > 0 {
		slot = (len(b)*31 + int(b[0])*7 + int(b[len(b)-1])) & (len(d.recent) - 1)
		if s := d.recent[slot]; s == string(b) {
			return s
		}
	}
	s, ok := d.names[string(b)]
	if !ok {
		s = string(b)
		if len(d.names) < 1<<16 {
			d.names[s] = s
		}
	}
	d.recent[slot] = s
	return s
}

var errSyntax = errors.New("malformed JSON record")

// decode parses one line into r (fast path, then encoding/json).
func (d *decoder) decode(line []byte, r *Record) error {
	if d.scan(line, r) == nil {
		return nil
	}
	*r = Record{}
	return json.Unmarshal(line, r)
}

// scan is the fast path: it parses one flat JSON object into r, or fails.
func (d *decoder) scan(b []byte, r *Record) error {
	*r = Record{}
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return errSyntax
	}
	i++
	for {
		i = skipWS(b, i)
		if i >= len(b) {
			return errSyntax
		}
		if b[i] == '}' {
			if skipWS(b, i+1) != len(b) {
				return errSyntax // trailing bytes: let encoding/json judge the line
			}
			return nil
		}
		if b[i] == ',' {
			i++
			continue
		}
		key, j, err := scanString(b, i)
		if err != nil {
			return err
		}
		i = skipWS(b, j)
		if i >= len(b) || b[i] != ':' {
			return errSyntax
		}
		i = skipWS(b, i+1)
		j, err = d.field(r, key, b, i)
		if err != nil {
			return fmt.Errorf("field %q: %w", key, err)
		}
		i = j
	}
}

// field stores the value at b[i:] under key and returns the index after the value.
func (d *decoder) field(r *Record, key, b []byte, i int) (int, error) {
	if i >= len(b) {
		return i, errSyntax // a torn line
	}
	switch string(key) {
	case "run_id":
		return d.str(b, i, &r.RunID, true)
	case "segment":
		return d.str(b, i, &r.Segment, true)
	case "step_segment":
		return d.str(b, i, &r.StepSegment, true)
	case "schedule":
		return d.str(b, i, &r.Schedule, true)
	case "phase":
		return d.str(b, i, &r.Phase, true)
	case "request_id":
		return d.str(b, i, &r.RequestID, false)
	case "session_id":
		return d.str(b, i, &r.SessionID, false)
	case "tokens_source":
		return d.str(b, i, &r.TokensSource, true)
	case "finish_reason":
		return d.str(b, i, &r.FinishReason, true)
	case "status":
		return d.str(b, i, &r.Status, true)
	case "error_class":
		return d.str(b, i, &r.ErrorClass, true)
	case "error":
		return d.str(b, i, &r.Error, false)
	case "output_hash":
		return d.str(b, i, &r.OutputHash, false)
	case "step":
		return intInto(b, i, &r.Step)
	case "concurrency":
		return intInto(b, i, &r.Concurrency)
	case "users":
		return intInto(b, i, &r.Users)
	case "turn":
		return intInto(b, i, &r.Turn)
	case "intended_prompt_tokens":
		return intInto(b, i, &r.IntendedPromptTokens)
	case "intended_output_tokens":
		return intInto(b, i, &r.IntendedOutputTokens)
	case "prompt_tokens":
		return intInto(b, i, &r.PromptTokens)
	case "output_tokens":
		return intInto(b, i, &r.OutputTokens)
	case "reasoning_tokens":
		return intInto(b, i, &r.ReasoningTokens)
	case "chunks":
		return intInto(b, i, &r.Chunks)
	case "http_status":
		return intInto(b, i, &r.HTTPStatus)
	case "scheduled_ns":
		return intField(b, i, &r.ScheduledNs)
	case "sent_ns":
		return intField(b, i, &r.SentNs)
	case "retry_after_ms":
		return intField(b, i, &r.RetryAfterMs)
	case "first_token_ns":
		return intField(b, i, &r.FirstTokenNs)
	case "end_ns":
		return intField(b, i, &r.EndNs)
	case "rate":
		return floatField(b, i, &r.Rate, 0)
	case "ttft_ms":
		return d.latency(b, i, &r.TTFTMs)
	case "ttfo_ms":
		return d.latency(b, i, &r.TTFOMs)
	case "itl_ms":
		return d.latency(b, i, &r.ITLMs)
	case "e2e_ms":
		return d.latency(b, i, &r.E2EMs)
	case "schedule_lag_ms":
		return d.latency(b, i, &r.ScheduleLagMs)
	case "read_lag_ms":
		return d.latency(b, i, &r.ReadLagMs)
	case "waited_ms":
		return d.latency(b, i, &r.WaitedMs)
	case "icl_ms":
		return iclField(b, i, &r.ICLMs)
	}
	return skipValue(b, i)
}

// str reads a string (or null, as "") into dst, interned when asked.
func (d *decoder) str(b []byte, i int, dst *string, intern bool) (int, error) {
	if isNull(b, i) {
		*dst = ""
		return i + 4, nil
	}
	s, j, err := scanString(b, i)
	if err != nil {
		return j, err
	}
	if intern {
		*dst = d.intern(s)
	} else {
		*dst = string(s)
	}
	return j, nil
}

// latency reads a number (or null, as nil) into a slab pointer.
func (d *decoder) latency(b []byte, i int, dst **float64) (int, error) {
	if isNull(b, i) {
		*dst = nil
		return i + 4, nil
	}
	var f float64
	j, err := floatField(b, i, &f, 0)
	if err != nil {
		return j, err
	}
	*dst = d.float(f)
	return j, nil
}

func intInto(b []byte, i int, dst *int) (int, error) {
	var v int64
	j, err := intField(b, i, &v)
	*dst = int(v)
	return j, err
}

func iclField(b []byte, i int, dst *[]float64) (int, error) {
	if isNull(b, i) {
		*dst = nil
		return i + 4, nil
	}
	if b[i] != '[' {
		return i, errSyntax
	}
	i++
	out := []float64{}
	for {
		i = skipWS(b, i)
		if i >= len(b) {
			return i, errSyntax
		}
		switch b[i] {
		case ']':
			*dst = out
			return i + 1, nil
		case ',':
			i++
			continue
		}
		var f float64
		j, err := floatField(b, i, &f, 0)
		if err != nil {
			return j, err
		}
		out = append(out, f)
		i = j
	}
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// scanString reads a JSON string without escapes at b[i]; escaped strings are errors
// (the caller falls back to encoding/json).
func scanString(b []byte, i int) ([]byte, int, error) {
	if i >= len(b) || b[i] != '"' {
		return nil, i, errSyntax
	}
	// One pass for the closing quote and a backslash: the keys and values of a record
	// are short, where two bytes.IndexByte calls cost more than the bytes they scan.
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '"':
			return b[i+1 : j], j + 1, nil
		case '\\':
			return nil, i, errSyntax
		}
	}
	return nil, i, errSyntax
}

func isNull(b []byte, i int) bool { return bytes.HasPrefix(b[i:], []byte("null")) }

func strField(b []byte, i int, dst *[]byte) (int, error) {
	if isNull(b, i) {
		*dst = nil
		return i + 4, nil
	}
	s, j, err := scanString(b, i)
	*dst = s
	return j, err
}

func numberEnd(b []byte, i int) int {
	for i < len(b) {
		c := b[i]
		if (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' {
			i++
			continue
		}
		break
	}
	return i
}

func intField(b []byte, i int, dst *int64) (int, error) {
	if isNull(b, i) {
		*dst = 0
		return i + 4, nil
	}
	j := numberEnd(b, i)
	num := b[i:j]
	neg := len(num) > 0 && num[0] == '-'
	if neg {
		num = num[1:]
	}
	if len(num) == 0 || len(num) > 19 { // 19 digits: unix nanoseconds
		return floatAsInt(b, i, j, dst)
	}
	var v uint64 // 19 decimal digits always fit
	for _, c := range num {
		if c < '0' || c > '9' {
			return floatAsInt(b, i, j, dst)
		}
		v = v*10 + uint64(c-'0')
	}
	switch {
	case v <= math.MaxInt64 && neg:
		*dst = -int64(v)
	case v <= math.MaxInt64:
		*dst = int64(v)
	default:
		return floatAsInt(b, i, j, dst)
	}
	return j, nil
}

func floatAsInt(b []byte, i, j int, dst *int64) (int, error) {
	f, err := strconv.ParseFloat(string(b[i:j]), 64)
	if err != nil {
		return j, errSyntax
	}
	*dst = int64(f)
	return j, nil
}

// floatField reads a number into dst (null gives ifNull).
func floatField(b []byte, i int, dst *float64, ifNull float64) (int, error) {
	if isNull(b, i) {
		*dst = ifNull
		return i + 4, nil
	}
	j := numberEnd(b, i)
	if f, ok := fastFloat(b[i:j]); ok {
		*dst = f
		return j, nil
	}
	f, err := strconv.ParseFloat(string(b[i:j]), 64)
	if err != nil {
		return j, errSyntax
	}
	*dst = f
	return j, nil
}

// pow10 are the exactly representable powers of ten used by fastFloat.
var pow10 = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// fastFloat parses a plain decimal ("-12.345") exactly when its digits fit in 2^53 and
// it has at most 22 fraction digits (Clinger's fast path: one correctly rounded
// division); ok is false otherwise (exponents, long mantissas) and the caller falls
// back to strconv.
func fastFloat(b []byte) (float64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 {
		return 0, false
	}
	var mant uint64
	digits, frac, dot := 0, 0, false
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			mant = mant*10 + uint64(c-'0')
			digits++
			if dot {
				frac++
			}
		case c == '.' && !dot:
			dot = true
		default:
			return 0, false
		}
	}
	if digits == 0 || digits > 15 || frac >= len(pow10) {
		return 0, false
	}
	f := float64(mant) / pow10[frac]
	if neg {
		f = -f
	}
	return f, true
}

// skipValue skips any JSON value at b[i] (strings may contain escapes here).
func skipValue(b []byte, i int) (int, error) {
	depth := 0
	for i < len(b) {
		switch c := b[i]; c {
		case '"':
			j := i + 1
			for j < len(b) && b[j] != '"' {
				if b[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(b) {
				return j, errSyntax
			}
			i = j + 1
			if depth == 0 {
				return i, nil
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return i, nil
			}
			depth--
			if depth == 0 {
				return i + 1, nil
			}
		case ',':
			if depth == 0 {
				return i, nil
			}
		}
		i++
	}
	return i, nil
}

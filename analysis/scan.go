package analysis

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
)

// rawRecord is the subset of a records.jsonl line the analysis needs. String fields
// alias the line's bytes and are valid only until the next line is read. Latencies are
// NaN when null or absent.
type rawRecord struct {
	segment, stepSegment, schedule, phase, status, errorClass []byte
	errorMsg                                                  []byte
	step, concurrency                                         int64
	rate                                                      float64
	sentNs, firstNs, endNs                                    int64
	ttft, ttfo, itl, e2e                                      float64
	lag                                                       float64 // schedule lag, ms
	intendedPrompt, intendedOutput, prompt, output            int64
	icl                                                       []float64
}

func (r *rawRecord) reset() {
	icl := r.icl[:0]
	*r = rawRecord{ttft: math.NaN(), ttfo: math.NaN(), itl: math.NaN(), e2e: math.NaN(), lag: math.NaN(), icl: icl}
}

var errSyntax = errors.New("malformed JSON record")

// scanRecord parses one flat JSON object (a records.jsonl line) into r. It is a fast
// path: it understands the flat shape sweep writes; anything it cannot parse returns an
// error so the caller can fall back to encoding/json.
func scanRecord(b []byte, r *rawRecord) error {
	r.reset()
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
		j, err = r.field(key, b, i)
		if err != nil {
			return fmt.Errorf("field %q: %w", key, err)
		}
		i = j
	}
}

// field stores the value at b[i:] under key and returns the index after the value.
func (r *rawRecord) field(key, b []byte, i int) (int, error) {
	if i >= len(b) {
		return i, errSyntax // a torn line
	}
	switch string(key) {
	case "segment":
		return strField(b, i, &r.segment)
	case "step_segment":
		return strField(b, i, &r.stepSegment)
	case "schedule":
		return strField(b, i, &r.schedule)
	case "phase":
		return strField(b, i, &r.phase)
	case "status":
		return strField(b, i, &r.status)
	case "error_class":
		return strField(b, i, &r.errorClass)
	case "error":
		return strField(b, i, &r.errorMsg)
	case "step":
		return intField(b, i, &r.step)
	case "concurrency":
		return intField(b, i, &r.concurrency)
	case "sent_ns":
		return intField(b, i, &r.sentNs)
	case "first_token_ns":
		return intField(b, i, &r.firstNs)
	case "end_ns":
		return intField(b, i, &r.endNs)
	case "intended_prompt_tokens":
		return intField(b, i, &r.intendedPrompt)
	case "intended_output_tokens":
		return intField(b, i, &r.intendedOutput)
	case "prompt_tokens":
		return intField(b, i, &r.prompt)
	case "output_tokens":
		return intField(b, i, &r.output)
	case "rate":
		return floatField(b, i, &r.rate)
	case "ttft_ms":
		return floatField(b, i, &r.ttft)
	case "ttfo_ms":
		return floatField(b, i, &r.ttfo)
	case "itl_ms":
		return floatField(b, i, &r.itl)
	case "e2e_ms":
		return floatField(b, i, &r.e2e)
	case "schedule_lag_ms":
		return floatField(b, i, &r.lag)
	case "icl_ms":
		return r.iclField(b, i)
	}
	return skipValue(b, i)
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
	end := bytes.IndexByte(b[i+1:], '"')
	if end < 0 {
		return nil, i, errSyntax
	}
	s := b[i+1 : i+1+end]
	if bytes.IndexByte(s, '\\') >= 0 {
		return nil, i, errSyntax
	}
	return s, i + end + 2, nil
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

func floatField(b []byte, i int, dst *float64) (int, error) {
	if isNull(b, i) {
		*dst = math.NaN()
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

func (r *rawRecord) iclField(b []byte, i int) (int, error) {
	if isNull(b, i) {
		return i + 4, nil
	}
	if b[i] != '[' {
		return i, errSyntax
	}
	i++
	for {
		i = skipWS(b, i)
		if i >= len(b) {
			return i, errSyntax
		}
		switch b[i] {
		case ']':
			return i + 1, nil
		case ',':
			i++
			continue
		}
		var f float64
		j, err := floatField(b, i, &f)
		if err != nil {
			return j, err
		}
		r.icl = append(r.icl, f)
		i = j
	}
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

// jsonRecord is the encoding/json fallback shape of a record line.
type jsonRecord struct {
	Segment              string    `json:"segment"`
	StepSegment          string    `json:"step_segment"`
	Step                 int64     `json:"step"`
	Schedule             string    `json:"schedule"`
	Concurrency          int64     `json:"concurrency"`
	Rate                 float64   `json:"rate"`
	Phase                string    `json:"phase"`
	SentNs               int64     `json:"sent_ns"`
	FirstTokenNs         int64     `json:"first_token_ns"`
	EndNs                int64     `json:"end_ns"`
	TTFTMs               *float64  `json:"ttft_ms"`
	TTFOMs               *float64  `json:"ttfo_ms"`
	ITLMs                *float64  `json:"itl_ms"`
	E2EMs                *float64  `json:"e2e_ms"`
	ScheduleLagMs        *float64  `json:"schedule_lag_ms"`
	ICLMs                []float64 `json:"icl_ms"`
	IntendedPromptTokens int64     `json:"intended_prompt_tokens"`
	IntendedOutputTokens int64     `json:"intended_output_tokens"`
	PromptTokens         int64     `json:"prompt_tokens"`
	OutputTokens         int64     `json:"output_tokens"`
	Status               string    `json:"status"`
	ErrorClass           string    `json:"error_class"`
	Error                string    `json:"error"`
}

// decodeRecordSlow parses a line with encoding/json (escaped strings, odd shapes).
func decodeRecordSlow(b []byte, r *rawRecord) error {
	var j jsonRecord
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	r.reset()
	r.segment, r.stepSegment, r.schedule = []byte(j.Segment), []byte(j.StepSegment), []byte(j.Schedule)
	r.phase, r.status, r.errorClass = []byte(j.Phase), []byte(j.Status), []byte(j.ErrorClass)
	r.errorMsg = []byte(j.Error)
	r.step, r.concurrency, r.rate = j.Step, j.Concurrency, j.Rate
	r.sentNs, r.firstNs, r.endNs = j.SentNs, j.FirstTokenNs, j.EndNs
	r.ttft, r.ttfo, r.itl, r.e2e = orNaN(j.TTFTMs), orNaN(j.TTFOMs), orNaN(j.ITLMs), orNaN(j.E2EMs)
	r.lag = orNaN(j.ScheduleLagMs)
	r.icl = append(r.icl, j.ICLMs...)
	r.intendedPrompt, r.intendedOutput = j.IntendedPromptTokens, j.IntendedOutputTokens
	r.prompt, r.output = j.PromptTokens, j.OutputTokens
	return nil
}

func orNaN(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

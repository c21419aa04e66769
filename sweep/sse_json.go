package sweep

import (
	"bytes"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// The low-level JSON scanning under chunkDecoder: whitespace, members, elements,
// strings (with escapes decoded as encoding/json does), integers and skipped values.

// ws skips JSON whitespace.
func (d *chunkDecoder) ws() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// open consumes the opening bracket c.
func (d *chunkDecoder) open(c byte) error {
	d.ws()
	if d.i >= len(d.b) || d.b[d.i] != c {
		return errJSON
	}
	d.i++
	return nil
}

// null consumes a JSON null if one is next.
func (d *chunkDecoder) null() bool {
	d.ws()
	if bytes.HasPrefix(d.b[d.i:], []byte("null")) {
		d.i += 4
		return true
	}
	return false
}

// member advances to the next object member, returning its key (valid until the next
// call) positioned at its value; ok is false at the closing brace.
func (d *chunkDecoder) member(first bool) (key []byte, ok bool, err error) {
	d.ws()
	if d.i >= len(d.b) {
		return nil, false, errJSON
	}
	if d.b[d.i] == '}' {
		d.i++
		return nil, false, nil
	}
	if !first {
		if d.b[d.i] != ',' {
			return nil, false, errJSON
		}
		d.i++
		d.ws()
	}
	if d.i >= len(d.b) || d.b[d.i] != '"' {
		return nil, false, errJSON
	}
	raw, esc, err := d.rawString()
	if err != nil {
		return nil, false, err
	}
	key = raw
	if esc {
		if d.key, err = unescape(d.key[:0], raw); err != nil {
			return nil, false, err
		}
		key = d.key
	}
	d.ws()
	if d.i >= len(d.b) || d.b[d.i] != ':' {
		return nil, false, errJSON
	}
	d.i++
	d.ws()
	return key, true, nil
}

// elem advances to the next array element; ok is false at the closing bracket.
func (d *chunkDecoder) elem(first bool) (ok bool, err error) {
	d.ws()
	if d.i >= len(d.b) {
		return false, errJSON
	}
	if d.b[d.i] == ']' {
		d.i++
		return false, nil
	}
	if !first {
		if d.b[d.i] != ',' {
			return false, errJSON
		}
		d.i++
	}
	d.ws()
	return true, nil
}

// rawString consumes a string at d.i, returning its bytes between the quotes and
// whether it contains escapes.
func (d *chunkDecoder) rawString() (raw []byte, esc bool, err error) {
	if d.bigNext < len(d.bigs) && d.bigs[d.bigNext].at == d.i {
		d.lastBig = &d.bigs[d.bigNext]
		d.bigNext++
	}
	start := d.i + 1
	for j := start; j < len(d.b); j++ {
		switch d.b[j] {
		case '"':
			d.i = j + 1
			return d.b[start:j], esc, nil
		case '\\':
			esc = true
			j++
		}
	}
	return nil, false, errJSON
}

// str appends the decoded string at d.i to dst.
func (d *chunkDecoder) str(dst []byte) ([]byte, error) {
	raw, esc, err := d.rawString()
	if err != nil {
		return dst, err
	}
	if !esc {
		return append(dst, raw...), nil
	}
	return unescape(dst, raw)
}

// optString appends a string value to dst; null and non-string scalars append nothing.
func (d *chunkDecoder) optString(dst []byte) ([]byte, error) {
	d.ws()
	if d.i < len(d.b) && d.b[d.i] == '"' {
		return d.str(dst)
	}
	return dst, d.skip()
}

// stringLen returns the raw length of a string value (0 for null or non-strings); an
// escaped string's raw length is non-zero exactly when its decoded length is.
func (d *chunkDecoder) stringLen() (int, error) {
	d.ws()
	if d.i < len(d.b) && d.b[d.i] == '"' {
		raw, _, err := d.rawString()
		return len(raw), err
	}
	return 0, d.skip()
}

// number reads an integer (a JSON number with a fraction or exponent is truncated;
// null is 0).
func (d *chunkDecoder) number() (int, error) {
	d.ws()
	start := d.i
	if err := d.skip(); err != nil {
		return 0, err
	}
	raw := d.b[start:d.i]
	n, neg, k := 0, false, 0
	if len(raw) > 0 && raw[0] == '-' {
		neg, k = true, 1
	}
	for ; k < len(raw) && raw[k] >= '0' && raw[k] <= '9' && int64(n) < 1<<50; k++ {
		n = n*10 + int(raw[k]-'0')
	}
	if k < len(raw) {
		if string(raw) == "null" {
			return 0, nil
		}
		f, err := strconv.ParseFloat(string(raw), 64)
		if err != nil || f > 1<<50 || f < -(1<<50) {
			return 0, errJSON
		}
		return int(f), nil
	}
	if neg {
		n = -n
	}
	return n, nil
}

// skip consumes one JSON value of any kind.
func (d *chunkDecoder) skip() error {
	d.ws()
	if d.i >= len(d.b) {
		return errJSON
	}
	switch d.b[d.i] {
	case '"':
		_, _, err := d.rawString()
		return err
	case '{', '[':
		return d.skipNested()
	}
	start := d.i
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r', ':', '"', '{', '[':
			if d.i == start {
				return errJSON
			}
			return nil
		}
		d.i++
	}
	if d.i == start {
		return errJSON
	}
	return nil
}

// skipNested consumes an object or array by bracket matching, skipping strings.
func (d *chunkDecoder) skipNested() error {
	depth := 0
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case '"':
			if _, _, err := d.rawString(); err != nil {
				return err
			}
			continue
		case '{', '[':
			depth++
			if depth > maxDepth {
				return errJSON
			}
		case '}', ']':
			depth--
			if depth == 0 {
				d.i++
				return nil
			}
		}
		d.i++
	}
	return errJSON
}

// unescape appends the JSON string body raw, with escapes decoded, to dst. Lone or
// invalid surrogates become U+FFFD, as encoding/json does.
func unescape(dst, raw []byte) ([]byte, error) {
	for i := 0; i < len(raw); {
		c := raw[i]
		if c != '\\' {
			j := bytes.IndexByte(raw[i:], '\\')
			if j < 0 {
				return append(dst, raw[i:]...), nil
			}
			dst = append(dst, raw[i:i+j]...)
			i += j
			continue
		}
		if i+1 >= len(raw) {
			return dst, errJSON
		}
		switch e := raw[i+1]; e {
		case '"', '\\', '/':
			dst = append(dst, e)
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r, n := decodeU(raw[i:])
			if n == 0 {
				return dst, errJSON
			}
			dst = utf8.AppendRune(dst, r)
			i += n
			continue
		default:
			return dst, errJSON
		}
		i += 2
	}
	return dst, nil
}

// decodeU decodes a \uXXXX escape (or a surrogate pair of them) at the start of s,
// returning the rune and the bytes consumed (0 when malformed).
func decodeU(s []byte) (rune, int) {
	r1 := hex4(s[2:])
	if r1 < 0 {
		return 0, 0
	}
	if !utf16.IsSurrogate(rune(r1)) {
		return rune(r1), 6
	}
	if len(s) >= 12 && s[6] == '\\' && s[7] == 'u' {
		if r2 := hex4(s[8:]); r2 >= 0 {
			if r := utf16.DecodeRune(rune(r1), rune(r2)); r != utf8.RuneError {
				return r, 12
			}
		}
	}
	return utf8.RuneError, 6
}

func hex4(s []byte) int {
	if len(s) < 4 {
		return -1
	}
	v := 0
	for _, c := range s[:4] {
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | int(c-'0')
		case c >= 'a' && c <= 'f':
			v = v<<4 | int(c-'a'+10)
		case c >= 'A' && c <= 'F':
			v = v<<4 | int(c-'A'+10)
		default:
			return -1
		}
	}
	return v
}

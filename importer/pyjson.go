package importer

import "bytes"

// pythonNumbers are the non-standard number tokens Python's json module writes.
var pythonNumbers = [][]byte{[]byte("-Infinity"), []byte("Infinity"), []byte("NaN")}

// pythonJSON returns b with the number tokens Python's json module writes and JSON
// does not allow (NaN, Infinity, -Infinity, e.g. after --burstiness inf) replaced by
// null outside strings, so that encoding/json reads the rest; an array entry that was
// one reads as null and is refused where it matters. b itself is not changed.
func pythonJSON(b []byte) []byte {
	if !bytes.Contains(b, []byte("NaN")) && !bytes.Contains(b, []byte("Infinity")) {
		return b
	}
	out := make([]byte, 0, len(b))
	inStr, esc := false, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case inStr:
			inStr, esc = !(c == '"' && !esc), c == '\\' && !esc
		case c == '"':
			inStr = true
		default:
			if tok := pythonNumberAt(b[i:]); tok > 0 {
				out = append(out, "null"...)
				i += tok - 1
				continue
			}
		}
		out = append(out, c)
	}
	return out
}

// pythonNumberAt is the length of the Python number token b starts with, 0 for none.
func pythonNumberAt(b []byte) int {
	for _, tok := range pythonNumbers {
		if bytes.HasPrefix(b, tok) {
			return len(tok)
		}
	}
	return 0
}

package sweep

import "bytes"

// Large events. Past largeEventBytes, an event's data is no longer gathered in one
// growing buffer (which would cost several times its size in copies and regrowth) but
// in a rope of fixed-size blocks, allocated once each: a giant event costs its size plus
// a block. The client decodes such an event without joining it (compactRope): long JSON
// strings are left in the rope and streamed from there.

// largeEventBytes is the line length past which a parser with large events on moves
// the event's data to a rope; ropeBlock is the rope's block size.
const (
	largeEventBytes = 64 << 10
	ropeBlock       = 256 << 10
)

// sseRope holds one large event's data in blocks of ropeBlock bytes.
type sseRope struct {
	blocks [][]byte
	n      int // bytes held
}

func (r *sseRope) write(b []byte) {
	for len(b) > 0 {
		if k := len(r.blocks); k == 0 || len(r.blocks[k-1]) == cap(r.blocks[k-1]) {
			r.blocks = append(r.blocks, make([]byte, 0, ropeBlock))
		}
		last := &r.blocks[len(r.blocks)-1]
		m := min(len(b), cap(*last)-len(*last))
		*last = append(*last, b[:m]...)
		b = b[m:]
		r.n += m
	}
}

// each calls fn with the rope's bytes in [from, to), block by block.
func (r *sseRope) each(from, to int, fn func([]byte)) {
	off := 0
	for _, b := range r.blocks {
		lo, hi := max(from-off, 0), min(to-off, len(b))
		if lo < hi {
			fn(b[lo:hi])
		}
		off += len(b)
		if off >= to {
			return
		}
	}
}

// setLargeEvents turns the rope on for lines longer than largeEventBytes (the client
// does; the zero parser gathers every event in one buffer).
func (p *SSEParser) setLargeEvents(on bool) { p.large = on }

// toRope moves the current line (unterminated, in p.line) plus b to the rope: a data
// line's value joins the event's data, any other long line is skipped (counted when it
// is no SSE field). It reports false when the line is too long.
func (p *SSEParser) toRope(b []byte) bool {
	line := p.line
	field, value, _ := bytes.Cut(line, []byte{':'})
	p.line = p.line[:0]
	p.ropeLine = true
	if len(line) == 0 || line[0] == ':' || string(field) != "data" {
		p.skipLine = true
		switch string(field) {
		case "event", "id", "retry":
		default:
			if len(line) == 0 || line[0] != ':' {
				p.unknown++
			}
		}
		return true
	}
	if len(value) > 0 && value[0] == ' ' {
		value = value[1:]
	}
	p.rope.write(p.data)
	if p.hasData {
		p.rope.write([]byte{'\n'})
	}
	p.data = p.data[:0]
	p.hasData, p.inRope = true, true
	p.rope.write(value)
	return p.ropeAdd(b)
}

// ropeAdd adds more of the long line; false when the event passed maxLine.
func (p *SSEParser) ropeAdd(b []byte) bool {
	if p.skipLine {
		return true
	}
	if p.maxLine > 0 && p.rope.n+len(b) > p.maxLine {
		return false
	}
	p.rope.write(b)
	return true
}

// bigString is a JSON string that compactRope left in the rope: its place in the
// compact text (the offset of an empty "" standing for it) and its raw bytes between the
// quotes, [from, to) of the rope.
type bigString struct {
	at, from, to int
	esc          bool // it holds escapes
}

// bigStringBytes is the raw length past which compactRope leaves a string in the rope.
const bigStringBytes = 1 << 10

// compactRope copies the rope's JSON text into dst, leaving every string longer than
// bigStringBytes in the rope (an empty "" in dst, described in bigs). An unterminated
// string is copied as far as it goes (the decoder then fails on it).
func compactRope(r *sseRope, dst []byte, bigs []bigString) ([]byte, []bigString) {
	inStr, esc, escSeen := false, false, false
	quoteAt, bodyFrom, off := 0, 0, 0
	for _, blk := range r.blocks {
		for i, c := range blk {
			pos := off + i
			if !inStr {
				dst = append(dst, c)
				if c == '"' {
					inStr, escSeen, quoteAt, bodyFrom = true, false, len(dst)-1, pos+1
				}
				continue
			}
			big := pos-bodyFrom >= bigStringBytes
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc, escSeen = true, true
			case c == '"':
				inStr = false
				if pos-bodyFrom > bigStringBytes {
					dst = append(dst[:quoteAt+1], '"')
					bigs = append(bigs, bigString{at: quoteAt, from: bodyFrom, to: pos, esc: escSeen})
				} else {
					dst = append(dst, c)
				}
				continue
			}
			if !big {
				dst = append(dst, c)
			}
		}
		off += len(blk)
	}
	return dst, bigs
}

// bigUnescaper streams a big string's raw bytes out decoded, through two small reused
// buffers: raw (carrying an escape cut at a block's end) and out.
type bigUnescaper struct {
	raw, out []byte
}

// stream calls fn with the decoded text of the big string b of r, piece by piece.
func (u *bigUnescaper) stream(r *sseRope, b bigString, fn func([]byte)) error {
	if !b.esc {
		r.each(b.from, b.to, fn)
		return nil
	}
	var err error
	u.raw = u.raw[:0]
	flush := func(final bool) {
		cut := len(u.raw)
		if !final {
			cut = escapeSafeCut(u.raw)
		}
		var e error
		u.out, e = unescape(u.out[:0], u.raw[:cut])
		if e != nil && err == nil {
			err = e
		}
		fn(u.out)
		u.raw = u.raw[:copy(u.raw, u.raw[cut:])]
	}
	r.each(b.from, b.to, func(p []byte) {
		for len(p) > 0 {
			m := min(len(p), 32<<10-len(u.raw))
			u.raw = append(u.raw, p[:m]...)
			p = p[m:]
			if len(u.raw) >= 32<<10 {
				flush(false)
			}
		}
	})
	flush(true)
	return err
}

// escapeSafeCut is the longest prefix of the raw JSON string bytes w that ends outside
// an escape and leaves at least 12 bytes after the start of every escape it holds (a
// surrogate pair is 12 bytes), so unescaping w in pieces cut there equals unescaping
// it whole.
func escapeSafeCut(w []byte) int {
	i := 0
	for i < len(w) {
		if w[i] != '\\' {
			i++
			continue
		}
		if len(w)-i < 12 {
			return i
		}
		n := 2
		if w[i+1] == 'u' {
			if _, k := decodeU(w[i:]); k > 0 {
				n = k
			}
		}
		i += n
	}
	return len(w)
}

package sweep

import "bytes"

// SSEEvent is one dispatched server-sent event. Type and Data alias the parser's
// buffers: they are valid only until the callback that received them returns.
type SSEEvent struct {
	// Type is the value of the last "event:" field ("" means the default "message").
	Type []byte
	// Data is the event's "data:" field values joined with "\n".
	Data []byte
	// big holds the data instead of Data for a large event (setLargeEvents).
	big *sseRope
}

// SSEParser is an incremental text/event-stream parser following the WHATWG
// "server-sent events" interpretation rules: LF, CRLF and bare CR line endings; "data:"
// with or without the single leading space; multi-line data joined with "\n"; comment
// lines (":" first) ignored; "event:" kept as the event type; "id:" and "retry:" and
// unknown fields tolerated; a leading UTF-8 BOM skipped. Input may be split across Feed
// calls at any byte, including inside a CRLF pair or a multi-byte UTF-8 character.
//
// The parser keeps its buffers between events and calls, so in the steady state it does
// not allocate. The zero value is ready to use; it is not safe for concurrent use.
type SSEParser struct {
	line    []byte // an unterminated line carried across Feed calls
	data    []byte // the current event's data buffer
	typ     []byte // the current event's type buffer
	hasData bool   // a data field was seen in the current event
	skipLF  bool   // the previous line ended with CR: a leading LF belongs to it
	bomSeen int    // bytes of a leading BOM matched so far (3 = done checking)
	maxLine int    // 0 = unlimited; otherwise longer lines are an error
	unknown int    // lines that are no SSE field (data, event, id, retry) nor a comment
	// Large events (sse_big.go): large turns them on; the current event's data is in
	// rope (inRope); ropeLine: a long line is being read into it, or skipped (skipLine).
	large, inRope, ropeLine, skipLine bool
	rope                              sseRope
}

// ErrSSELineTooLong is returned by Feed when a line exceeds the limit set with
// SetMaxLine.
var ErrSSELineTooLong = errSSE("sse: line exceeds the maximum length")

type errSSE string

func (e errSSE) Error() string { return string(e) }

// SetMaxLine bounds the length in bytes of one line and of one event's data (0 means
// unlimited, the default). A longer line makes Feed return ErrSSELineTooLong.
func (p *SSEParser) SetMaxLine(n int) { p.maxLine = n }

// UnknownLines is how many lines of the stream so far were neither a comment nor one of
// the fields data, event, id and retry (an unterminated last line included once Finish
// ran): a body with such lines and no event is not an event stream.
func (p *SSEParser) UnknownLines() int { return p.unknown }

// Reset clears all state so the parser can read a new stream, keeping its buffers.
func (p *SSEParser) Reset() {
	limit, large := p.maxLine, p.large
	*p = SSEParser{line: p.line[:0], data: p.data[:0], typ: p.typ[:0], maxLine: limit, large: large}
}

var bom = [3]byte{0xEF, 0xBB, 0xBF}

// Feed parses b, calling emit for every event completed by it. An error returned by
// emit stops parsing and is returned as is.
func (p *SSEParser) Feed(b []byte, emit func(SSEEvent) error) error {
	b = p.stripBOM(b)
	for len(b) > 0 {
		if p.skipLF {
			p.skipLF = false
			if b[0] == '\n' {
				b = b[1:]
				continue
			}
		}
		i := indexEOL(b)
		if i < 0 {
			return p.partialLine(b)
		}
		if p.ropeLine {
			ok := p.ropeAdd(b[:i])
			p.ropeLine, p.skipLine = false, false
			p.skipLF = b[i] == '\r'
			b = b[i+1:]
			if !ok {
				return ErrSSELineTooLong
			}
			continue
		}
		line := b[:i]
		if len(p.line) > 0 {
			p.line = append(p.line, line...)
			line = p.line
		}
		if b[i] == '\r' {
			p.skipLF = true
		}
		b = b[i+1:]
		err := p.processLine(line, emit)
		p.line = p.line[:0]
		if err != nil {
			return err
		}
	}
	return nil
}

// partialLine keeps b, the start of a line not yet terminated.
func (p *SSEParser) partialLine(b []byte) error {
	if p.ropeLine {
		if !p.ropeAdd(b) {
			return ErrSSELineTooLong
		}
		return nil
	}
	if p.maxLine > 0 && len(p.line)+len(b) > p.maxLine {
		return ErrSSELineTooLong
	}
	if p.large && len(p.line)+len(b) > largeEventBytes {
		m := max(largeEventBytes-len(p.line), 0)
		p.line = append(p.line, b[:m]...)
		if !p.toRope(b[m:]) {
			return ErrSSELineTooLong
		}
		return nil
	}
	p.line = append(p.line, b...)
	return nil
}

// Finish ends the stream. Unlike the strict specification, which discards an event not
// followed by a blank line, it dispatches an event whose data lines were all complete
// (terminated) when the stream ended; an unterminated last line is discarded, so a
// stream cut inside a line never yields a partial event.
func (p *SSEParser) Finish(emit func(SSEEvent) error) error {
	if len(p.line) > 0 && !knownFieldPrefix(p.line) {
		p.unknown++
	}
	p.line = p.line[:0]
	if p.ropeLine { // a large event cut inside a line is discarded whole
		p.rope, p.inRope, p.ropeLine, p.skipLine, p.hasData = sseRope{}, false, false, false, false
		p.data = p.data[:0]
		return nil
	}
	if !p.hasData {
		return nil
	}
	return p.dispatch(emit)
}

// stripBOM skips a UTF-8 byte order mark at the very start of the stream, even when it
// is split across calls.
func (p *SSEParser) stripBOM(b []byte) []byte {
	for p.bomSeen < 3 && len(b) > 0 {
		if b[0] != bom[p.bomSeen] {
			if p.bomSeen > 0 {
				// A partial BOM that turned out not to be one: those bytes belong to
				// the first line. Replay them.
				p.line = append(p.line, bom[:p.bomSeen]...)
			}
			p.bomSeen = 3
			break
		}
		p.bomSeen++
		b = b[1:]
	}
	return b
}

// indexEOL returns the index of the first CR or LF in b, or -1.
func indexEOL(b []byte) int {
	i := bytes.IndexByte(b, '\n')
	head := b
	if i >= 0 {
		head = b[:i]
	}
	if j := bytes.IndexByte(head, '\r'); j >= 0 {
		return j
	}
	return i
}

func (p *SSEParser) processLine(line []byte, emit func(SSEEvent) error) error {
	if p.maxLine > 0 && len(line) > p.maxLine {
		return ErrSSELineTooLong
	}
	if len(line) == 0 {
		if !p.hasData {
			p.typ = p.typ[:0]
			return nil
		}
		return p.dispatch(emit)
	}
	if line[0] == ':' {
		return nil // comment
	}
	field, value := line, line[:0]
	if c := bytes.IndexByte(line, ':'); c >= 0 {
		field, value = line[:c], line[c+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	switch string(field) {
	case "data":
		if p.inRope {
			if !p.ropeAdd([]byte{'\n'}) || !p.ropeAdd(value) {
				return ErrSSELineTooLong
			}
			break
		}
		if p.maxLine > 0 && len(p.data)+len(value)+1 > p.maxLine {
			return ErrSSELineTooLong
		}
		if p.hasData {
			p.data = append(p.data, '\n')
		}
		p.data = append(p.data, value...)
		p.hasData = true
	case "event":
		p.typ = append(p.typ[:0], value...)
	case "id", "retry":
	default:
		p.unknown++
	}
	// "id", "retry" and unknown fields are tolerated and ignored.
	return nil
}

func (p *SSEParser) dispatch(emit func(SSEEvent) error) error {
	ev := SSEEvent{Type: p.typ, Data: p.data}
	if p.inRope {
		ev = SSEEvent{Type: p.typ, big: &p.rope}
	}
	err := emit(ev)
	if p.inRope {
		p.rope, p.inRope = sseRope{}, false
	}
	p.data = p.data[:0]
	p.typ = p.typ[:0]
	p.hasData = false
	return err
}

// knownFieldPrefix reports whether an unterminated line may be the start of an SSE line:
// a comment, a known field, or a prefix of a known field's name.
func knownFieldPrefix(line []byte) bool {
	if line[0] == ':' {
		return true
	}
	field, _, colon := bytes.Cut(line, []byte{':'})
	for _, f := range []string{"data", "event", "id", "retry"} {
		if string(field) == f || (!colon && len(field) < len(f) && f[:len(field)] == string(field)) {
			return true
		}
	}
	return false
}

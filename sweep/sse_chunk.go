package sweep

import (
	"bytes"
	"errors"
)

// chunk is what the client needs from one streamed OpenAI chunk (chat or completions),
// decoded by chunkDecoder without reflection and, in the steady state, without
// allocations. Byte slices are owned by the decoder and reused by the next decode.
type chunk struct {
	content      []byte // choices[].delta.content / choices[].text / choices[].message.content
	reasoning    int    // bytes of choices[].delta.reasoning_content / .reasoning
	finishReason []byte // the last non-null choices[].finish_reason
	hasUsage     bool   // a usage object (not null) was present
	promptTok    int    // usage.prompt_tokens
	complTok     int    // usage.completion_tokens
	reasonTok    int    // usage.completion_tokens_details.reasoning_tokens
	hasReasonTok bool
	hasError     bool   // an "error" member (not null) or "object":"error"
	errText      []byte // the error's message, or its raw JSON when it has none
	errRaw       []byte // the error value's raw JSON (for classification)
	message      []byte // a top-level "message" (vLLM's {"object":"error",...} form)
	objectError  bool
	bigContent   bool // content came as big strings too (handed to chunkDecoder.onBig)
}

// maxDepth bounds nesting of skipped JSON values.
const maxDepth = 256

var errJSON = errors.New("malformed JSON chunk")

// chunkDecoder decodes chunks; it is reused across the events of a stream.
type chunkDecoder struct {
	b   []byte
	i   int
	key []byte // scratch for keys with escapes
	c   chunk
	// A large event's compact text (compactRope) comes with bigs, the strings left in
	// the rope, in order; rawString notes the one it just read (lastBig). Big content
	// goes to onBig with the content gathered before it; other big strings read as "".
	bigs    []bigString
	bigNext int
	lastBig *bigString
	onBig   func(prior []byte, b *bigString) error
	// The template (decode's fast path): the bytes around the content string of the
	// last chunk decoded in full, when that string was its only varying part (tmpl).
	// contents counts the content strings of the decode in progress; cs and ce are the
	// last one's bounds in b (between its quotes).
	tmpl     bool
	pre, suf []byte
	contents int
	cs, ce   int
}

// maxTemplate bounds the bytes a template keeps (its prefix and suffix together).
const maxTemplate = 1 << 10

// decode parses one event's data into d.c.
//
// Fast path: streamed chunks of one server differ, event to event, only in the
// content text (vLLM's `{"id":…,"choices":[{"index":0,"delta":{"content":"` X
// `"},"logprobs":null,"finish_reason":null}]}`). When b is the template's prefix, a
// string body X with no quote and no backslash, and the template's suffix, a full
// parse would read the same prefix in the same way, end the content string where the
// suffix's quote is and read the same suffix, so d.c is the template's chunk with X as
// its content: only that is set (FuzzChunkTemplate checks it against full parses).
func (d *chunkDecoder) decode(b []byte) error {
	if d.tmpl && len(d.bigs) == 0 && len(b) >= len(d.pre)+len(d.suf) &&
		bytes.HasPrefix(b, d.pre) && bytes.HasSuffix(b, d.suf) {
		x := b[len(d.pre) : len(b)-len(d.suf)]
		if bytes.IndexByte(x, '"') < 0 && bytes.IndexByte(x, '\\') < 0 {
			d.c.content = append(d.c.content[:0], x...)
			return nil
		}
	}
	d.tmpl, d.contents = false, 0
	d.b, d.i = b, 0
	c := &d.c
	c.content, c.finishReason = c.content[:0], c.finishReason[:0]
	c.errText, c.errRaw, c.message = c.errText[:0], c.errRaw[:0], c.message[:0]
	c.reasoning, c.hasUsage, c.promptTok, c.complTok = 0, false, 0, 0
	c.reasonTok, c.hasReasonTok, c.hasError, c.objectError = 0, false, false, false
	c.bigContent, d.bigNext, d.lastBig = false, 0, nil
	if err := d.top(); err != nil {
		return err
	}
	d.ws()
	if d.i != len(d.b) {
		return errJSON
	}
	if c.objectError {
		c.hasError = true
		if len(c.errText) == 0 {
			c.errText = append(c.errText, c.message...)
		}
		if len(c.errRaw) == 0 {
			c.errRaw = append(c.errRaw, b...)
		}
	}
	d.keepTemplate(b)
	return nil
}

// keepTemplate makes b, just decoded in full, the template when its one content
// string (unescaped, not a large event's) is all of d.c.content.
func (d *chunkDecoder) keepTemplate(b []byte) {
	if d.contents != 1 || len(d.bigs) != 0 || d.c.bigContent || len(d.c.content) != d.ce-d.cs ||
		len(b)-(d.ce-d.cs) > maxTemplate || bytes.IndexByte(b[d.cs:d.ce], '\\') >= 0 {
		return
	}
	d.pre = append(d.pre[:0], b[:d.cs]...)
	d.suf = append(d.suf[:0], b[d.ce:]...)
	d.tmpl = true
}

func (d *chunkDecoder) top() error {
	if err := d.open('{'); err != nil {
		return err
	}
	for first := true; ; first = false {
		key, ok, err := d.member(first)
		if err != nil || !ok {
			return err
		}
		switch string(key) {
		case "choices":
			err = d.choices()
		case "usage":
			err = d.usage()
		case "error":
			err = d.errorValue()
		case "object":
			if d.key, err = d.optString(d.key[:0]); err == nil && string(d.key) == "error" {
				d.c.objectError = true
			}
		case "message":
			d.c.message, err = d.optString(d.c.message[:0])
		default:
			err = d.skip()
		}
		if err != nil {
			return err
		}
	}
}

func (d *chunkDecoder) choices() error {
	if d.null() {
		return nil
	}
	if err := d.open('['); err != nil {
		return err
	}
	for first := true; ; first = false {
		ok, err := d.elem(first)
		if err != nil || !ok {
			return err
		}
		if d.null() {
			continue
		}
		if err := d.choice(); err != nil {
			return err
		}
	}
}

func (d *chunkDecoder) choice() error {
	if err := d.open('{'); err != nil {
		return err
	}
	for first := true; ; first = false {
		key, ok, err := d.member(first)
		if err != nil || !ok {
			return err
		}
		switch string(key) {
		case "delta", "message":
			err = d.delta()
		case "text":
			err = d.content()
		case "finish_reason":
			// A null (or empty) finish_reason leaves an earlier choice's one in place.
			d.key, err = d.optString(d.key[:0])
			if err == nil && len(d.key) > 0 {
				d.c.finishReason = append(d.c.finishReason[:0], d.key...)
			}
		default:
			err = d.skip()
		}
		if err != nil {
			return err
		}
	}
}

func (d *chunkDecoder) delta() error {
	if d.null() {
		return nil
	}
	if err := d.open('{'); err != nil {
		return err
	}
	for first := true; ; first = false {
		key, ok, err := d.member(first)
		if err != nil || !ok {
			return err
		}
		switch string(key) {
		case "content":
			err = d.content()
		case "reasoning_content", "reasoning":
			var n int
			d.lastBig = nil
			n, err = d.stringLen()
			if d.lastBig != nil {
				n = d.lastBig.to - d.lastBig.from
			}
			d.c.reasoning += n
		default:
			err = d.skip()
		}
		if err != nil {
			return err
		}
	}
}

func (d *chunkDecoder) usage() error {
	if d.null() {
		return nil
	}
	if err := d.open('{'); err != nil {
		return err
	}
	d.c.hasUsage = true
	for first := true; ; first = false {
		key, ok, err := d.member(first)
		if err != nil || !ok {
			return err
		}
		switch string(key) {
		case "prompt_tokens":
			d.c.promptTok, err = d.number()
		case "completion_tokens":
			d.c.complTok, err = d.number()
		case "completion_tokens_details":
			err = d.usageDetails()
		default:
			err = d.skip()
		}
		if err != nil {
			return err
		}
	}
}

func (d *chunkDecoder) usageDetails() error {
	if d.null() {
		return nil
	}
	if err := d.open('{'); err != nil {
		return err
	}
	for first := true; ; first = false {
		key, ok, err := d.member(first)
		if err != nil || !ok {
			return err
		}
		if string(key) == "reasoning_tokens" {
			d.c.reasonTok, err = d.number()
			d.c.hasReasonTok = err == nil
		} else {
			err = d.skip()
		}
		if err != nil {
			return err
		}
	}
}

// errorValue reads the "error" member: an object with a message, a string, or null.
func (d *chunkDecoder) errorValue() error {
	if d.null() {
		return nil
	}
	start := d.i
	c := &d.c
	c.hasError = true
	if d.i < len(d.b) && d.b[d.i] == '"' {
		var err error
		c.errText, err = d.str(c.errText[:0])
		c.errRaw = append(c.errRaw[:0], d.b[start:d.i]...)
		return err
	}
	if d.i < len(d.b) && d.b[d.i] == '{' {
		d.i++
		for first := true; ; first = false {
			key, ok, err := d.member(first)
			if err != nil {
				return err
			}
			if !ok {
				break
			}
			if string(key) == "message" {
				c.errText, err = d.optString(c.errText[:0])
			} else {
				err = d.skip()
			}
			if err != nil {
				return err
			}
		}
	} else if err := d.skip(); err != nil {
		return err
	}
	c.errRaw = append(c.errRaw[:0], d.b[start:d.i]...)
	if len(c.errText) == 0 {
		c.errText = append(c.errText, c.errRaw...)
	}
	return nil
}

// content reads a content string into d.c.content; a big one (a large event's) goes to
// d.onBig with the content gathered so far, which it takes.
func (d *chunkDecoder) content() error {
	d.lastBig = nil
	d.ws()
	str := d.i < len(d.b) && d.b[d.i] == '"'
	start := d.i + 1
	var err error
	d.c.content, err = d.optString(d.c.content)
	if str && err == nil {
		d.contents++
		d.cs, d.ce = start, d.i-1
	}
	if err != nil || d.lastBig == nil || d.onBig == nil {
		return err
	}
	d.c.bigContent = true
	err = d.onBig(d.c.content, d.lastBig)
	d.c.content = d.c.content[:0]
	return err
}

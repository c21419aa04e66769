package sweep

import (
	"bytes"
	"context"
	"fmt"
	"hash"
	"hash/fnv"
	"io"
	"mime"
	"sync/atomic"
	"time"

	"github.com/llmcap/llmcap/rundir"
)

// clockBase anchors record times: unix ns = base wall time + monotonic elapsed, so
// record times never jump with wall-clock adjustments during a run.
var (
	clockBase   = time.Now()
	clockBaseNs = clockBase.UnixNano()
)

// unixNs converts a time taken with time.Now (monotonic) to unix nanoseconds on the
// process's monotonic base.
func unixNs(t time.Time) int64 { return clockBaseNs + int64(t.Sub(clockBase)) }

// monoNs returns monotonic nanoseconds since clockBase.
func monoNs(t time.Time) int64 { return int64(t.Sub(clockBase)) }

// msPtr returns d in milliseconds, clamped at 0.
func msPtr(d time.Duration) *float64 {
	if d < 0 {
		d = 0
	}
	v := float64(d) / 1e6
	return &v
}

// stream is the per-request state of Do, pooled with its buffers.
type stream struct {
	c      *Client
	rec    *rundir.Record
	parser SSEParser
	dec    chunkDecoder
	buf    []byte
	answer []byte      // the content text kept: at most keep bytes
	keep   int         // how much content text to keep (AnswerPrefixBytes, or the limit)
	hash   hash.Hash64 // FNV-1a 64 of all content text so far (hash/fnv; reused)
	sized  int64       // content bytes so far
	body   int64       // response body bytes read so far
	head   [64]byte
	headN  int // the first body bytes (for a "not an event stream" message)
	icl    []float64
	// A large event (sse_big.go): its compact text, big strings and rope, and the
	// scratch that decodes big content.
	compact []byte
	bigs    []bigString
	rope    *sseRope
	unesc   bigUnescaper
	emit    func(SSEEvent) error
	wrote   *atomic.Int64 // monoNs when the request was written (0: not yet/never)
	req     []byte        // the raw path's request bytes (scratch)
	raw     rawBody       // the raw path's response body

	now, sent, first, firstOut, last time.Time
	haveFirst, haveOut, haveLast     bool
	readLag                          time.Duration // the latest a read came after its bytes' arrival
	haveLag                          bool          // a read carried the kernel's arrival time
	events, reasoningEvents          int

	usageSeen              bool
	prompt, compl, reason  int
	haveReason, done       bool
	finish                 []byte
	errClass, errMsg       string
	decodeErrs, eventsSeen int
}

func newStream(c *Client) *stream {
	s := &stream{c: c}
	s.emit = s.onEvent
	s.parser.SetMaxLine(eventLimit(c.limit))
	s.parser.setLargeEvents(true)
	s.dec.onBig = s.onBigContent
	return s
}

// eventLimit is the SSE parser's bound on one line or event for a response limit: the
// limit itself (an event cannot be longer than its body), within int.
func eventLimit(limit int64) int {
	return int(min(limit, int64(maxInt)))
}

const maxInt = int(^uint(0) >> 1)

// maxICLGaps bounds Record.ICLMs (8 bytes per content event; a stream that long passes
// the response limit first unless the limit was raised).
const maxICLGaps = 1 << 20

// reset readies s for a request; keepAll keeps the whole answer text (bounded by the
// response limit) instead of its first AnswerPrefixBytes bytes.
func (s *stream) reset(rec *rundir.Record, keepAll bool) {
	*s = stream{
		c: s.c, rec: rec, parser: s.parser, dec: s.dec, buf: s.buf, emit: s.emit, req: s.req,
		compact: s.compact[:0], bigs: s.bigs[:0], unesc: s.unesc,
		answer: s.answer[:0], icl: s.icl[:0], finish: s.finish[:0], keep: AnswerPrefixBytes,
		hash: s.hash,
	}
	if s.hash == nil {
		s.hash = fnv.New64a()
	}
	s.hash.Reset()
	if keepAll {
		s.keep = eventLimit(s.c.limit)
	}
	s.parser.Reset()
}

// addContent takes a piece of the answer's content text: hashed whole, kept up to
// s.keep bytes.
func (s *stream) addContent(b []byte) {
	s.hash.Write(b) // never fails
	s.sized += int64(len(b))
	if room := s.keep - len(s.answer); room > 0 {
		s.answer = append(s.answer, b[:min(room, len(b))]...)
	}
}

// onBigContent takes a big content string of a large event, after prior, the content
// gathered before it in the same chunk.
func (s *stream) onBigContent(prior []byte, b *bigString) error {
	s.addContent(prior)
	return s.unesc.stream(s.rope, *b, s.addContent)
}

// countBody adds n body bytes read, failing the request (response_too_large) when the
// body passes the limit; it reports whether reading may go on.
func (s *stream) countBody(b []byte) bool {
	if s.headN < len(s.head) {
		s.headN += copy(s.head[s.headN:], b)
	}
	s.body += int64(len(b))
	if s.body <= s.c.limit {
		return true
	}
	s.setError(rundir.ErrResponseTooLarge, fmt.Sprintf(
		"response body passed the %d-byte limit (target.max_response_bytes)", s.c.limit))
	return false
}

// setError records the first failure of the request.
func (s *stream) setError(class, msg string) {
	if s.errClass == "" {
		s.errClass, s.errMsg = class, msg
	}
}

// onEvent applies one SSE event read at s.now.
func (s *stream) onEvent(ev SSEEvent) error {
	s.eventsSeen++
	if ev.big != nil {
		// A large event: decoded from a compact copy, its long strings left in the
		// rope (about its size plus a constant, however large).
		s.compact, s.bigs = compactRope(ev.big, s.compact[:0], s.bigs[:0])
		s.rope, s.dec.bigs = ev.big, s.bigs
		ev.Data = s.compact
		defer func() { s.rope, s.dec.bigs = nil, nil }()
	}
	data := bytes.TrimSpace(ev.Data)
	if string(ev.Type) == "error" {
		msg := string(data)
		s.setError(classifyInBand(data), s.c.redact(msg))
		return nil
	}
	if len(data) == 0 || s.done {
		return nil
	}
	if string(data) == "[DONE]" {
		s.done = true
		return nil
	}
	if err := s.dec.decode(data); err != nil {
		s.decodeErrs++
		s.setError(rundir.ErrDecode, s.c.redact("decode chunk: "+err.Error()+": "+truncate(string(data), 200)))
		return nil
	}
	s.apply(&s.dec.c)
	return nil
}

// apply folds one decoded chunk into the stream's metrics.
func (s *stream) apply(c *chunk) {
	if c.hasError {
		s.setError(classifyInBand(c.errRaw), s.c.redact(string(c.errText)))
	}
	content, reasoning := len(c.content) > 0 || c.bigContent, c.reasoning > 0
	if content || reasoning {
		if !s.haveFirst {
			s.first, s.haveFirst = s.now, true
		}
		if content && !s.haveOut {
			s.firstOut, s.haveOut = s.now, true
		}
		if s.haveLast && s.c.cfg.SaveICL && len(s.icl) < maxICLGaps {
			s.icl = append(s.icl, float64(s.now.Sub(s.last))/1e6)
		}
		s.last, s.haveLast = s.now, true
		s.events++
		if !content {
			s.reasoningEvents++
		}
		s.addContent(c.content)
	}
	if len(c.finishReason) > 0 {
		s.finish = append(s.finish[:0], c.finishReason...)
		// vLLM and SGLang end an aborted request with finish_reason "abort"; some
		// servers say "error": the answer is incomplete.
		if fr := string(c.finishReason); fr == "abort" || fr == "error" {
			s.setError(rundir.ErrInBand, "finish_reason "+fr)
		}
	}
	if c.hasUsage {
		s.usageSeen = true
		// Some servers send a zero usage in every chunk and the real one last: keep
		// the last non-zero values.
		if c.complTok > 0 {
			s.compl = c.complTok
		}
		if c.promptTok > 0 {
			s.prompt = c.promptTok
		}
		if c.hasReasonTok && c.reasonTok > 0 {
			s.reason, s.haveReason = c.reasonTok, true
		}
	}
}

// bodySource yields a response body piece by piece: next returns the bytes that are
// available (valid until the following call) and io.EOF at the body's end; it may
// return data and an error together.
type bodySource interface {
	next() ([]byte, error)
	// rxStamp is the kernel's receive time of the bytes next returned last, in unix
	// ns, or 0 when there is none (rxTime).
	rxStamp() int64
}

// netBuf returns the stream's read buffer for a net/http body, made on first use (the
// raw HTTP/1.1 path reads into its connection's buffer and never needs it).
func (s *stream) netBuf() []byte {
	if s.buf == nil {
		s.buf = make([]byte, streamBufSize)
	}
	return s.buf
}

// readerSource reads a net/http response body into the stream's buffer.
type readerSource struct {
	r   io.Reader
	buf []byte
	eof bool // the body was read to its end
}

// rxStamp is 0: net/http's reads carry no kernel stamp.
func (rs *readerSource) rxStamp() int64 { return 0 }

func (rs *readerSource) next() ([]byte, error) {
	n, err := rs.r.Read(rs.buf)
	rs.eof = err == io.EOF
	return rs.buf[:n], err
}

// readStream reads a 2xx response body as an event stream (or, when the server
// ignored stream=true, as one JSON completion). contentType is the response's
// Content-Type header.
func (c *Client) readStream(parent, ctx context.Context, s *stream, contentType string, body bodySource, wd *watchdog) {
	if isJSON(contentType) {
		c.readJSONBody(parent, ctx, s, body, wd)
		return
	}
	for {
		b, err := body.next()
		if len(b) > 0 {
			now := time.Now()
			s.stampRead(now, body.rxStamp())
			wd.touch(now)
		}
		if s.feed(parent, ctx, b, err) {
			return
		}
	}
}

// feed applies one piece b of an event-stream body, read at s.now, and the error that
// came with it; it reports whether the stream is over for the reader: the record is
// final ([DONE], a failure) or the body ended. After [DONE] the caller ends or drains
// the rest of the body (drainRaw, drainHTTP) without holding up the next request.
func (s *stream) feed(parent, ctx context.Context, b []byte, err error) bool {
	if len(b) > 0 {
		if !s.countBody(b) {
			return true
		}
		if perr := s.parser.Feed(b, s.emit); perr != nil {
			s.setError(rundir.ErrDecode, "parse event stream: "+perr.Error())
			return true
		}
		if s.done {
			return true
		}
	}
	switch {
	case err == io.EOF:
		// An event left without its blank line is timed by the read that brought its
		// bytes (s.now), not by the end of the body.
		_ = s.parser.Finish(s.emit)
		return true
	case err != nil:
		s.setError(s.c.classifyTransport(parent, ctx, err, true))
		return true
	}
	return false
}

// isJSON reports whether a response's Content-Type is application/json: a server that
// ignored stream=true.
func isJSON(contentType string) bool {
	mt, _, _ := mime.ParseMediaType(contentType)
	return mt == "application/json"
}

// readJSONBody handles a non-streamed JSON answer as a single event.
func (c *Client) readJSONBody(parent, ctx context.Context, s *stream, body bodySource, wd *watchdog) {
	b, err := readLimited(body, eventLimit(c.limit)+1, wd)
	if err != nil {
		class, msg := c.classifyTransport(parent, ctx, err, true)
		s.setError(class, msg)
		return
	}
	if !s.countBody(b) {
		return
	}
	s.stampRead(time.Now(), body.rxStamp()) // the last bytes' arrival
	_ = s.onEvent(SSEEvent{Data: b})
	s.done = s.errClass == ""
}

// readLimited reads up to limit bytes of body, touching the watchdog as data arrives.
func readLimited(body bodySource, limit int, wd *watchdog) ([]byte, error) {
	var out []byte
	for len(out) < limit {
		b, err := body.next()
		if len(b) > 0 {
			wd.touch(time.Now())
			out = append(out, b...)
		}
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// finalize writes the stream's outcome into its record.
func (s *stream) finalize() {
	rec := s.rec
	if s.wrote != nil {
		if w := s.wrote.Load(); w != 0 {
			t := clockBase.Add(time.Duration(w))
			if !t.Before(s.sent) && (!s.haveFirst || !t.After(s.first)) {
				s.sent = t
			}
		}
	}
	rec.SentNs = unixNs(s.sent)
	if rec.ScheduledNs != 0 && rec.ScheduleLagMs == nil {
		rec.ScheduleLagMs = msPtr(time.Duration(rec.SentNs - rec.ScheduledNs))
	}
	if s.haveFirst {
		rec.FirstTokenNs = unixNs(s.first)
		rec.TTFTMs = msPtr(s.first.Sub(s.sent))
	}
	if s.haveOut {
		rec.TTFOMs = msPtr(s.firstOut.Sub(s.sent))
	}
	if s.haveLast {
		rec.EndNs = unixNs(s.last)
	}
	if s.haveLag {
		rec.ReadLagMs = msPtr(s.readLag)
	}
	switch {
	case s.compl > 0 || (s.usageSeen && s.events == 0):
		rec.OutputTokens, rec.TokensSource = s.compl, rundir.TokensUsage
	default:
		rec.OutputTokens, rec.TokensSource = s.events, rundir.TokensCounted
	}
	rec.PromptTokens = s.prompt
	rec.ReasoningTokens = s.reasoningEvents
	if s.haveReason {
		rec.ReasoningTokens = s.reason
	}
	rec.Chunks = s.events
	rec.FinishReason = string(s.finish)
	if s.sized > 0 {
		rec.OutputHash = fmt.Sprintf("%016x", s.hash.Sum64())
	}
	if s.errClass == "" && !s.done && len(s.finish) == 0 && !s.usageSeen {
		if s.eventsSeen == 0 && s.parser.UnknownLines() > 0 {
			// Bytes came, but not one SSE line among them: not an event stream.
			s.setError(rundir.ErrDecode, s.c.redact(fmt.Sprintf(
				"response is not an event stream (no event; starts %q)", s.head[:s.headN])))
		} else {
			s.setError(rundir.ErrStreamTruncated, "stream ended without finish_reason, usage or [DONE]")
		}
	}
	if s.errClass == "" && s.events == 0 && s.compl == 0 {
		// No content or reasoning event and no usage completion_tokens > 0: the server
		// answered nothing (a stream of only [DONE], or a finish with no tokens).
		msg := "stream ended with no content and no tokens"
		if len(s.finish) > 0 {
			msg += " (finish_reason " + string(s.finish) + ")"
		}
		s.setError(rundir.ErrEmptyResponse, msg)
	}
	if s.errClass != "" {
		rec.Status, rec.ErrorClass, rec.Error = rundir.StatusError, s.errClass, s.errMsg
		return
	}
	rec.Status = rundir.StatusOK
	if s.c.cfg.SaveICL && len(s.icl) > 0 {
		rec.ICLMs = append([]float64(nil), s.icl...)
	}
	if !s.haveLast {
		return
	}
	e2e := s.last.Sub(s.sent)
	rec.E2EMs = msPtr(e2e)
	// ITL needs at least two timed events: tokens that all arrived in one event carry
	// no inter-token timing.
	if rec.OutputTokens >= 2 && s.events >= 2 {
		itl := float64(s.last.Sub(s.first)) / 1e6 / float64(rec.OutputTokens-1)
		rec.ITLMs = &itl
	}
}

// resetRecord clears the fields Do fills, leaving the caller's identity fields.
func resetRecord(rec *rundir.Record) {
	rec.SentNs, rec.FirstTokenNs, rec.EndNs = 0, 0, 0
	rec.TTFTMs, rec.TTFOMs, rec.ITLMs, rec.E2EMs, rec.ICLMs = nil, nil, nil, nil, nil
	rec.PromptTokens, rec.OutputTokens, rec.ReasoningTokens, rec.Chunks = 0, 0, 0, 0
	rec.TokensSource, rec.FinishReason, rec.OutputHash = "", "", ""
	rec.Status, rec.ErrorClass, rec.HTTPStatus, rec.Error = "", "", 0, ""
	rec.RetryAfterMs = 0
}

// watchdog enforces the first-byte and idle timeouts by cancelling the request's
// context with a cause. Reads only store a timestamp; the timer re-arms itself lazily.
type watchdog struct {
	cancel      context.CancelCauseFunc
	firstByte   time.Duration
	idle        time.Duration
	timer       atomic.Pointer[time.Timer]
	phase       atomic.Int32
	lastReadMNs atomic.Int64
}

const (
	wdOff int32 = iota
	wdFirstByte
	wdIdle
)

func newWatchdog(cancel context.CancelCauseFunc, firstByte, idle time.Duration) *watchdog {
	w := &watchdog{cancel: cancel, firstByte: firstByte, idle: idle}
	if firstByte > 0 || idle > 0 {
		t := time.AfterFunc(time.Hour, w.fire)
		t.Stop()
		w.timer.Store(t)
	}
	return w
}

func (w *watchdog) arm(phase int32, d time.Duration) {
	w.phase.Store(phase)
	w.timer.Load().Reset(d)
}

// armFirstByte starts the first-byte timeout (on getting a connection).
func (w *watchdog) armFirstByte() {
	if w.firstByte > 0 {
		w.arm(wdFirstByte, w.firstByte)
	}
}

// armIdle switches to the idle timeout once the response headers are in.
func (w *watchdog) armIdle(now time.Time) {
	if w.idle <= 0 {
		w.phase.Store(wdOff)
		if t := w.timer.Load(); t != nil {
			t.Stop()
		}
		return
	}
	w.lastReadMNs.Store(monoNs(now))
	w.arm(wdIdle, w.idle)
}

// touch notes that data arrived at now.
func (w *watchdog) touch(now time.Time) {
	if w.idle > 0 {
		w.lastReadMNs.Store(monoNs(now))
	}
}

func (w *watchdog) fire() {
	switch w.phase.Load() {
	case wdFirstByte:
		w.cancel(errTimeoutFirstByte)
	case wdIdle:
		since := time.Duration(monoNs(time.Now()) - w.lastReadMNs.Load())
		if since < w.idle {
			w.timer.Load().Reset(w.idle - since)
			return
		}
		w.cancel(errTimeoutIdle)
	}
}

func (w *watchdog) stop() {
	w.phase.Store(wdOff)
	if t := w.timer.Load(); t != nil {
		t.Stop()
	}
}

package sweep

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// The raw HTTP/1.1 path: for plain http:// targets the client writes its requests and
// parses responses (status line, headers, chunked or Content-Length or close-delimited
// bodies) itself over pooled keep-alive TCP connections. Compared with net/http's
// transport it spends no goroutines per connection (net/http runs a read loop and a
// write loop for each and hands every request between them), copies response bytes
// once less, and hands the SSE parser slices of its own read buffer. https:// and
// anything unusual (user info in the URL) go through net/http.

// rawReadBufStart is a raw connection's first read buffer; a read that fills it
// doubles it, up to rawReadBufSize (a token stream's segments are a few hundred bytes,
// so most of 20,000 open streams keep 4 KiB). rawMaxHeader bounds the response head
// (status line and headers) and so the largest buffer a head or an event can grow.
const (
	rawReadBufStart = 4 << 10
	rawReadBufSize  = 16 << 10
	rawMaxHeader    = 1 << 20
	rawIdleConnTime = 90 * time.Second
)

// errRawMalformed marks a response that is not HTTP/1.x; its text contains
// "malformed HTTP" so classifyTransport reports it as a decode error.
var errRawMalformed = errors.New("malformed HTTP response")

// longAgo is a deadline in the past: setting it interrupts blocked reads and writes.
var longAgo = time.Unix(1, 0)

// rawPool is the keep-alive pool of one http:// target.
type rawPool struct {
	addr    string // host:port to dial
	prefix  []byte // request line and fixed headers (llmcap's and the extra ones)
	max     int    // bound on open connections (0 = none)
	mu      sync.Mutex
	idle    []*rawConn      // most recently used last
	open    int             // connections dialled and not yet closed
	waiters []chan *rawConn // requests waiting for a connection (max reached)
}

// rawConn is one pooled connection with its read buffer; unread bytes are buf[r:w].
// With noRead set, reads that would touch the socket fail with errWouldBlock instead
// (or with pending, the error an epoll reader's read met), so a body can be finished
// from what is already buffered, or fed by an epoll reader (client_epoll_linux.go).
type rawConn struct {
	conn      net.Conn
	buf       []byte
	r, w      int
	idleSince time.Time
	noRead    bool
	pending   error
	full      bool            // the last read filled buf: grow it (up to rawReadBufSize) first
	rxStamps  bool            // the socket has kernel receive timestamps on (Linux)
	rxConn    net.Conn        // the conn rxRaw belongs to (an epoll reader replaces conn)
	rxRaw     syscall.RawConn // conn's RawConn for recvmsg(2) with kernel stamps (Linux); nil: conn.Read
	rxNs      int64           // the kernel's receive time of the last read's bytes, unix ns (0: none)
}

// newRawConn wraps a new connection, its kernel receive timestamps turned on before the
// request is written, so that the response's segments are all stamped.
func newRawConn(conn net.Conn) *rawConn {
	rc := &rawConn{conn: conn, buf: make([]byte, rawReadBufStart)}
	rc.attachRx()
	return rc
}

// errWouldBlock is a read the connection's noRead mode refused.
var errWouldBlock = errors.New("raw: more bytes needed")

// newRawPool returns the raw pool for rawURL, or nil when the URL needs net/http. Its
// requests carry userAgent as User-Agent, auth as Authorization (when set) and the
// extra headers; an extra User-Agent replaces userAgent, an extra Authorization is
// dropped when auth is set (auth wins, as on net/http).
func newRawPool(rawURL, auth, userAgent string, extra []headerField, maxConns int) *rawPool {
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme != "http" || u.User != nil || u.Host == "" || u.Opaque != "" {
		return nil
	}
	port := u.Port()
	if port == "" {
		port = "80"
	}
	p := &rawPool{addr: net.JoinHostPort(u.Hostname(), port), max: max(maxConns, 0)}
	ua, ok := headerValueOf(extra, "User-Agent")
	if !ok {
		ua = userAgent
	}
	b := []byte("POST " + u.RequestURI() + " HTTP/1.1\r\nHost: " + u.Host + "\r\n")
	b = appendHeader(b, "User-Agent", ua)
	b = appendHeader(b, "Accept", "text/event-stream")
	if auth != "" {
		b = appendHeader(b, "Authorization", auth)
	}
	for _, f := range extra {
		if f.name == "User-Agent" || (auth != "" && f.name == "Authorization") {
			continue
		}
		b = appendHeader(b, f.name, f.value)
	}
	p.prefix = appendHeader(b, "Content-Type", "application/json")
	return p
}

// get returns an idle live connection or dials a new one; when MaxConns connections
// are open it waits for one to come back or close (or for ctx). Dial failures are
// *dialError.
func (p *rawPool) get(ctx context.Context, dial func(context.Context, string, string) (net.Conn, error)) (*rawConn, error) {
	for {
		p.mu.Lock()
		if n := len(p.idle); n > 0 {
			rc := p.idle[n-1]
			p.idle[n-1] = nil
			p.idle = p.idle[:n-1]
			p.mu.Unlock()
			if rc = p.check(rc); rc != nil {
				return rc, nil
			}
			continue
		}
		if p.max == 0 || p.open < p.max {
			p.open++
			p.mu.Unlock()
			conn, err := dial(ctx, "tcp", p.addr)
			if err != nil {
				p.release()
				return nil, &dialError{err: err}
			}
			return newRawConn(conn), nil
		}
		w := make(chan *rawConn, 1)
		p.waiters = append(p.waiters, w)
		p.mu.Unlock()
		select {
		case rc := <-w: // a returned connection, or nil: a slot was freed
			if rc = p.check(rc); rc != nil {
				return rc, nil
			}
		case <-ctx.Done():
			p.mu.Lock()
			p.waiters = slices.DeleteFunc(p.waiters, func(x chan *rawConn) bool { return x == w })
			p.mu.Unlock()
			select { // what was handed to us meanwhile goes to the next waiter
			case rc := <-w:
				if rc != nil {
					p.put(rc)
				} else {
					p.wake()
				}
			default:
			}
			return nil, context.Cause(ctx)
		}
	}
}

// check returns rc when it is fresh and alive; otherwise it closes it and returns nil.
func (p *rawPool) check(rc *rawConn) *rawConn {
	if rc == nil {
		return nil
	}
	if time.Since(rc.idleSince) < rawIdleConnTime && connAlive(rc.conn) {
		return rc
	}
	p.discard(rc)
	return nil
}

// put hands a connection whose response was read completely to a waiting request, or
// keeps it idle.
func (p *rawPool) put(rc *rawConn) {
	rc.r, rc.w = 0, 0
	rc.idleSince = time.Now()
	p.mu.Lock()
	if len(p.waiters) > 0 {
		w := p.waiters[0]
		p.waiters = p.waiters[1:]
		p.mu.Unlock()
		w <- rc
		return
	}
	p.idle = append(p.idle, rc)
	p.mu.Unlock()
}

// discard closes a connection and frees its slot.
func (p *rawPool) discard(rc *rawConn) {
	_ = rc.conn.Close()
	p.release()
}

// release frees a connection slot, waking a waiting request.
func (p *rawPool) release() {
	p.mu.Lock()
	p.open--
	p.mu.Unlock()
	p.wake()
}

// wake tells the first waiting request to try again.
func (p *rawPool) wake() {
	p.mu.Lock()
	if len(p.waiters) == 0 {
		p.mu.Unlock()
		return
	}
	w := p.waiters[0]
	p.waiters = p.waiters[1:]
	p.mu.Unlock()
	w <- nil
}

// closeIdle closes the idle connections.
func (p *rawPool) closeIdle() {
	p.mu.Lock()
	idle := p.idle
	p.idle = nil
	p.mu.Unlock()
	for _, rc := range idle {
		p.discard(rc)
	}
}

// writeRequest writes the request head (the pool's fixed part, then the request's ids
// and its Content-Length) and body in one write.
func (p *rawPool) writeRequest(rc *rawConn, scratch []byte, body []byte, ids wireIDs) ([]byte, error) {
	b := append(scratch[:0], p.prefix...)
	b = appendHeader(b, requestIDHeader, ids.request)
	if ids.session != "" {
		b = appendHeader(b, ids.sessionName, ids.session)
	}
	b = append(b, "Content-Length: "...)
	b = strconv.AppendInt(b, int64(len(body)), 10)
	b = append(b, "\r\n\r\n"...)
	b = append(b, body...)
	_, err := rc.conn.Write(b)
	return b, err
}

// read reads from the socket into p; in noRead mode it reads nothing and returns
// pending, or errWouldBlock.
func (rc *rawConn) read(p []byte) (int, error) {
	if rc.noRead {
		if rc.pending != nil {
			return 0, rc.pending
		}
		return 0, errWouldBlock
	}
	n, err := rc.sockRead(p)
	rc.noteRead(n, len(p))
	return n, err
}

// noteRead records whether a read of n bytes into room bytes filled them: the next
// read then grows the buffer first (more bytes are likely waiting).
func (rc *rawConn) noteRead(n, room int) {
	rc.full = n == room && len(rc.buf) < rawReadBufSize
}

// growFull doubles the buffer, keeping its unread bytes, when the last read filled it.
func (rc *rawConn) growFull() {
	if !rc.full {
		return
	}
	rc.full = false
	nb := make([]byte, min(2*len(rc.buf), rawReadBufSize))
	rc.w = copy(nb, rc.buf[rc.r:rc.w])
	rc.r, rc.buf = 0, nb
}

// makeRoom makes room at the end of rc.buf for a read, compacting it or growing it up
// to limit bytes.
func (rc *rawConn) makeRoom(limit int) error {
	if rc.r > 0 && rc.r == rc.w {
		rc.r, rc.w = 0, 0
	}
	rc.growFull()
	if rc.w < len(rc.buf) {
		return nil
	}
	switch {
	case rc.r > 0:
		rc.w = copy(rc.buf, rc.buf[rc.r:rc.w])
		rc.r = 0
	case len(rc.buf) < limit:
		nb := make([]byte, min(2*len(rc.buf), limit))
		rc.w = copy(nb, rc.buf[rc.r:rc.w])
		rc.r, rc.buf = 0, nb
	default:
		return fmt.Errorf("%w: header larger than %d bytes", errRawMalformed, limit)
	}
	return nil
}

// fill reads more bytes into rc.buf (compacting or growing it up to limit first).
func (rc *rawConn) fill(limit int) error {
	if err := rc.makeRoom(limit); err != nil {
		return err
	}
	n, err := rc.read(rc.buf[rc.w:])
	rc.w += n
	if n > 0 {
		return nil
	}
	if err == nil {
		err = io.ErrNoProgress
	}
	return err
}

// line returns the next CRLF- or LF-terminated line (without its terminator), reading
// as needed; the slice is valid until the next read.
func (rc *rawConn) line() ([]byte, error) {
	for {
		if i := bytes.IndexByte(rc.buf[rc.r:rc.w], '\n'); i >= 0 {
			l := rc.buf[rc.r : rc.r+i]
			rc.r += i + 1
			return bytes.TrimSuffix(l, []byte{'\r'}), nil
		}
		if err := rc.fill(rawMaxHeader); err != nil {
			if err == io.EOF && rc.r < rc.w {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
	}
}

// rawHead is what the client needs from a response head.
type rawHead struct {
	status      int
	contentType string
	chunked     bool
	length      int64 // -1: unknown (read to EOF)
	close       bool  // the connection cannot be reused
	retryAfter  string
}

// readHead reads the status line and headers, skipping 1xx interim responses.
func (rc *rawConn) readHead() (rawHead, error) {
	for {
		h, err := rc.readOneHead()
		if err != nil || h.status >= 200 || h.status == 101 {
			return h, err
		}
	}
}

func (rc *rawConn) readOneHead() (rawHead, error) {
	h := rawHead{length: -1}
	l, err := rc.line()
	if err != nil {
		return h, err
	}
	proto, rest, _ := bytes.Cut(l, []byte{' '})
	code, _, _ := bytes.Cut(rest, []byte{' '})
	if !bytes.HasPrefix(proto, []byte("HTTP/1.")) || len(proto) != 8 {
		return h, fmt.Errorf("%w %q", errRawMalformed, truncate(string(l), 100))
	}
	n, err := strconv.Atoi(string(code))
	if err != nil || len(code) != 3 || n < 100 {
		return h, fmt.Errorf("%w status code %q", errRawMalformed, truncate(string(code), 100))
	}
	h.status = n
	http10 := proto[7] == '0' // proto aliases the read buffer: read it before the next line
	h.close = http10
	for {
		l, err := rc.line()
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return h, err
		}
		if len(l) == 0 {
			break
		}
		if err := h.header(l); err != nil {
			return h, err
		}
	}
	if h.chunked && http10 {
		// Transfer-Encoding is HTTP/1.1's: an HTTP/1.0 response carrying it has faulty
		// framing (RFC 9112 §6.1). Read it as net/http does, by Content-Length or to
		// EOF, and never reuse the connection.
		h.chunked, h.close = false, true
	}
	if h.status == 204 || h.status == 304 || h.status < 200 {
		h.chunked, h.length = false, 0
	}
	if !h.chunked && h.length < 0 {
		h.close = true // the body ends when the server closes: the connection is spent
	}
	return h, nil
}

// header applies one header line.
func (h *rawHead) header(l []byte) error {
	k, v, ok := bytes.Cut(l, []byte{':'})
	if !ok || len(k) == 0 || k[0] == ' ' || k[0] == '\t' {
		return nil // a continuation or junk line: nothing the client needs
	}
	v = bytes.TrimSpace(v)
	switch {
	case asciiEqualFold(k, "content-type"):
		h.contentType = string(v)
	case asciiEqualFold(k, "retry-after"):
		h.retryAfter = string(v)
	case asciiEqualFold(k, "transfer-encoding"):
		h.chunked = hasToken(v, "chunked")
		if !h.chunked {
			h.close = true // another coding: read to EOF, never reuse
		}
	case asciiEqualFold(k, "content-length"):
		n, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil || n < 0 {
			return fmt.Errorf("%w: bad Content-Length %q", errRawMalformed, truncate(string(v), 100))
		}
		h.length = n
	case asciiEqualFold(k, "connection"):
		if hasToken(v, "close") {
			h.close = true
		} else if hasToken(v, "keep-alive") {
			h.close = false
		}
	}
	return nil
}

// asciiEqualFold reports whether b equals the lower-case ASCII s, ignoring case.
func asciiEqualFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range b {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != s[i] {
			return false
		}
	}
	return true
}

// hasToken reports whether the comma-separated header value v holds token.
func hasToken(v []byte, token string) bool {
	for len(v) > 0 {
		var t []byte
		t, v, _ = bytes.Cut(v, []byte{','})
		if asciiEqualFold(bytes.TrimSpace(t), token) {
			return true
		}
	}
	return false
}

// Body framings of rawBody.
const (
	rawChunked = iota
	rawLength
	rawToEOF
)

// Chunked-body states.
const (
	chunkHeader = iota
	chunkData
	chunkCRLF
	chunkTrailers
)

// rawBody is the bodySource of a raw response: slices of the connection's buffer,
// without the chunked framing.
type rawBody struct {
	rc    *rawConn
	mode  int
	state int
	left  int64 // bytes left in the current chunk or the body
	eof   bool  // the body was read to its proper end
}

func (b *rawBody) init(rc *rawConn, h rawHead) {
	*b = rawBody{rc: rc, mode: rawToEOF, state: chunkHeader}
	switch {
	case h.chunked:
		b.mode = rawChunked
	case h.length >= 0:
		b.mode, b.left = rawLength, h.length
	}
}

// rxStamp is the kernel's receive time of the connection's last read (rawConn.rxNs).
func (b *rawBody) rxStamp() int64 {
	if b.rc == nil {
		return 0
	}
	return b.rc.rxNs
}

func (b *rawBody) next() ([]byte, error) {
	if b.eof {
		return nil, io.EOF
	}
	switch b.mode {
	case rawLength:
		if b.left == 0 {
			b.eof = true
			return nil, io.EOF
		}
		return b.data()
	case rawToEOF:
		d, err := b.data()
		if err == io.EOF {
			b.eof = true
		}
		return d, err
	}
	for {
		switch b.state {
		case chunkData:
			if b.left > 0 {
				return b.data()
			}
			b.state = chunkCRLF
		case chunkCRLF:
			l, err := b.rc.line()
			if err != nil {
				return nil, unexpectedEOF(err)
			}
			if len(l) != 0 {
				return nil, errors.New("malformed chunked encoding")
			}
			b.state = chunkHeader
		case chunkTrailers:
			if err := b.trailers(); err != nil {
				return nil, err
			}
		default:
			if err := b.chunkHeader(); err != nil || b.eof {
				return nil, err
			}
		}
	}
}

// chunkHeader reads a chunk-size line; the last chunk's trailers end the body.
func (b *rawBody) chunkHeader() error {
	l, err := b.rc.line()
	if err != nil {
		return unexpectedEOF(err)
	}
	l, _, _ = bytes.Cut(l, []byte{';'})
	n, err := strconv.ParseUint(string(bytes.TrimSpace(l)), 16, 63)
	if err != nil {
		return errors.New("malformed chunked encoding")
	}
	if n > 0 {
		b.left, b.state = int64(n), chunkData
		return nil
	}
	b.state = chunkTrailers
	return b.trailers()
}

// trailers reads the last chunk's trailers up to the blank line that ends the body.
func (b *rawBody) trailers() error {
	for {
		l, err := b.rc.line()
		if err != nil {
			return unexpectedEOF(err)
		}
		if len(l) == 0 {
			b.eof = true
			return io.EOF
		}
	}
}

// data returns up to b.left buffered bytes (all when the body is read to EOF),
// reading once when none are buffered.
func (b *rawBody) data() ([]byte, error) {
	rc := b.rc
	var err error
	if rc.r == rc.w {
		if rc.noRead && rc.pending == nil {
			return nil, errWouldBlock
		}
		rc.r, rc.w = 0, 0
		rc.growFull()
		var n int
		n, err = rc.read(rc.buf)
		rc.w = n
		if n == 0 && err == nil {
			err = io.ErrNoProgress
		}
		if err != nil && b.mode != rawToEOF {
			err = unexpectedEOF(err)
		}
	}
	n := int64(rc.w - rc.r)
	if b.mode != rawToEOF && n > b.left {
		n = b.left
	}
	d := rc.buf[rc.r : rc.r+int(n)]
	rc.r += int(n)
	b.left -= n
	return d, err
}

// unexpectedEOF turns io.EOF inside a framed body into io.ErrUnexpectedEOF.
func unexpectedEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// runRaw performs the exchange for s over a pooled raw connection of p, with the same
// timeouts, error classes and timestamps as run.
func (c *Client) runRaw(parent context.Context, s *stream, body []byte, p *rawPool, ids wireIDs) {
	ctx, wd, done := c.exchangeContext(parent)
	defer done()
	s.sent = time.Now()
	rc, err := p.get(ctx, c.dial)
	if err != nil {
		s.setError(c.classifyTransport(parent, ctx, err, false))
		return
	}
	wd.armFirstByte()
	// Cancellation (the caller's, a timeout, the drain after [DONE]) interrupts blocked
	// reads and writes; such a connection is never reused.
	// An epoll reader replaces rc.conn by a new net.Conn on the same socket after the
	// body; by then stop has run or the connection is never reused. When it gives the
	// socket back unread, the hook moves to the new conn (below).
	conn := rc.conn
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(longAgo) })
	reuse := false
	defer func() {
		if rc == nil {
			return // handed to a background drain
		}
		if stop() && reuse {
			p.put(rc)
		} else {
			p.discard(rc)
		}
	}()
	// SentNs is taken as the write starts: the write of a request to a loopback or LAN
	// socket returns within microseconds, but the goroutine may be descheduled before it
	// could take a time afterwards, which would shorten the measured TTFT.
	s.sent = time.Now()
	s.req, err = p.writeRequest(rc, s.req, body, ids)
	if err != nil {
		s.setError(c.classifyTransport(parent, ctx, err, false))
		return
	}
	head, err := rc.readHead()
	if err != nil {
		s.setError(c.classifyTransport(parent, ctx, err, false))
		return
	}
	wd.armIdle(time.Now())
	s.rec.HTTPStatus = head.status
	src := &s.raw
	src.init(rc, head)
	if head.status < 200 || head.status > 299 {
		s.rec.RetryAfterMs = retryAfterMs(head.status, head.retryAfter, time.Now())
		c.readHTTPError(parent, ctx, s, head.status, src, wd)
	} else if !isJSON(head.contentType) && c.readStreamEpoll(parent, ctx, s, src, wd) {
		// read by an epoll reader (client_epoll_linux.go)
	} else {
		if rc.conn != conn {
			// An epoll reader gave the socket back as a new conn without reading it:
			// the cancel hook moves to that conn (when it already ran, the new conn is
			// interrupted at once and never reused).
			if nc := rc.conn; stop() {
				stop = context.AfterFunc(ctx, func() { _ = nc.SetDeadline(longAgo) })
			} else {
				_ = nc.SetDeadline(longAgo) // the hook ran: the context is done
				stop = func() bool { return false }
			}
		}
		c.readStream(parent, ctx, s, head.contentType, src, wd)
	}
	if s.done && !src.eof {
		// The record is final at [DONE]: end the body from what is buffered, or leave
		// the rest to a background drain so the caller is not held up.
		if !src.endBuffered() {
			if stop() {
				waitDrain(c.drainRaw(p, rc, *src, !head.close))
			} else {
				p.discard(rc)
			}
			rc, src.rc = nil, nil
			return
		}
	}
	reuse = src.eof && !head.close && rc.r == rc.w && (head.chunked || rawClean(s, head))
	src.rc = nil
}

// rawClean reports whether a response framed by its Content-Length left no doubt: a 2xx
// stream that ended cleanly (a declared length may be wrong; client_doubt.go).
func rawClean(s *stream, h rawHead) bool {
	return h.status >= 200 && h.status <= 299 && s.cleanEnd()
}

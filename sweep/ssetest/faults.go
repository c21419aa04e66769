package ssetest

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Fault is how a FaultServer answers one chat completion request.
type Fault string

// The faults a FaultServer can answer with. Every answer is written straight to the
// TCP connection (one write per piece, TCP_NODELAY), so the bytes on the wire are
// exactly those described.
const (
	// FaultNone is a healthy chunked SSE answer: Tokens content events ITL apart, a
	// finish_reason "length" chunk with usage, then [DONE]; keep-alive.
	FaultNone Fault = "healthy"
	// FaultReset writes the headers and two content events, then resets the
	// connection (SO_LINGER 0: the client reads ECONNRESET).
	FaultReset Fault = "reset"
	// FaultTooMany is HTTP 429 with Retry-After: 1 and a JSON error body; keep-alive.
	FaultTooMany Fault = "429"
	// FaultUnavailable is HTTP 503 with a JSON error body and no Retry-After; keep-alive.
	FaultUnavailable Fault = "503"
	// FaultInBand is a 200 stream with one content event and then an OpenAI error
	// object ({"error":{"message":…}}) before [DONE].
	FaultInBand Fault = "in_band"
	// FaultTruncate writes the headers, two content events and half a chunk, then
	// closes the connection normally (FIN): the stream ends mid-chunk.
	FaultTruncate Fault = "truncate"
	// FaultHang writes the headers and then nothing until the client goes away.
	FaultHang Fault = "hang"
	// FaultMidStreamHang writes the headers and two content events, then nothing until
	// the client goes away: the first token came (TTFT exact), the answer never ends.
	FaultMidStreamHang Fault = "mid_stream_hang"
	// FaultSlowDrip is the healthy answer written DripBytes bytes at a time, DripGap
	// apart.
	FaultSlowDrip Fault = "slow_drip"
	// FaultInvalidUTF8 is the healthy answer with invalid UTF-8 bytes (0xff 0xfe)
	// inside every content string.
	FaultInvalidUTF8 Fault = "invalid_utf8"
	// FaultInvalidUTF8Error is FaultInBand whose error message holds invalid UTF-8.
	FaultInvalidUTF8Error Fault = "invalid_utf8_error"
	// FaultHugeEvent is a 200 stream whose second event is one content chunk of
	// HugeEventBytes bytes (written in 64 KiB pieces), then the healthy ending.
	FaultHugeEvent Fault = "huge_event"
	// FaultGarbage is a 200 text/event-stream answer whose Content-Length body is
	// 4 KiB of random bytes (fixed seed): no SSE at all.
	FaultGarbage Fault = "garbage"
	// FaultShortLength is HTTP 400 whose Content-Length counts only the first 16
	// bytes of its JSON error body; the rest of the body follows 10 ms later on the
	// same keep-alive connection, where a client that trusts the header reads it as
	// the start of its next response.
	FaultShortLength Fault = "short_length"
	// FaultHTTP10 is an HTTP/1.0 200 answer without Content-Length or chunking: the
	// body ends when the server closes the connection.
	FaultHTTP10 Fault = "http10"
	// FaultEndless is a 200 stream of EndlessEventBytes-sized content events, one per
	// millisecond, that never ends until the client goes away.
	FaultEndless Fault = "endless"
)

// Sizes of the large answers.
const (
	// HugeEventBytes is FaultHugeEvent's event size: 20 MB (decimal).
	HugeEventBytes = 20_000_000
	// EndlessEventBytes is the content size of each FaultEndless event (64 MiB/s).
	EndlessEventBytes = 64 << 10
)

// FaultConfig scripts a FaultServer.
type FaultConfig struct {
	// Script picks the answer to the n-th load request (from 0; the preflight probe,
	// the first chat completion request, is always answered healthy and not counted);
	// since is the time since the first load request arrived. nil means FaultNone.
	Script func(n int, since time.Duration) Fault
	// Tokens is a healthy answer's content events (0 means 8); ITL the gap between
	// them (0 means 5 ms).
	Tokens int
	ITL    time.Duration
	// DripBytes and DripGap pace FaultSlowDrip (0 means 16 bytes every 3 ms: a
	// healthy answer takes about 0.3 s).
	DripBytes int
	DripGap   time.Duration
	// OutageAfter > 0 closes the listener and every connection once the OutageAfter-th
	// load request has been answered, and reopens the listener on the same port
	// OutageFor later. Answers in progress finish first; connections waiting for a
	// request are closed at once (the client's next connect is refused).
	OutageAfter int
	OutageFor   time.Duration
}

// FaultServer is a scripted OpenAI-compatible chat server on 127.0.0.1 over a raw
// TCP listener: it parses requests with net/http's reader and writes every answer
// byte by byte as its Fault says, and counts what it received.
type FaultServer struct {
	// URL is the OpenAI-style base URL "http://127.0.0.1:PORT/v1"; Addr the host:port.
	URL, Addr string

	cfg FaultConfig

	mu      sync.Mutex
	ln      net.Listener
	conns   map[net.Conn]bool // open connections: true while an answer is being written
	closed  bool
	down    bool // in an outage: connections close after their answer
	probed  bool
	first   time.Time
	n       int
	counts  map[Fault]int
	outages int
	wg      sync.WaitGroup
}

// NewFaultServer starts a FaultServer; it fails only when no loopback listener can be
// opened.
func NewFaultServer(cfg FaultConfig) (*FaultServer, error) {
	if cfg.Tokens <= 0 {
		cfg.Tokens = 8
	}
	if cfg.ITL <= 0 {
		cfg.ITL = 5 * time.Millisecond
	}
	if cfg.DripBytes <= 0 {
		cfg.DripBytes = 16
	}
	if cfg.DripGap <= 0 {
		cfg.DripGap = 3 * time.Millisecond
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("ssetest: fault server listen: %w", err)
	}
	s := &FaultServer{cfg: cfg, ln: ln, Addr: ln.Addr().String(), conns: map[net.Conn]bool{},
		counts: map[Fault]int{}}
	s.URL = "http://" + s.Addr + "/v1"
	s.wg.Add(1)
	go s.accept(ln)
	return s, nil
}

// Counts returns how many load requests were answered with each fault (the
// preflight probe excluded).
func (s *FaultServer) Counts() map[Fault]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[Fault]int, len(s.counts))
	for f, c := range s.counts {
		out[f] = c
	}
	return out
}

// Requests is the number of load requests received (the preflight probe excluded).
func (s *FaultServer) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n
}

// Outages is how many listener outages happened (0 or 1).
func (s *FaultServer) Outages() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.outages
}

// Close stops the server: the listener and every connection close, and Close waits
// for the connection handlers to return.
func (s *FaultServer) Close() {
	s.mu.Lock()
	s.closed = true
	if s.ln != nil {
		_ = s.ln.Close()
	}
	for c := range s.conns {
		_ = c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
}

func (s *FaultServer) accept(ln net.Listener) {
	defer s.wg.Done()
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			_ = c.Close()
			return
		}
		s.conns[c] = false
		s.wg.Add(1)
		s.mu.Unlock()
		go s.serveConn(c)
	}
}

// serveConn answers requests on one connection until it closes or an answer ends it.
func (s *FaultServer) serveConn(c net.Conn) {
	defer s.wg.Done()
	defer func() {
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
		_ = c.Close()
	}()
	br := bufio.NewReader(c)
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		_, _ = io.Copy(io.Discard, req.Body)
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			return
		}
		s.conns[c] = true
		s.mu.Unlock()
		keep := s.answer(c, req)
		s.mu.Lock()
		s.conns[c] = false
		keep = keep && !req.Close && !s.down && !s.closed
		s.mu.Unlock()
		if !keep {
			return
		}
	}
}

// answer writes the answer to req; false when the connection must close after it.
func (s *FaultServer) answer(c net.Conn, req *http.Request) bool {
	if req.Method == http.MethodGet && strings.HasSuffix(req.URL.Path, "/models") {
		body := `{"object":"list","data":[{"id":"fault","object":"model","owned_by":"ssetest"}]}`
		return writeAll(c, fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body))
	}
	if req.Method != http.MethodPost || !strings.HasSuffix(req.URL.Path, "/chat/completions") {
		return writeAll(c, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
	}
	f, n := s.next()
	keep := s.write(c, f)
	if s.cfg.OutageAfter > 0 && n == s.cfg.OutageAfter-1 {
		go s.outage()
	}
	return keep
}

// next picks and counts the fault of the request that just arrived; n is its load
// index (-1 for the probe).
func (s *FaultServer) next() (Fault, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.probed {
		s.probed = true
		return FaultNone, -1
	}
	now := time.Now()
	if s.n == 0 {
		s.first = now
	}
	n := s.n
	s.n++
	f := FaultNone
	if s.cfg.Script != nil {
		f = s.cfg.Script(n, now.Sub(s.first))
	}
	s.counts[f]++
	return f, n
}

// outage closes the listener and the idle connections, waits OutageFor and listens on
// the same address again.
func (s *FaultServer) outage() {
	s.mu.Lock()
	if s.closed || s.down {
		s.mu.Unlock()
		return
	}
	s.down = true
	s.outages++
	_ = s.ln.Close()
	s.ln = nil
	for c, busy := range s.conns {
		if !busy {
			_ = c.Close()
		}
	}
	s.mu.Unlock()
	time.Sleep(s.cfg.OutageFor)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	ln, err := net.Listen("tcp", s.Addr)
	if err != nil {
		return // the port was taken meanwhile: the server stays down
	}
	s.ln, s.down = ln, false
	s.wg.Add(1)
	go s.accept(ln)
}

// Pieces of the answers.
const (
	sseHeadChunked = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nTransfer-Encoding: chunked\r\n\r\n"
	tokenChunk     = `{"id":"f","object":"chat.completion.chunk","model":"fault","choices":[{"index":0,"delta":{"content":" tok"},"finish_reason":null}]}`
	badUTF8Chunk   = "{\"id\":\"f\",\"object\":\"chat.completion.chunk\",\"model\":\"fault\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\" t\xff\xfek\"},\"finish_reason\":null}]}"
	inBandError    = `{"error":{"message":"internal server error: the engine died","type":"server_error","code":500}}`
	badUTF8Error   = "{\"error\":{\"message\":\"engine \xff\xfe failed\",\"type\":\"server_error\",\"code\":500}}"
)

// finishChunk is the last chunk of a healthy answer: finish_reason and usage.
func finishChunk(tokens int) string {
	return fmt.Sprintf(`{"id":"f","object":"chat.completion.chunk","model":"fault","choices":[{"index":0,"delta":{},"finish_reason":"length"}],"usage":{"prompt_tokens":16,"completion_tokens":%d,"total_tokens":%d}}`,
		tokens, 16+tokens)
}

// chunk frames data as one HTTP/1.1 chunk.
func chunk(data string) string { return fmt.Sprintf("%x\r\n%s\r\n", len(data), data) }

// event is one SSE event holding data.
func event(data string) string { return "data: " + data + "\n\n" }

// healthyEnd is the finish chunk, [DONE] and the terminating chunk.
func healthyEnd(tokens int) string {
	return chunk(event(finishChunk(tokens))) + chunk(event("[DONE]")) + "0\r\n\r\n"
}

// write writes fault f's answer; false when the connection must close after it.
func (s *FaultServer) write(c net.Conn, f Fault) bool {
	tokens := s.cfg.Tokens
	switch f {
	case FaultReset:
		if !writeAll(c, sseHeadChunked+chunk(event(tokenChunk))+chunk(event(tokenChunk))) {
			return false
		}
		if tc, ok := c.(*net.TCPConn); ok {
			_ = tc.SetLinger(0)
		}
		return false
	case FaultTooMany:
		return writeError(c, "429 Too Many Requests", "Retry-After: 1\r\n",
			`{"error":{"message":"rate limit exceeded","type":"rate_limit_error"}}`)
	case FaultUnavailable:
		return writeError(c, "503 Service Unavailable", "",
			`{"error":{"message":"the engine is overloaded","type":"server_error"}}`)
	case FaultInBand, FaultInvalidUTF8Error:
		msg := inBandError
		if f == FaultInvalidUTF8Error {
			msg = badUTF8Error
		}
		return writeAll(c, sseHeadChunked+chunk(event(tokenChunk))+chunk(event(msg))+
			chunk(event("[DONE]"))+"0\r\n\r\n")
	case FaultTruncate:
		half := chunk(event(tokenChunk))
		writeAll(c, sseHeadChunked+chunk(event(tokenChunk))+chunk(event(tokenChunk))+half[:len(half)/2])
		return false
	case FaultHang:
		if writeAll(c, sseHeadChunked) {
			_, _ = io.Copy(io.Discard, c) // until the client (or Close) ends the connection
		}
		return false
	case FaultMidStreamHang:
		if writeAll(c, sseHeadChunked+chunk(event(tokenChunk))+chunk(event(tokenChunk))) {
			_, _ = io.Copy(io.Discard, c) // until the client (or Close) ends the connection
		}
		return false
	case FaultSlowDrip:
		return s.drip(c, s.healthyBody(tokenChunk))
	case FaultInvalidUTF8:
		return s.paced(c, badUTF8Chunk)
	case FaultHugeEvent:
		return writeHuge(c, tokens)
	case FaultGarbage:
		return writeGarbage(c)
	case FaultShortLength:
		body := `{"error":{"message":"bad request: the prompt is malformed","type":"invalid_request_error"}}`
		if !writeAll(c, fmt.Sprintf("HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: 16\r\n\r\n%s", body[:16])) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
		return writeAll(c, body[16:])
	case FaultHTTP10:
		head := "HTTP/1.0 200 OK\r\nContent-Type: text/event-stream\r\n\r\n"
		var b strings.Builder
		for range tokens {
			b.WriteString(event(tokenChunk))
		}
		b.WriteString(event(finishChunk(tokens)) + event("[DONE]"))
		writeAll(c, head+b.String())
		return false
	case FaultEndless:
		return writeEndless(c)
	default:
		return s.paced(c, tokenChunk)
	}
}

// healthyBody is the whole chunked body of a healthy answer with content events ev.
func (s *FaultServer) healthyBody(ev string) string {
	var b strings.Builder
	b.WriteString(sseHeadChunked)
	for range s.cfg.Tokens {
		b.WriteString(chunk(event(ev)))
	}
	b.WriteString(healthyEnd(s.cfg.Tokens))
	return b.String()
}

// paced writes a healthy answer with content events ev, one every ITL.
func (s *FaultServer) paced(c net.Conn, ev string) bool {
	if !writeAll(c, sseHeadChunked) {
		return false
	}
	start := time.Now()
	for i := range s.cfg.Tokens {
		sleepUntil(start.Add(time.Duration(i+1) * s.cfg.ITL))
		if !writeAll(c, chunk(event(ev))) {
			return false
		}
	}
	return writeAll(c, healthyEnd(s.cfg.Tokens))
}

// drip writes all of answer DripBytes bytes at a time, DripGap apart.
func (s *FaultServer) drip(c net.Conn, answer string) bool {
	start := time.Now()
	for i, k := 0, 0; i < len(answer); i, k = i+s.cfg.DripBytes, k+1 {
		sleepUntil(start.Add(time.Duration(k) * s.cfg.DripGap))
		if !writeAll(c, answer[i:min(i+s.cfg.DripBytes, len(answer))]) {
			return false
		}
	}
	return true
}

// writeError writes a JSON error answer with a correct Content-Length.
func writeError(c net.Conn, status, extra, body string) bool {
	return writeAll(c, fmt.Sprintf("HTTP/1.1 %s\r\nContent-Type: application/json\r\n%sContent-Length: %d\r\n\r\n%s",
		status, extra, len(body), body))
}

// writeHuge writes one content event of HugeEventBytes between a normal first event
// and the healthy ending.
func writeHuge(c net.Conn, tokens int) bool {
	const prefix = `{"id":"f","object":"chat.completion.chunk","model":"fault","choices":[{"index":0,"delta":{"content":"`
	const suffix = `"},"finish_reason":null}]}`
	fill := HugeEventBytes - len("data: ") - len(prefix) - len(suffix) - len("\n\n")
	if !writeAll(c, sseHeadChunked+chunk(event(tokenChunk))) {
		return false
	}
	piece := strings.Repeat("x", 64<<10)
	if !writeAll(c, fmt.Sprintf("%x\r\ndata: %s", HugeEventBytes, prefix)) {
		return false
	}
	for left := fill; left > 0; left -= len(piece) {
		if !writeAll(c, piece[:min(left, len(piece))]) {
			return false
		}
	}
	return writeAll(c, suffix+"\n\n\r\n"+healthyEnd(tokens))
}

// writeGarbage writes a 200 text/event-stream answer of 4 KiB random bytes.
func writeGarbage(c net.Conn) bool {
	r := rand.New(rand.NewPCG(14, 14))
	body := make([]byte, 4<<10)
	for i := range body {
		body[i] = byte(r.UintN(256))
	}
	return writeAll(c, fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: %d\r\n\r\n%s", len(body), body))
}

// writeEndless streams EndlessEventBytes content events, one per millisecond, until a
// write fails.
func writeEndless(c net.Conn) bool {
	ev := chunk(event(`{"id":"f","object":"chat.completion.chunk","model":"fault","choices":[{"index":0,"delta":{"content":"` +
		strings.Repeat("y", EndlessEventBytes) + `"},"finish_reason":null}]}`))
	if !writeAll(c, sseHeadChunked) {
		return false
	}
	start := time.Now()
	for k := 1; ; k++ {
		sleepUntil(start.Add(time.Duration(k) * time.Millisecond))
		if !writeAll(c, ev) {
			return false
		}
	}
}

// writeAll writes s to c; false when the write failed (the client went away).
func writeAll(c net.Conn, s string) bool {
	_, err := io.WriteString(c, s)
	return err == nil
}

// Package ssetest is a scripted server-sent-events server on 127.0.0.1 for tests: it
// replays byte-exact response bodies, written step by step with timed delays and a
// flush after each step, and records its own send timestamps so a client's
// measurements can be checked against what was actually sent. FIFO (fifo.go) is a
// queueing server of known capacity; FaultServer (faults.go) answers over a raw TCP
// listener with scripted faults (resets, 429/503, hangs, garbage, framing lies,
// HTTP/1.0, outages, endless streams) and counts what it answered.
package ssetest

import (
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// End says how a scripted response ends after its last step.
type End int

const (
	// EndNormal finishes the response properly (the terminating chunk is sent).
	EndNormal End = iota
	// EndAbort closes the TCP connection abruptly, without the terminating chunk.
	EndAbort
	// EndHang keeps the response open until the client goes away.
	EndHang
)

// Step is one write of a scripted response body.
type Step struct {
	// Delay is the wait before this step, counted from the previous step (or, for the
	// first step, from the headers). Steps are scheduled on an absolute timeline from
	// the request's arrival, so sleeping never accumulates drift.
	Delay time.Duration
	// Data is written exactly as given, then flushed.
	Data []byte
}

// Script is one scripted response.
type Script struct {
	// Status is the HTTP status (0 means 200).
	Status int
	// ContentType is the Content-Type header ("" means "text/event-stream").
	ContentType string
	// HeaderDelay is the wait between the request's arrival and the headers.
	HeaderDelay time.Duration
	// Steps are written in order.
	Steps []Step
	// End says how the response ends.
	End End
	// Forever, when non-empty, is written and flushed over and over after Steps, every
	// ForeverGap, until the client goes away: a stream that never ends (End is then
	// not reached).
	Forever    []byte
	ForeverGap time.Duration
}

// Sent is the server's own record of one response. Times are taken with time.Now
// (they carry the monotonic clock) right after each write was flushed.
type Sent struct {
	// Received is when the handler started (the request had been read).
	Received time.Time
	// Headers is when the headers were flushed.
	Headers time.Time
	// Steps holds when each step was flushed, index-aligned with Script.Steps.
	Steps []time.Time
	// Writing holds when each step's write began: the step went out within
	// [Writing[i], Steps[i]].
	Writing []time.Time
	// Body is the request body; Header the request headers; Path the URL path;
	// RemoteAddr the client's address (the same for requests on a reused connection).
	Body       []byte
	Header     http.Header
	Path       string
	RemoteAddr string
	// RequestID is the request's X-Request-Id header ("" when it had none), as a
	// server's log line shows it (vLLM logs it as the request's id).
	RequestID string
}

// Server is a running scripted server.
type Server struct {
	// URL is the server's OpenAI-style base URL, "http://127.0.0.1:PORT/v1".
	URL string
	// Addr is the listener's host:port.
	Addr string

	script func(n int, r *http.Request, body []byte) Script
	srv    *http.Server
	ln     net.Listener
	mu     sync.Mutex
	sent   []Sent
	n      int
	// written counts the responses whose steps were all written (or that ended early).
	written int
	done    chan struct{}
}

// New starts a server that answers the n-th request (from 0) with script(n, r, body).
// It fails only when no loopback listener can be opened.
func New(script func(n int, r *http.Request, body []byte) Script) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Server{script: script, ln: ln, Addr: ln.Addr().String(), done: make(chan struct{})}
	s.URL = "http://" + s.Addr + "/v1"
	s.srv = &http.Server{Handler: http.HandlerFunc(s.handle), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(s.done)
		_ = s.srv.Serve(ln)
	}()
	return s, nil
}

// NewScripts starts a server that answers the n-th request with scripts[n % len].
func NewScripts(scripts ...Script) (*Server, error) {
	return New(func(n int, _ *http.Request, _ []byte) Script {
		if len(scripts) == 0 {
			return Script{}
		}
		return scripts[n%len(scripts)]
	})
}

// Sent returns a copy of the records of the responses sent so far, in arrival order.
func (s *Server) Sent() []Sent {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Sent(nil), s.sent...)
}

// WaitWritten waits until n responses have written all their steps (or ended early)
// and returns Sent; after timeout it returns what there is. A client may finish reading
// a response before the server took the time of its last write: tests that check
// timings against Sent call this rather than Sent.
func (s *Server) WaitWritten(n int, timeout time.Duration) []Sent {
	deadline := time.Now().Add(timeout)
	for {
		s.mu.Lock()
		w := s.written
		s.mu.Unlock()
		if w >= n || !time.Now().Before(deadline) {
			return s.Sent()
		}
		time.Sleep(time.Millisecond)
	}
}

// Close stops the server, closing open connections.
func (s *Server) Close() {
	_ = s.srv.Close()
	<-s.done
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	received := time.Now()
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	n := s.n
	s.n++
	idx := len(s.sent)
	rec := Sent{Received: received, Body: body, Header: r.Header.Clone(), Path: r.URL.Path,
		RemoteAddr: r.RemoteAddr, RequestID: r.Header.Get("X-Request-Id")}
	s.sent = append(s.sent, rec)
	s.mu.Unlock()

	sc := s.script(n, r, body)
	marked := false
	markWritten := func() {
		if marked {
			return
		}
		marked = true
		s.mu.Lock()
		s.sent[idx] = rec
		s.written++
		s.mu.Unlock()
	}
	defer func() {
		markWritten()
		s.mu.Lock()
		s.sent[idx] = rec
		s.mu.Unlock()
	}()
	rc := http.NewResponseController(w)
	ct := sc.ContentType
	if ct == "" {
		ct = "text/event-stream"
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("Cache-Control", "no-cache")
	status := sc.Status
	if status == 0 {
		status = http.StatusOK
	}
	at := received.Add(sc.HeaderDelay)
	sleepUntil(at)
	w.WriteHeader(status)
	if rc.Flush() != nil {
		return
	}
	rec.Headers = time.Now()
	for _, st := range sc.Steps {
		at = at.Add(st.Delay)
		sleepUntil(at)
		rec.Writing = append(rec.Writing, time.Now())
		if _, err := w.Write(st.Data); err != nil {
			return
		}
		if rc.Flush() != nil {
			return
		}
		rec.Steps = append(rec.Steps, time.Now())
	}
	markWritten()
	for len(sc.Forever) > 0 {
		if sc.ForeverGap > 0 {
			time.Sleep(sc.ForeverGap)
		}
		if _, err := w.Write(sc.Forever); err != nil {
			return
		}
		if rc.Flush() != nil {
			return
		}
	}
	switch sc.End {
	case EndAbort:
		// net/http closes the connection without the terminating chunk; the deferred
		// bookkeeping still runs.
		panic(http.ErrAbortHandler)
	case EndHang:
		<-r.Context().Done()
	}
}

// sleepUntil sleeps until t (on the monotonic clock).
func sleepUntil(t time.Time) {
	if d := time.Until(t); d > 0 {
		time.Sleep(d)
	}
}

// Events joins SSE "data:" payloads into a body, each as "data: P\n\n".
func Events(payloads ...string) []byte {
	var b strings.Builder
	for _, p := range payloads {
		b.WriteString("data: ")
		b.WriteString(p)
		b.WriteString("\n\n")
	}
	return []byte(b.String())
}

// Split cuts body into one step per piece of at most size bytes, the first after
// first and the others each after gap.
func Split(body []byte, size int, first, gap time.Duration) []Step {
	if size < 1 {
		size = 1
	}
	var steps []Step
	for i := 0; i < len(body); i += size {
		j := min(i+size, len(body))
		d := gap
		if i == 0 {
			d = first
		}
		steps = append(steps, Step{Delay: d, Data: body[i:j]})
	}
	return steps
}

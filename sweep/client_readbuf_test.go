package sweep

import (
	"context"
	"strings"
	"testing"

	"github.com/llmcap/llmcap/rundir"
	"github.com/llmcap/llmcap/sweep/ssetest"
)

// idleReadBufLen runs one exchange against a server streaming body in steps of step
// bytes and returns the read buffer length of the raw connection it left idle.
func idleReadBufLen(t *testing.T, body []byte, step int) int {
	t.Helper()
	srv, err := ssetest.NewScripts(ssetest.Script{Steps: ssetest.Split(body, step, 0, 0)})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	c := NewClient(ClientConfig{BaseURL: srv.URL})
	defer c.CloseIdleConnections()
	var rec rundir.Record
	c.Do(context.Background(), &Request{}, &rec)
	if !rec.OK() {
		t.Fatalf("exchange failed: %s %s", rec.ErrorClass, rec.Error)
	}
	waitIdleConn(t, c)
	p := c.rawPool()
	if p == nil {
		t.Fatal("no raw pool for an http:// target")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.idle) != 1 {
		t.Fatalf("%d idle connections, want 1", len(p.idle))
	}
	return len(p.idle[0].buf)
}

// TestRawReadBufferStartsSmall: a stream of small events keeps the raw connection's
// first 4 KiB read buffer (20,000 open streams hold 4 KiB each, not 16).
func TestRawReadBufferStartsSmall(t *testing.T) {
	body := ssetest.Events(chatContent("one"), chatContent(" two"), chatFinish("stop"), "[DONE]")
	if n := idleReadBufLen(t, body, 64); n != rawReadBufStart {
		t.Errorf("read buffer %d bytes after small events, want %d", n, rawReadBufStart)
	}
}

// TestRawReadBufferGrowsWhenFull: reads that fill the buffer (a 200 KiB event arriving
// in 64 KiB segments) double it up to rawReadBufSize, and the answer is intact.
func TestRawReadBufferGrowsWhenFull(t *testing.T) {
	text := strings.Repeat("big event ", 20<<10)
	body := ssetest.Events(chatContent(text), chatFinish("stop"), "[DONE]")
	if n := idleReadBufLen(t, body, 64<<10); n != rawReadBufSize {
		t.Errorf("read buffer %d bytes after a 200 KiB event, want %d", n, rawReadBufSize)
	}
}

// TestStreamNetBufLazy: a stream read on the raw path never makes the 4 KiB buffer
// that only the net/http path reads into; netBuf makes it on first use.
func TestStreamNetBufLazy(t *testing.T) {
	s := newStream(NewClient(ClientConfig{BaseURL: "http://127.0.0.1:1"}))
	if s.buf != nil {
		t.Fatalf("new stream holds a %d-byte buffer", len(s.buf))
	}
	if b := s.netBuf(); len(b) != streamBufSize || &s.netBuf()[0] != &b[0] {
		t.Errorf("netBuf: %d bytes (want %d), or a new buffer on each call", len(b), streamBufSize)
	}
}

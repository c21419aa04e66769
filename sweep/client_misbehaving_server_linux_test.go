//go:build linux

package sweep

import (
	"context"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/llmcap/llmcap/rundir"
)

// misbehaviour is one way a server answers a request badly (or oddly but legally): the
// raw response it writes to request n, and what the client must record.
type misbehaviour struct {
	name    string
	respond func(n int, conn net.Conn) bool
	cfg     ClientConfig
	cancel  time.Duration // cancel the request's context this long after it starts
	class   string        // "" = ok
	status  int
	answer  string // the ok answer; for an error, the content read before it
	tokens  int
	errText string // a substring of Record.Error
	ttft    bool
	// conns is how many connections three sequential requests take (0: not checked).
	conns int64
	// watched: the body outlasts its head, so the epoll reader must read it.
	watched bool
}

// tokenEvents is a complete chat stream answering "<tag>0 <tag>1 ... " in n events.
func tokenEvents(tag string, n int) string {
	p := []string{chatRole()}
	for i := range n {
		p = append(p, chatContent(fmt.Sprintf("%s%d ", tag, i)))
	}
	p = append(p, chatFinish("stop"), usageChunk(3, n), "[DONE]")
	return string(sseEvents(p...))
}

func tokenAnswer(tag string, n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%s%d ", tag, i)
	}
	return b.String()
}

// writeChunk writes one chunk of a chunked body.
func writeChunk(conn net.Conn, b string) error {
	_, err := fmt.Fprintf(conn, "%x\r\n%s\r\n", len(b), b)
	return err
}

const chunkedHead = sseHead + "Transfer-Encoding: chunked\r\n\r\n"

func misbehaviours() []misbehaviour {
	ev := tokenEvents("t", 4)
	giant := strings.Repeat("g", 3<<20)
	return []misbehaviour{
		{name: "stalls mid-stream", watched: true, cfg: ClientConfig{IdleTimeout: 150 * time.Millisecond},
			respond: func(_ int, conn net.Conn) bool {
				_, _ = io.WriteString(conn, chunkedHead)
				_ = writeChunk(conn, string(sseEvents(chatRole(), chatContent("a"))))
				time.Sleep(600 * time.Millisecond)
				return false
			}, class: rundir.ErrTimeoutIdle, status: 200, answer: "a", tokens: 1, ttft: true,
			errText: "idle"},
		{name: "closes mid-event",
			respond: func(_ int, conn net.Conn) bool {
				_, _ = io.WriteString(conn, chunkedHead)
				_ = writeChunk(conn, string(sseEvents(chatRole(), chatContent("a")))+`data: {"choices":[{"delta":{"cont`)
				return false
			}, class: rundir.ErrStreamTruncated, status: 200, answer: "a", tokens: 1, ttft: true,
			errText: "unexpected EOF"},
		{name: "closes mid-event, close-delimited",
			respond: func(_ int, conn net.Conn) bool {
				_, _ = io.WriteString(conn, sseHead+"\r\n"+string(sseEvents(chatRole(), chatContent("a")))+`data: {"choices":[{"delta":{"cont`)
				return false
			}, class: rundir.ErrStreamTruncated, status: 200, answer: "a", tokens: 1, ttft: true,
			errText: "without finish_reason"},
		{name: "giant event", watched: true,
			respond: func(_ int, conn net.Conn) bool {
				_, _ = io.WriteString(conn, chunkedHead)
				_ = writeChunk(conn, string(sseEvents(chatRole(), chatContent(giant))))
				_ = writeChunk(conn, string(sseEvents(chatContent("z"), chatFinish("stop"), "[DONE]")))
				_, err := io.WriteString(conn, "0\r\n\r\n")
				return err == nil
			}, status: 200, answer: giant[:AnswerPrefixBytes], tokens: 2, ttft: true, conns: 1},
		{name: "byte by byte", watched: true,
			respond: func(_ int, conn net.Conn) bool {
				resp := chunkedHead + chunked(ev, 11)
				for i := range len(resp) {
					if _, err := io.WriteString(conn, resp[i:i+1]); err != nil {
						return false
					}
					if i%7 == 0 {
						time.Sleep(20 * time.Microsecond)
					}
				}
				return true
			}, status: 200, answer: tokenAnswer("t", 4), tokens: 4, ttft: true, conns: 1},
		{name: "keep-alive, each request its own answer",
			respond: func(n int, conn net.Conn) bool {
				_, _ = io.WriteString(conn, chunkedHead)
				_ = writeChunk(conn, tokenEvents(fmt.Sprintf("r%d-", n%1), 4))
				time.Sleep(5 * time.Millisecond) // the final chunk after the drain's inline wait
				_, err := io.WriteString(conn, "0\r\n\r\n")
				return err == nil
			}, status: 200, answer: tokenAnswer("r0-", 4), tokens: 4, ttft: true, conns: 1},
		{name: "bytes after the terminating chunk",
			respond: func(_ int, conn net.Conn) bool {
				_, _ = io.WriteString(conn, chunkedHead+chunked(ev, 64)+"HTTP/1.1 200 OK\r\nX-Junk: 1\r\n\r\n")
				return true
			}, status: 200, answer: tokenAnswer("t", 4), tokens: 4, ttft: true, conns: 3},
		{name: "bytes after the terminating chunk, later",
			respond: func(_ int, conn net.Conn) bool {
				_, _ = io.WriteString(conn, chunkedHead+chunked(ev, 64))
				time.Sleep(5 * time.Millisecond)
				_, _ = io.WriteString(conn, "junk\r\n")
				return true
			}, status: 200, answer: tokenAnswer("t", 4), tokens: 4, ttft: true, conns: 3},
		{name: "HTTP/1.0 close-delimited", watched: true,
			respond: func(_ int, conn net.Conn) bool {
				_, _ = io.WriteString(conn, "HTTP/1.0 200 OK\r\nContent-Type: text/event-stream\r\n\r\n")
				for _, l := range strings.SplitAfter(ev, "\n\n") {
					_, _ = io.WriteString(conn, l)
					time.Sleep(time.Millisecond)
				}
				return false
			}, status: 200, answer: tokenAnswer("t", 4), tokens: 4, ttft: true, conns: 3},
		// A Content-Length-framed error response is never reused (client_doubt.go): 3 connections.
		{name: "429 with a body",
			respond: func(_ int, conn net.Conn) bool {
				body := `{"error":{"message":"slow down please"}}`
				_, err := fmt.Fprintf(conn, "HTTP/1.1 429 Too Many Requests\r\nRetry-After: 2\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
				return err == nil
			}, class: rundir.ErrHTTP429, status: 429, errText: "slow down please", conns: 3},
		{name: "500 with a chunked body",
			respond: func(_ int, conn net.Conn) bool {
				_, _ = io.WriteString(conn, "HTTP/1.1 500 Internal Server Error\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n")
				_ = writeChunk(conn, "engine ")
				_ = writeChunk(conn, "exploded")
				_, err := io.WriteString(conn, "0\r\n\r\n")
				return err == nil
			}, class: rundir.ErrHTTP5xx, status: 500, errText: "engine exploded", conns: 1},
		{name: "resets mid-stream", watched: true,
			respond: func(_ int, conn net.Conn) bool {
				_, _ = io.WriteString(conn, chunkedHead)
				_ = writeChunk(conn, string(sseEvents(chatRole(), chatContent("a"))))
				time.Sleep(20 * time.Millisecond)
				_ = conn.(*net.TCPConn).SetLinger(0) // close sends RST
				return false
			}, class: rundir.ErrStreamTruncated, status: 200, answer: "a", tokens: 1, ttft: true,
			errText: "connection reset"},
		{name: "cancelled in the reader", watched: true, cancel: 80 * time.Millisecond,
			respond: func(_ int, conn net.Conn) bool {
				_, _ = io.WriteString(conn, chunkedHead)
				_ = writeChunk(conn, string(sseEvents(chatRole(), chatContent("a"))))
				time.Sleep(500 * time.Millisecond)
				return false
			}, class: rundir.ErrCancelled, status: 200, answer: "a", tokens: 1, ttft: true},
	}
}

// TestClientMisbehavingServers: each misbehaving server, scripted on raw TCP, is
// answered with the same record on the epoll reader and on the netpoller path (status,
// class, tokens, hash, finish), the class its misbehaviour calls for, and the
// connections a keep-alive client is due (three sequential requests).
func TestClientMisbehavingServers(t *testing.T) {
	defer func() { useEpollReaders = epollReadersDefault }()
	for _, m := range misbehaviours() {
		t.Run(m.name, func(t *testing.T) {
			var recs [2]rundir.Record
			for i, epoll := range []bool{true, false} {
				useEpollReaders = epoll
				srv := newRawServer(t, m.respond)
				cfg := m.cfg
				cfg.BaseURL = srv.url
				if cfg.IdleTimeout == 0 {
					cfg.IdleTimeout = 5 * time.Second
				}
				c := NewClient(cfg)
				watched := epollWatched.Load()
				for k := range 3 {
					ctx, cancel := context.WithCancel(context.Background())
					if m.cancel > 0 {
						time.AfterFunc(m.cancel, cancel)
					}
					var rec rundir.Record
					answer := c.Do(ctx, &Request{}, &rec)
					cancel()
					checkMisbehaviour(t, m, epoll, k, answer, rec)
					if k == 0 {
						recs[i] = rec
					}
					if m.conns == 1 {
						waitIdleConn(t, c)
					} else {
						time.Sleep(10 * time.Millisecond) // let a close or junk arrive
					}
				}
				c.CloseIdleConnections()
				if got := epollWatched.Load() - watched; epoll && m.watched && got != 3 || !epoll && got != 0 {
					t.Errorf("epoll=%v: %d bodies read by the epoll reader", epoll, got)
				}
				if got := srv.conns.Load(); m.conns > 0 && got != m.conns {
					t.Errorf("epoll=%v: %d connections for 3 requests, want %d", epoll, got, m.conns)
				}
			}
			a, b := recs[0], recs[1]
			if a.Status != b.Status || a.ErrorClass != b.ErrorClass || a.OutputTokens != b.OutputTokens ||
				a.OutputHash != b.OutputHash || a.FinishReason != b.FinishReason || a.HTTPStatus != b.HTTPStatus ||
				a.Chunks != b.Chunks || a.PromptTokens != b.PromptTokens || (a.TTFTMs == nil) != (b.TTFTMs == nil) {
				t.Errorf("records differ:\n epoll     %+v\n netpoller %+v", a, b)
			}
		})
	}
}

func checkMisbehaviour(t *testing.T, m misbehaviour, epoll bool, k int, answer string, rec rundir.Record) {
	t.Helper()
	where := fmt.Sprintf("epoll=%v request %d", epoll, k)
	if m.class == "" {
		if !rec.OK() || answer != m.answer || rec.OutputTokens != m.tokens || rec.FinishReason != "stop" {
			t.Fatalf("%s: answer %.40q (%d bytes) record %+v, want ok %.40q with %d tokens",
				where, answer, len(answer), rec, m.answer, m.tokens)
		}
	} else if rec.Status != rundir.StatusError || rec.ErrorClass != m.class || !strings.Contains(rec.Error, m.errText) {
		t.Fatalf("%s: status %q class %q error %q, want %q containing %q", where, rec.Status, rec.ErrorClass, rec.Error, m.class, m.errText)
	}
	if m.status == 429 && rec.RetryAfterMs != 2000 {
		t.Errorf("%s: RetryAfterMs %d, want 2000 (Retry-After: 2)", where, rec.RetryAfterMs)
	}
	if rec.HTTPStatus != m.status {
		t.Errorf("%s: HTTP status %d, want %d", where, rec.HTTPStatus, m.status)
	}
	if m.class != "" && m.status == 200 && (answer != m.answer || rec.Chunks != m.tokens) {
		t.Errorf("%s: kept answer %q chunks %d, want %q %d", where, answer, rec.Chunks, m.answer, m.tokens)
	}
	if (rec.TTFTMs != nil) != m.ttft || rec.SentNs == 0 {
		t.Errorf("%s: TTFT defined %v (want %v), SentNs %d", where, rec.TTFTMs != nil, m.ttft, rec.SentNs)
	}
	if m.ttft && rec.TTFTMs != nil && (rec.FirstTokenNs < rec.SentNs || *rec.TTFTMs > 1000) {
		t.Errorf("%s: TTFT %.2f ms first %d sent %d", where, *rec.TTFTMs, rec.FirstTokenNs, rec.SentNs)
	}
}

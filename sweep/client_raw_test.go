package sweep

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llmcap/llmcap/rundir"
)

// rawServer is a loopback HTTP/1.1 server on raw TCP: respond writes the whole
// response to request n (counted over all connections) and reports whether the
// connection stays open for the next request.
type rawServer struct {
	ln       net.Listener
	url      string
	conns    atomic.Int64 // connections accepted
	requests atomic.Int64
	active   atomic.Int64 // connections open now
	peak     atomic.Int64
	wg       sync.WaitGroup
}

func newRawServer(t *testing.T, respond func(n int, conn net.Conn) bool) *rawServer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &rawServer{ln: ln, url: "http://" + ln.Addr().String() + "/v1"}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			s.conns.Add(1)
			a := s.active.Add(1)
			for p := s.peak.Load(); a > p && !s.peak.CompareAndSwap(p, a); p = s.peak.Load() {
			}
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				defer s.active.Add(-1)
				defer conn.Close()
				br := bufio.NewReader(conn)
				for {
					if _, _, err := readBenchRequest(br); err != nil {
						return
					}
					if !respond(int(s.requests.Add(1)-1), conn) {
						return
					}
				}
			}()
		}
	}()
	t.Cleanup(func() { ln.Close(); s.wg.Wait() })
	return s
}

// okEvents is a complete two-token chat stream.
func okEvents() string {
	return string(sseEvents(chatRole(), chatContent("a"), chatContent("b"), chatFinish("stop"), usageChunk(3, 2), "[DONE]"))
}

func sseEvents(payloads ...string) []byte {
	var b strings.Builder
	for _, p := range payloads {
		b.WriteString("data: " + p + "\n\n")
	}
	return []byte(b.String())
}

// chunked frames body as chunks of at most size bytes, with a chunk extension on the
// first and a trailer after the last.
func chunked(body string, size int) string {
	var b strings.Builder
	for i := 0; i < len(body); i += size {
		j := min(i+size, len(body))
		ext := ""
		if i == 0 {
			ext = ";name=value"
		}
		fmt.Fprintf(&b, "%x%s\r\n%s\r\n", j-i, ext, body[i:j])
	}
	b.WriteString("0\r\nX-Trailer: 1\r\n\r\n")
	return b.String()
}

const sseHead = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"

func TestClientRawFraming(t *testing.T) {
	ev := okEvents()
	cases := []struct {
		name    string
		resp    string
		reuse   bool
		class   string
		status  int
		errHas  string
		answer  string
		decoded bool
		doubt   bool // the server keeps the connection, the client drops it (framing doubt)
	}{
		{"chunked", sseHead + "Transfer-Encoding: chunked\r\n\r\n" + chunked(ev, 50), true, "", 200, "", "ab", true, false},
		{"chunked one chunk", sseHead + "transfer-encoding: Chunked\r\n\r\n" + chunked(ev, 1<<20), true, "", 200, "", "ab", true, false},
		{"content-length", sseHead + fmt.Sprintf("Content-Length: %d\r\n\r\n", len(ev)) + ev, true, "", 200, "", "ab", true, false},
		{"connection close", sseHead + "Connection: close\r\n" + fmt.Sprintf("Content-Length: %d\r\n\r\n", len(ev)) + ev, false, "", 200, "", "ab", true, false},
		{"to EOF", sseHead + "\r\n" + ev, false, "", 200, "", "ab", true, false},
		{"HTTP/1.0", "HTTP/1.0 200 OK\r\nContent-Type: text/event-stream\r\n\r\n" + ev, false, "", 200, "", "ab", true, false},
		{"100 continue first", "HTTP/1.1 100 Continue\r\n\r\n" + sseHead + "Transfer-Encoding: chunked\r\n\r\n" + chunked(ev, 7), true, "", 200, "", "ab", true, false},
		{"error with length", "HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: 43\r\n\r\n" +
			`{"error":{"message":"max_tokens too large"}}`[:43], true, rundir.ErrHTTP4xx, 400, "max_tokens too large", "", false, true},
		{"error to EOF", "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\n\r\nengine overloaded", false, rundir.ErrHTTP5xx, 503, "engine overloaded", "", false, false},
		{"error chunked", "HTTP/1.1 429 Too Many Requests\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked(`{"message":"slow down"}`, 5), true, rundir.ErrHTTP429, 429, "slow down", "", false, false},
		{"closed mid-chunk", sseHead + "Transfer-Encoding: chunked\r\n\r\n" + chunked(ev, 40)[:120], false, rundir.ErrStreamTruncated, 200, "", "", false, false},
		{"closed mid-length", sseHead + fmt.Sprintf("Content-Length: %d\r\n\r\n", len(ev)+10) + ev[:len(ev)-30], false, rundir.ErrStreamTruncated, 200, "", "", false, false},
		{"bad chunk size", sseHead + "Transfer-Encoding: chunked\r\n\r\nzz\r\n", false, rundir.ErrStreamTruncated, 200, "malformed chunked", "", false, false},
		{"malformed status", "HTTP/1.1 2x0 OK\r\n\r\n", false, rundir.ErrDecode, 0, "malformed HTTP", "", false, false},
		{"not HTTP", "SSH-2.0-OpenSSH\r\n\r\n", false, rundir.ErrDecode, 0, "malformed HTTP", "", false, false},
		{"closed before response", "", false, rundir.ErrStreamTruncated, 0, "", "", false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newRawServer(t, func(_ int, conn net.Conn) bool {
				_, _ = io.WriteString(conn, tc.resp)
				return tc.reuse
			})
			c := NewClient(ClientConfig{BaseURL: srv.url, IdleTimeout: 5 * time.Second})
			defer c.CloseIdleConnections()
			if c.rawPool() == nil {
				t.Fatal("http:// target not on the raw path")
			}
			for i := 0; i < 3; i++ {
				var rec rundir.Record
				answer := c.Do(context.Background(), &Request{}, &rec)
				if rec.ErrorClass != tc.class || rec.HTTPStatus != tc.status || !strings.Contains(rec.Error, tc.errHas) {
					t.Fatalf("request %d: class %q status %d error %q; want %q %d %q", i, rec.ErrorClass, rec.HTTPStatus, rec.Error,
						tc.class, tc.status, tc.errHas)
				}
				if tc.decoded && (answer != tc.answer || rec.OutputTokens != 2 || rec.TTFTMs == nil || rec.ITLMs == nil) {
					t.Fatalf("request %d: answer %q record %+v", i, answer, rec)
				}
			}
			want := int64(3)
			if tc.reuse && !tc.doubt {
				want = 1
			}
			if got := srv.conns.Load(); got != want {
				t.Errorf("%d connections for 3 requests, want %d", got, want)
			}
		})
	}
}

// TestClientRawSplitEverywhere writes a chunked response split in two at every byte
// (a pause between the parts), and one byte per write.
func TestClientRawSplitEverywhere(t *testing.T) {
	ev := okEvents()
	resp := sseHead + "Transfer-Encoding: chunked\r\n\r\n" + chunked(ev, 37)
	var cut atomic.Int64
	srv := newRawServer(t, func(_ int, conn net.Conn) bool {
		k := int(cut.Load())
		if k < 0 { // one byte per write
			for i := range len(resp) {
				if _, err := io.WriteString(conn, resp[i:i+1]); err != nil {
					return false
				}
			}
			return true
		}
		_, _ = io.WriteString(conn, resp[:k])
		time.Sleep(200 * time.Microsecond)
		_, _ = io.WriteString(conn, resp[k:])
		return true
	})
	c := NewClient(ClientConfig{BaseURL: srv.url, IdleTimeout: 5 * time.Second})
	defer c.CloseIdleConnections()
	for k := -1; k < len(resp); k++ {
		cut.Store(int64(k))
		var rec rundir.Record
		answer := c.Do(context.Background(), &Request{}, &rec)
		if !rec.OK() || answer != "ab" || rec.OutputTokens != 2 || rec.PromptTokens != 3 || rec.FinishReason != "stop" {
			t.Fatalf("cut at %d: answer %q record %+v", k, answer, rec)
		}
		// A cut after [DONE] leaves the body's end to the background drain: on a loaded
		// machine it may still be running when Do returns.
		waitIdleConn(t, c)
	}
	if got := srv.conns.Load(); got != 1 {
		t.Errorf("%d connections for %d sequential requests, want 1 (keep-alive)", got, len(resp)+1)
	}
}

// TestClientRawStaleIdle: a server that closes an idle keep-alive connection does not
// fail the next request.
func TestClientRawStaleIdle(t *testing.T) {
	ev := okEvents()
	srv := newRawServer(t, func(_ int, conn net.Conn) bool {
		_, _ = io.WriteString(conn, sseHead+fmt.Sprintf("Content-Length: %d\r\n\r\n", len(ev))+ev)
		return false // close after the response, without saying so
	})
	c := NewClient(ClientConfig{BaseURL: srv.url})
	defer c.CloseIdleConnections()
	for i := 0; i < 3; i++ {
		var rec rundir.Record
		c.Do(context.Background(), &Request{}, &rec)
		if !rec.OK() {
			t.Fatalf("request %d: %s %s", i, rec.ErrorClass, rec.Error)
		}
		time.Sleep(20 * time.Millisecond) // let the close arrive
	}
	if got := srv.conns.Load(); got != 3 {
		t.Errorf("%d connections, want 3", got)
	}
}

// TestClientRawMaxConns: MaxConns bounds the raw pool's open connections.
func TestClientRawMaxConns(t *testing.T) {
	ev := okEvents()
	srv := newRawServer(t, func(_ int, conn net.Conn) bool {
		time.Sleep(20 * time.Millisecond)
		_, _ = io.WriteString(conn, sseHead+"Transfer-Encoding: chunked\r\n\r\n"+chunked(ev, 64))
		return true
	})
	c := NewClient(ClientConfig{BaseURL: srv.url, MaxConns: 2})
	defer c.CloseIdleConnections()
	var wg sync.WaitGroup
	var failed atomic.Int64
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var rec rundir.Record
			if c.Do(context.Background(), &Request{}, &rec); !rec.OK() {
				failed.Add(1)
			}
		}()
	}
	wg.Wait()
	if failed.Load() != 0 || srv.peak.Load() > 2 || srv.conns.Load() > 2 {
		t.Errorf("failed %d, peak %d connections, %d dialled; want 0, ≤2, ≤2", failed.Load(), srv.peak.Load(), srv.conns.Load())
	}
	// A request waiting for a slot honours its context.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	for i := 0; i < 2; i++ { // occupy both connections for 20 ms
		wg.Add(1)
		go func() {
			defer wg.Done()
			var rec rundir.Record
			c.Do(context.Background(), &Request{}, &rec)
		}()
	}
	time.Sleep(5 * time.Millisecond)
	var rec rundir.Record
	c.Do(ctx, &Request{}, &rec)
	wg.Wait()
	if rec.ErrorClass != rundir.ErrCancelled {
		t.Errorf("class %q (%s), want cancelled while waiting for a connection", rec.ErrorClass, rec.Error)
	}
}

// TestClientNetHTTPPath runs the scripted and timeout tables through net/http, the
// path https:// targets take.
func TestClientNetHTTPPath(t *testing.T) {
	useRawHTTP = false
	defer func() { useRawHTTP = true }()
	t.Run("scripted", TestClientScripted)
	t.Run("timeouts", TestClientTimeoutsAndCancel)
	t.Run("body", TestClientRequestBody)
	t.Run("redact", TestClientRedactsAPIKey)
	t.Run("json", TestClientNonStreamedJSON)
	t.Run("drain", TestClientDrainAfterDone)
}

// TestClientBodyEncoding: the pre-encoded body equals json.Marshal of the merged map
// (static fields, ExtraBody, the request's own fields winning when set).
func TestClientBodyEncoding(t *testing.T) {
	extras := []map[string]any{nil,
		{"ignore_eos": true, "stream": false, "top_k": 3, "model": "other"},
		{"seed": 7, "max_tokens": 99, "messages": "x", "prompt": "y", "zzz": []int{1}, "aaa": "<&>"}}
	reqs := []Request{{}, {MaxTokens: 5, Seed: -3, Prompt: "p <b>", Messages: []ChatMessage{{"user", "q \u2028 é"}}}}
	for _, api := range []string{"chat", "completions"} {
		for _, extra := range extras {
			c := NewClient(ClientConfig{API: api, Model: "m", Temperature: 0.7, ExtraBody: extra})
			for _, req := range reqs {
				m := maps.Clone(c.static)
				if api == "completions" {
					m["prompt"] = req.Prompt
				} else {
					msgs := req.Messages
					if msgs == nil {
						msgs = []ChatMessage{}
					}
					m["messages"] = msgs
				}
				if req.MaxTokens > 0 {
					m["max_tokens"] = req.MaxTokens
				}
				if req.Seed != 0 {
					m["seed"] = req.Seed
				}
				want, _ := json.Marshal(m)
				got, err := c.body(&req)
				if err != nil || string(got) != string(want) {
					t.Errorf("%s %v %+v:\n got %s %v\nwant %s", api, extra, req, got, err, want)
				}
			}
		}
	}
	c := NewClient(ClientConfig{ExtraBody: map[string]any{"bad": func() {}}})
	var rec rundir.Record
	c.Do(context.Background(), &Request{}, &rec)
	if rec.ErrorClass != rundir.ErrDecode || !strings.Contains(rec.Error, "encode request body") {
		t.Errorf("unencodable ExtraBody: class %q error %q", rec.ErrorClass, rec.Error)
	}
}

// waitIdleConn waits up to a second until c's raw pool holds an idle connection (on the
// net/http path, whose pool is not visible, 50 ms).
func waitIdleConn(t *testing.T, c *Client) {
	t.Helper()
	p := c.rawPool()
	if p == nil {
		time.Sleep(50 * time.Millisecond)
		return
	}
	for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Microsecond) {
		p.mu.Lock()
		n := len(p.idle)
		p.mu.Unlock()
		if n > 0 {
			return
		}
	}
	t.Errorf("no idle connection a second after the response")
}

package sweep

import (
	"context"
	"io"
	"math/rand/v2"
	"net"
	"testing"
	"time"

	"github.com/llmcap/llmcap/rundir"
	"github.com/llmcap/llmcap/sweep/ssetest"
)

// bothPaths runs f on the raw HTTP/1.1 path and on net/http.
func bothPaths(t *testing.T, f func(t *testing.T)) {
	t.Run("raw", f)
	t.Run("net_http", func(t *testing.T) {
		useRawHTTP = false
		defer func() { useRawHTTP = true }()
		f(t)
	})
}

// TestClientShortContentLengthDropsConnection: an error response whose Content-Length
// is shorter than its body (the rest arrives a moment later) is followed by OK answers
// on the same client with one connection at a time; every OK answer is recorded ok
// (the stray bytes are never read as the next response's head), on both paths.
func TestClientShortContentLengthDropsConnection(t *testing.T) {
	bothPaths(t, func(t *testing.T) {
		ev := okEvents()
		srv := newRawServer(t, func(n int, conn net.Conn) bool {
			if n%2 == 1 {
				_, _ = io.WriteString(conn, sseHead+"Transfer-Encoding: chunked\r\n\r\n"+chunked(ev, 64))
				return true
			}
			body := `{"error":{"message":"boom"}}`
			_, _ = io.WriteString(conn, "HTTP/1.1 500 Internal Server Error\r\nContent-Type: application/json\r\n"+
				"Content-Length: 10\r\n\r\n"+body[:10])
			time.Sleep(20 * time.Millisecond) // the client has read its 10 bytes and moved on
			_, _ = io.WriteString(conn, body[10:]+"\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
			return true
		})
		c := NewClient(ClientConfig{BaseURL: srv.url, MaxConns: 1, IdleTimeout: 5 * time.Second})
		defer c.CloseIdleConnections()
		for i := 0; i < 12; i++ {
			var rec rundir.Record
			answer := c.Do(context.Background(), &Request{}, &rec)
			if i%2 == 0 {
				if rec.ErrorClass != rundir.ErrHTTP5xx || rec.HTTPStatus != 500 {
					t.Fatalf("request %d: class %q status %d (%s), want http_5xx 500", i, rec.ErrorClass, rec.HTTPStatus, rec.Error)
				}
				continue
			}
			if !rec.OK() || answer != "ab" || rec.OutputTokens != 2 {
				t.Fatalf("request %d after the short Content-Length: %s %q (answer %q), want ok", i, rec.ErrorClass, rec.Error, answer)
			}
			waitIdleConn(t, c)
		}
	})
}

// TestClientCleanLengthStreamReused: a 200 stream framed by a correct Content-Length
// that ended cleanly keeps its connection on both paths (doubt is not the default).
func TestClientCleanLengthStreamReused(t *testing.T) {
	bothPaths(t, func(t *testing.T) {
		ev := okEvents()
		srv := newRawServer(t, func(_ int, conn net.Conn) bool {
			_, _ = io.WriteString(conn, sseHead+"Content-Length: "+itoa(len(ev))+"\r\n\r\n"+ev)
			return true
		})
		c := NewClient(ClientConfig{BaseURL: srv.url, MaxConns: 1})
		defer c.CloseIdleConnections()
		for i := 0; i < 3; i++ {
			var rec rundir.Record
			if c.Do(context.Background(), &Request{}, &rec); !rec.OK() {
				t.Fatalf("request %d: %s %s", i, rec.ErrorClass, rec.Error)
			}
			waitIdleConn(t, c)
		}
		if got := srv.conns.Load(); got != 1 {
			t.Errorf("%d connections for 3 clean Content-Length streams, want 1", got)
		}
	})
}

// TestClientGarbageIsDecode: a 200 text/event-stream whose body is not SSE at all is a
// decode error, not a truncated stream; a real stream cut short stays stream_truncated.
func TestClientGarbageIsDecode(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	noise := make([]byte, 8192)
	for i := range noise {
		noise[i] = byte(r.UintN(256))
	}
	cases := []struct {
		name, body, class string
	}{
		{"binary noise", string(noise), rundir.ErrDecode},
		{"html", "<html><body>502 Bad Gateway</body></html>\n", rundir.ErrDecode},
		{"one unterminated line", "Service temporarily unavailable", rundir.ErrDecode},
		{"sse cut short", "data: " + chatContent("a") + "\n\ndata: {\"choi", rundir.ErrStreamTruncated},
		{"comment then cut", ": ping\n\nda", rundir.ErrStreamTruncated},
	}
	bothPaths(t, func(t *testing.T) {
		for _, tc := range cases {
			srv, err := ssetest.NewScripts(ssetest.Script{Steps: []ssetest.Step{{Data: []byte(tc.body)}}})
			if err != nil {
				t.Fatal(err)
			}
			c := NewClient(ClientConfig{BaseURL: srv.URL})
			var rec rundir.Record
			c.Do(context.Background(), &Request{}, &rec)
			srv.Close()
			if rec.ErrorClass != tc.class || rec.HTTPStatus != 200 {
				t.Errorf("%s: class %q status %d (%s), want %q", tc.name, rec.ErrorClass, rec.HTTPStatus, rec.Error, tc.class)
			}
		}
	})
}

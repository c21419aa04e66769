//go:build linux

package sweep

import (
	"context"
	"fmt"
	"io"
	"net"
	"testing"
	"time"

	"github.com/llmcap/llmcap/rundir"
)

// TestClientEpollReaderMatchesNetpoller streams the same chunked answer (its head, then
// each event in its own write 15 ms apart) through the epoll reader and through the
// netpoller path: the records agree field by field, the timestamps are those of the
// reads (ITL ≥ 13 ms, E2E ≥ 6 gaps), the epoll reader really read the bodies, and the
// connection is kept alive across both paths (one connection for all requests).
func TestClientEpollReaderMatchesNetpoller(t *testing.T) {
	const gap = 15 * time.Millisecond
	events := [][]byte{
		sseEvents(chatRole()), sseEvents(chatContent("a")), sseEvents(chatContent("b")),
		sseEvents(chatContent("c")), sseEvents(chatContent("d")), sseEvents(chatContent("e")),
		sseEvents(chatFinish("stop"), usageChunk(3, 5), "[DONE]"),
	}
	srv := newRawServer(t, func(_ int, conn net.Conn) bool {
		if _, err := io.WriteString(conn, sseHead+"Transfer-Encoding: chunked\r\n\r\n"); err != nil {
			return false
		}
		for _, ev := range events {
			time.Sleep(gap)
			if _, err := fmt.Fprintf(conn, "%x\r\n%s\r\n", len(ev), ev); err != nil {
				return false
			}
		}
		_, err := io.WriteString(conn, "0\r\n\r\n")
		return err == nil
	})
	c := NewClient(ClientConfig{BaseURL: srv.url, IdleTimeout: 5 * time.Second})
	defer c.CloseIdleConnections()
	defer func() { useEpollReaders = epollReadersDefault }()
	var recs [2][2]rundir.Record
	var answers [2][2]string
	for i, epoll := range []bool{true, false} {
		useEpollReaders = epoll
		watched := epollWatched.Load()
		for k := range recs[i] {
			answers[i][k] = c.Do(context.Background(), &Request{}, &recs[i][k])
			waitIdleConn(t, c)
		}
		if got := epollWatched.Load() - watched; epoll && got != 2 || !epoll && got != 0 {
			t.Errorf("epoll=%v: %d bodies read by the epoll reader", epoll, got)
		}
	}
	for i := range recs {
		for k, r := range recs[i] {
			if !r.OK() || answers[i][k] != "abcde" || r.OutputTokens != 5 || r.Chunks != 5 || r.PromptTokens != 3 ||
				r.FinishReason != "stop" || r.OutputHash != recs[0][0].OutputHash || r.OutputHash == "" {
				t.Fatalf("path %d request %d: answer %q record %+v", i, k, answers[i][k], r)
			}
			if *r.ITLMs < 13 || *r.E2EMs < 6*13 || *r.TTFTMs < 13 || r.FirstTokenNs <= r.SentNs || r.EndNs <= r.FirstTokenNs {
				t.Errorf("path %d request %d: TTFT %.1f ms ITL %.1f ms E2E %.1f ms, want gaps of %v", i, k,
					*r.TTFTMs, *r.ITLMs, *r.E2EMs, gap)
			}
		}
	}
	if got := srv.conns.Load(); got != 1 {
		t.Errorf("%d connections for 4 sequential requests, want 1 (keep-alive across the epoll reader)", got)
	}
}

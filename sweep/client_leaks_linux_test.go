//go:build linux

package sweep

import (
	"context"
	"io"
	"net"
	"os"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/llmcap/llmcap/rundir"
)

// openFDs counts the process's open file descriptors.
func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	return len(ents)
}

// settled waits up to 3 s for count() to fall to at most want, and returns its last value.
func settled(want int, count func() int) int {
	n := count()
	for deadline := time.Now().Add(3 * time.Second); n > want && time.Now().Before(deadline); n = count() {
		time.Sleep(10 * time.Millisecond)
	}
	return n
}

// TestClientNoLeaks: 1,000 requests over 8 keep-alive users whose bodies the epoll
// reader reads (the body follows its head 200 µs later), then 1,000 that fail every
// way a server can (reset, close mid-event, a 500, an idle stall, a cancel) leave the
// process with the file descriptors and goroutines it had before (the idle pool
// closed), every record with its due class, and the keep-alive requests on 8
// connections.
func TestClientNoLeaks(t *testing.T) {
	ev := tokenEvents("t", 3)
	srv := newRawServer(t, func(n int, conn net.Conn) bool {
		_, _ = io.WriteString(conn, chunkedHead)
		time.Sleep(200 * time.Microsecond)
		if n < 0 || n >= 1008 { // the warm-up and the keep-alive requests
			_, err := io.WriteString(conn, chunked(ev, 48))
			return err == nil
		}
		return false
	})
	fail := newRawServer(t, func(n int, conn net.Conn) bool {
		switch n % 5 {
		case 0:
			_, _ = io.WriteString(conn, chunkedHead)
			time.Sleep(200 * time.Microsecond)
			_ = writeChunk(conn, string(sseEvents(chatRole(), chatContent("a"))))
			_ = conn.(*net.TCPConn).SetLinger(0)
			return false
		case 1:
			_, _ = io.WriteString(conn, chunkedHead)
			time.Sleep(200 * time.Microsecond)
			_ = writeChunk(conn, `data: {"choi`)
			return false
		case 2:
			_, err := io.WriteString(conn, "HTTP/1.1 500 Oops\r\nTransfer-Encoding: chunked\r\n\r\n4\r\noops\r\n0\r\n\r\n")
			return err == nil
		default: // stalls: the idle timeout or the cancel ends it
			_, _ = io.WriteString(conn, chunkedHead)
			_ = writeChunk(conn, string(sseEvents(chatRole(), chatContent("a"))))
			time.Sleep(time.Second)
			return false
		}
	})
	ok := NewClient(ClientConfig{BaseURL: srv.url, IdleTimeout: 5 * time.Second})
	bad := NewClient(ClientConfig{BaseURL: fail.url, IdleTimeout: 300 * time.Millisecond}) // well above a loaded host's scheduling gaps, well below the stall
	var warm rundir.Record
	srv.requests.Store(-1) // the warm-up starts the epoll reader before the counts
	ok.Do(context.Background(), &Request{}, &warm)
	if !warm.OK() {
		t.Fatalf("warm-up: %+v", warm)
	}
	ok.CloseIdleConnections()
	srv.requests.Store(1008)
	time.Sleep(20 * time.Millisecond)
	fds0, gr0 := openFDs(t), runtime.NumGoroutine()
	watched := epollWatched.Load()

	const users, perUser = 8, 125
	classes := make([]map[string]int, users)
	var wg sync.WaitGroup
	for u := range users {
		wg.Add(1)
		go func() {
			defer wg.Done()
			classes[u] = map[string]int{}
			for k := range perUser {
				var rec rundir.Record
				ok.Do(context.Background(), &Request{}, &rec)
				classes[u][rec.ErrorClass]++
				ctx, cancel := context.WithCancel(context.Background())
				if k%5 == 4 {
					time.AfterFunc(20*time.Millisecond, cancel)
				}
				bad.Do(ctx, &Request{}, &rec)
				cancel()
				classes[u][rec.ErrorClass]++
			}
		}()
	}
	wg.Wait()
	total := map[string]int{}
	for _, m := range classes {
		for k, v := range m {
			total[k] += v
		}
	}
	// Per 5 failing requests: a reset, a close mid-event, a 500 and an idle stall or a
	// cancel (which of the two depends on the request's place in the server's count).
	if total[""] != users*perUser || total[rundir.ErrHTTP5xx] != users*perUser/5 ||
		total[rundir.ErrStreamTruncated] != 2*users*perUser/5 ||
		total[rundir.ErrTimeoutIdle]+total[rundir.ErrCancelled] != 2*users*perUser/5 {
		t.Errorf("classes %v", total)
	}
	if got := epollWatched.Load() - watched; got < users*perUser {
		t.Errorf("%d bodies read by the epoll reader, want at least %d", got, users*perUser)
	}
	// Keep-alive: at most one per user plus the warm-up's (fewer when a user takes a
	// connection another left idle while it was on the failing server), never one per
	// request.
	if got := srv.conns.Load(); got < 1 || got > 1+users {
		t.Errorf("%d connections for %d keep-alive requests, want 1 to %d (at most one per user and the warm-up's)", got, users*perUser, 1+users)
	}
	ok.CloseIdleConnections()
	bad.CloseIdleConnections()
	if n := settled(fds0, func() int { return openFDs(t) }); n > fds0 {
		t.Errorf("%d open file descriptors after 2,000 requests, %d before", n, fds0)
	}
	if n := settled(gr0, runtime.NumGoroutine); n > gr0 {
		t.Errorf("%d goroutines after 2,000 requests, %d before", n, gr0)
	}
}

//go:build linux

package sweep

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/llmcap/llmcap/rundir"
)

// TestClientStampsArrivalNotReaderLateness holds the epoll reader back for 60 ms (its
// lock) while the first token arrives: with kernel receive timestamps the record's
// first token is when the server wrote it, within 1 ms, and its read lag is the 60 ms;
// without them the first token is when the reader got to it, ≥ 50 ms later, and the
// record has no read lag. The server's write is bracketed by time.Now before
// and after it (the kernel stamps a loopback segment as the sender's write hands it on,
// within tens of µs).
func TestClientStampsArrivalNotReaderLateness(t *testing.T) {
	for _, stamps := range []bool{true, false} {
		t.Run(fmt.Sprintf("stamps=%v", stamps), func(t *testing.T) {
			defer rxStampsOn.Store(true)
			rxStampsOn.Store(stamps)
			before, after, rec := firstTokenWhileReaderHeld(t, 60*time.Millisecond)
			first := rec.FirstTokenNs
			t.Logf("server wrote the first token at +0 (the write took %.3f ms); record's first token at %+.3f ms",
				float64(after-before)/1e6, float64(first-before)/1e6)
			if stamps && (first < before-int64(100*time.Microsecond) || first > after+int64(time.Millisecond)) {
				t.Errorf("first token stamped %+.3f ms from the server's write [0, %.3f]: want the kernel's arrival time",
					float64(first-before)/1e6, float64(after-before)/1e6)
			}
			if !stamps && first < after+int64(50*time.Millisecond) {
				t.Errorf("first token stamped %+.3f ms after the write without kernel stamps: want the reader's lateness (≥ 50 ms)",
					float64(first-after)/1e6)
			}
			// The record says how late the client read: the 60 ms the reader was held.
			switch {
			case stamps && (rec.ReadLagMs == nil || *rec.ReadLagMs < 55 || *rec.ReadLagMs > 1000):
				t.Errorf("read lag %v, want the reader's 60 ms", fmtPtr(rec.ReadLagMs))
			case !stamps && rec.ReadLagMs != nil:
				t.Errorf("read lag %v without kernel stamps, want none", fmtPtr(rec.ReadLagMs))
			}
		})
	}
}

// fmtPtr formats an optional value in ms.
func fmtPtr(v *float64) string {
	if v == nil {
		return "nil"
	}
	return fmt.Sprintf("%.3f ms", *v)
}

// firstTokenWhileReaderHeld streams one answer from a scripted server on 127.0.0.1
// whose first token is written while the test holds the epoll reader's lock for hold;
// it returns the server's unix ns just before and after that write, and the record.
func firstTokenWhileReaderHeld(t *testing.T, hold time.Duration) (before, after int64, rec rundir.Record) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	send, wrote := make(chan struct{}), make(chan [2]int64, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		if _, err := http.ReadRequest(bufio.NewReader(c)); err != nil {
			return
		}
		_, _ = c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"))
		<-send
		b := time.Now()
		_, _ = c.Write(benchFrame)
		wrote <- [2]int64{unixNs(b), unixNs(time.Now())}
		tail := "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"
		_, _ = fmt.Fprintf(c, "%x\r\n%s\r\n0\r\n\r\n", len(tail), tail)
	}()
	c := NewClient(ClientConfig{BaseURL: "http://" + ln.Addr().String() + "/v1", IdleTimeout: time.Minute})
	defer c.CloseIdleConnections()
	r := epollReaderFor()
	if r == nil {
		t.Skip("no epoll reader on this host")
	}
	watched := epollWatched.Load()
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.Do(context.Background(), &Request{MaxTokens: 1}, &rec)
	}()
	for epollWatched.Load() == watched {
		time.Sleep(time.Millisecond) // until the body is in the reader's set
	}
	r.mu.Lock()
	close(send)
	w := <-wrote
	time.Sleep(hold)
	r.mu.Unlock()
	<-done
	if !rec.OK() || rec.FirstTokenNs == 0 {
		t.Fatalf("record %+v", rec)
	}
	return w[0], w[1], rec
}

// tcpPair returns both ends of a loopback TCP connection.
func tcpPair(t *testing.T) (client, server *net.TCPConn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	sc := <-accepted
	if sc == nil {
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { c.Close(); sc.Close() })
	return c.(*net.TCPConn), sc.(*net.TCPConn)
}

// TestRawReadStampsArrival: a raw connection's read through the netpoller (the
// response head's, and the body's off the epoll reader) carries the kernel's receive
// time: bytes written 50 ms before the read are stamped at their write, within 1 ms,
// not at the read.
func TestRawReadStampsArrival(t *testing.T) {
	c, sc := tcpPair(t)
	rc := newRawConn(c)
	before := time.Now()
	if _, err := sc.Write([]byte("HTTP/1.1 200 OK\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	after := time.Now()
	time.Sleep(50 * time.Millisecond)
	n, err := rc.read(rc.buf)
	if err != nil || n != 19 {
		t.Fatalf("read %d bytes, %v; want 19", n, err)
	}
	at, _ := rxTime(time.Now(), rc.rxNs)
	if !rc.rxStamps || at.Before(before.Add(-100*time.Microsecond)) || at.After(after.Add(time.Millisecond)) {
		t.Errorf("stamps on %v; read stamped %v after the write began (the write took %v): want the write's time",
			rc.rxStamps, at.Sub(before), after.Sub(before))
	}
}

// TestRawReadErrorsAsConnRead: reading through recvmsg(2) ends like net.Conn.Read: io.EOF
// after the peer's close, "read tcp …: read: connection reset by peer" after its reset,
// and "i/o timeout" at a deadline.
func TestRawReadErrorsAsConnRead(t *testing.T) {
	c, sc := tcpPair(t)
	rc := newRawConn(c)
	_ = c.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	if _, err := rc.read(rc.buf); err == nil || !strings.Contains(err.Error(), "read tcp") || !strings.Contains(err.Error(), "i/o timeout") {
		t.Errorf("at the deadline: %v; want read tcp …: i/o timeout", err)
	}
	_ = c.SetReadDeadline(time.Time{})
	sc.Close()
	if n, err := rc.read(rc.buf); n != 0 || err != io.EOF {
		t.Errorf("after the peer's close: %d, %v; want 0, io.EOF", n, err)
	}

	c2, sc2 := tcpPair(t)
	rc2 := newRawConn(c2)
	_ = sc2.SetLinger(0)
	_, _ = c2.Write([]byte("x")) // unread by the peer: its close resets the connection
	time.Sleep(10 * time.Millisecond)
	sc2.Close()
	_, err := rc2.read(rc2.buf)
	var oe *net.OpError
	if !errors.As(err, &oe) || oe.Op != "read" || !errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("after the peer's reset: %v; want a read OpError with ECONNRESET", err)
	}
}

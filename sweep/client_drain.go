package sweep

import (
	"errors"
	"io"
	"os"
	"time"
)

// After [DONE] a request's record is final and Do returns at once; what is left of the
// response (usually just the chunked body's terminator, which many servers write
// separately, microseconds later) is read in the background for up to drainAfterDone,
// so the connection can be reused. A response still open then is closed and counted
// (OpenAfterDone). Do waits up to drainInline for that end, so that with a normal server
// the connection is back in the pool for the caller's next request (closed-loop
// concurrency keeps one connection per user) while a server that keeps the response
// open delays the next request by no more than drainInline.

// drainInline bounds how long Do waits for the end of a response after [DONE].
const drainInline = 2 * time.Millisecond

// drainBuf is the size of the scratch buffer of a net/http drain.
const drainBuf = 512

// OpenAfterDone returns how many responses were still open drainAfterDone after their
// [DONE] event (the server keeps streams open after [DONE]; their connections were
// closed instead of reused).
func (c *Client) OpenAfterDone() int64 { return c.openAfterDone.Load() }

// endBuffered tries to end the body from the bytes already buffered, without reading
// the socket; it reports whether the body ended properly.
func (b *rawBody) endBuffered() bool {
	b.rc.noRead = true
	defer func() { b.rc.noRead = false }()
	for {
		if _, err := b.next(); err != nil {
			return err == io.EOF && b.eof
		}
	}
}

// waitDrain waits up to drainInline for a background drain to finish.
func waitDrain(finished <-chan struct{}) {
	t := time.NewTimer(drainInline)
	defer t.Stop()
	select {
	case <-finished:
	case <-t.C:
	}
}

// drainRaw reads the rest of body on rc in the background, for at most drainAfterDone,
// then returns rc to p when its response ended properly and reusable allows, or closes
// it; the returned channel is closed then. rc must no longer be watched by the
// request's context.
func (c *Client) drainRaw(p *rawPool, rc *rawConn, body rawBody, reusable bool) <-chan struct{} {
	body.rc = rc
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		_ = rc.conn.SetReadDeadline(time.Now().Add(drainAfterDone))
		var err error
		for err == nil {
			_, err = body.next()
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			c.openAfterDone.Add(1)
		}
		if err == io.EOF && body.eof && reusable && rc.r == rc.w &&
			rc.conn.SetReadDeadline(time.Time{}) == nil {
			p.put(rc)
			return
		}
		p.discard(rc)
	}()
	return finished
}

// drainHTTP reads the rest of a net/http response body in the background, for at most
// drainAfterDone, then closes it (net/http reuses the connection of a body read to its
// end) and calls done, which releases the request's context; the returned channel is
// closed then.
func (c *Client) drainHTTP(body io.ReadCloser, wd *watchdog, done func()) <-chan struct{} {
	wd.stop()
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		defer done()
		t := time.AfterFunc(drainAfterDone, func() { wd.cancel(errDrained) })
		_, _ = io.CopyBuffer(io.Discard, body, make([]byte, drainBuf))
		if !t.Stop() {
			c.openAfterDone.Add(1)
		}
		_ = body.Close()
	}()
	return finished
}

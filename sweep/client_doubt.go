package sweep

import (
	"crypto/tls"
	"errors"
	"net"
	"sync/atomic"
)

// Framing doubt. A connection is reused only after a response whose end is certain: a
// 2xx stream that ended cleanly (a record without error, ended by [DONE], a
// finish_reason or usage) with its body read to its framed end and nothing buffered
// beyond it. Anything else (a non-2xx body framed by Content-Length, which a server may
// get wrong; a body longer or shorter than declared; chunked framing errors; a stream
// that stopped mid-way or was too large; bytes left after [DONE]) closes the
// connection, so that stray bytes can never be read as the next response's head.

// errDoubtedConn refuses a write on a connection in doubt.
var errDoubtedConn = errors.New("connection closed after a response of doubtful framing")

// doubtConn is a net/http connection that can be put in doubt: while doubted it
// refuses writes, writing nothing, so a request the transport hands it fails with
// nothing written and the transport retries it on a fresh connection; a doubted
// connection is closed once its response has been read.
type doubtConn struct {
	net.Conn
	doubted atomic.Bool
}

func (c *doubtConn) Write(b []byte) (int, error) {
	if c.doubted.Load() {
		return 0, errDoubtedConn
	}
	return c.Conn.Write(b)
}

// asDoubtConn returns the doubtConn under a connection net/http reports (a TLS
// connection wraps it), or nil.
func asDoubtConn(conn net.Conn) *doubtConn {
	if tc, ok := conn.(*tls.Conn); ok {
		conn = tc.NetConn()
	}
	dc, _ := conn.(*doubtConn)
	return dc
}

// cleanEnd reports whether the stream's response ended in a way that leaves its
// connection reusable: no error so far and an end the server stated ([DONE], a
// finish_reason or usage).
func (s *stream) cleanEnd() bool {
	return s.errClass == "" && (s.done || len(s.finish) > 0 || s.usageSeen)
}

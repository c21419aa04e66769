//go:build linux

package sweep

import (
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"time"
)

// Kernel receive timestamps: every raw HTTP/1.1 connection has SO_TIMESTAMPNS set as
// it is dialled, and its reads use recvmsg(2) — the response head's through Go's
// netpoller (rawConn.sockRead), an event-stream body's on the epoll reader. The kernel
// returns, with the bytes, the time its network stack received the last segment among
// them (CLOCK_REALTIME, stamped as the packet enters the stack; for TCP the latest of
// the segments that read consumed, Linux's tcp_recv_timestamp). An event is then
// stamped when its bytes reached this host, not when a goroutine got round to reading
// them: a client that falls behind (a busy reader, a starved process, the server
// sharing its cores) no longer adds its own lateness to TTFT, ITL and E2E, up to an
// ITL (stream.stampRead). Where the kernel gives no stamp (the option refused, a
// connection that is not TCP) the read's time.Now stands, as off Linux.
// docs/client.md ("Timestamps", "Kernel receive timestamps") has the figures.

// enableRxStamps asks the kernel to stamp fd's received segments (SO_TIMESTAMPNS).
func enableRxStamps(fd int) error {
	if err := syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_TIMESTAMPNS, 1); err != nil {
		return os.NewSyscallError("setsockopt SO_TIMESTAMPNS", err)
	}
	return nil
}

// rxSock is the scratch of one netpoller read with recvmsg(2) (rawConn.sockRead): its
// recvmsg(2) buffers, the read's callback (made once) and its results. Pooled: a
// connection holds none between reads.
type rxSock struct {
	rx   rxReader
	fn   func(fd uintptr) bool
	p    []byte
	n    int
	rxNs int64
	err  error
}

var rxSockPool = sync.Pool{New: func() any {
	x := &rxSock{}
	x.fn = func(fd uintptr) bool {
		for {
			n, ns, err := x.rx.read(int(fd), x.p)
			switch err {
			case syscall.EINTR:
				continue
			case syscall.EAGAIN:
				return false // wait in the netpoller
			}
			x.n, x.rxNs, x.err = n, ns, err
			return true
		}
	}
	return x
}}

// sockRead reads from rc's socket into p like rc.conn.Read (the same errors: io.EOF
// at the end, *net.OpError "read"), setting rc.rxNs to the kernel's receive time of
// the bytes read (0 when it gave none; unchanged by a read of no bytes).
func (rc *rawConn) sockRead(p []byte) (int, error) {
	if rc.rxConn != rc.conn {
		rc.attachRx()
	}
	if rc.rxRaw == nil || len(p) == 0 {
		rc.rxNs = 0
		return rc.conn.Read(p)
	}
	x := rxSockPool.Get().(*rxSock)
	x.p, x.n, x.rxNs, x.err = p, 0, 0, nil
	err := rc.rxRaw.Read(x.fn)
	n, rxNs, rerr := x.n, x.rxNs, x.err
	x.p = nil
	rxSockPool.Put(x)
	if n > 0 {
		rc.rxNs = rxNs // kept over a read of nothing (the end): the last bytes' arrival
	}
	switch {
	case err != nil: // a deadline, or the connection closed
		if oe, ok := err.(*net.OpError); ok {
			oe.Op = "read" // net's "raw-read", as conn.Read names it
		}
		return 0, err
	case rerr != nil:
		return 0, &net.OpError{Op: "read", Net: "tcp", Source: rc.conn.LocalAddr(), Addr: rc.conn.RemoteAddr(),
			Err: os.NewSyscallError("read", rerr)}
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

// attachRx binds rc's reads to rc.conn (again after an epoll reader replaced it):
// recvmsg(2) through its RawConn, with the socket's kernel receive timestamps turned
// on once per connection; conn.Read when rc.conn is not TCP or they cannot be.
func (rc *rawConn) attachRx() {
	rc.rxConn, rc.rxRaw = rc.conn, nil
	tc, ok := rc.conn.(*net.TCPConn)
	if !ok || !rxStampsSupported {
		return
	}
	raw, err := tc.SyscallConn()
	if err != nil {
		return
	}
	if !rc.rxStamps {
		holdRxStamps()
		var serr error
		if err := raw.Control(func(fd uintptr) { serr = enableRxStamps(int(fd)) }); err != nil || serr != nil {
			return
		}
		rc.rxStamps = true
	}
	rc.rxRaw = raw
}

// rxKeeper holds one socket with receive timestamps on for the life of the process.
// Linux stamps received packets host-wide while any socket asks for it
// (net_enable_timestamp); the first socket to ask switches it on from a kernel worker,
// a moment later, and the last to close switches it off the same way. Held open, the
// keeper keeps it on, so connections opened and closed one by one do not flip it per
// request, and a new connection's first segment is never received unstamped.
var rxKeeper struct {
	once sync.Once
	fd   int
}

// holdRxStamps opens the keeper (once) and waits, at most 200 ms, until a loopback TCP
// segment comes back stamped: the host's stamping is then on.
func holdRxStamps() {
	rxKeeper.once.Do(func() {
		fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC, 0)
		if err != nil {
			return
		}
		if enableRxStamps(fd) != nil {
			_ = syscall.Close(fd)
			return
		}
		rxKeeper.fd = fd
		for deadline := time.Now().Add(200 * time.Millisecond); time.Now().Before(deadline); {
			if ok, err := loopbackStamped(); ok || err != nil {
				return
			}
			time.Sleep(time.Millisecond)
		}
	})
}

// loopbackStamped sends one byte over a new loopback TCP connection whose receiving
// end has SO_TIMESTAMPNS and reports whether it was received with a stamp; err when
// the connection cannot be made (no loopback: nothing to wait for).
func loopbackStamped() (bool, error) {
	ln, err := net.ListenTCP("tcp4", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		return false, err
	}
	defer ln.Close()
	c, err := net.DialTCP("tcp4", nil, ln.Addr().(*net.TCPAddr))
	if err != nil {
		return false, err
	}
	defer c.Close()
	sc, err := ln.AcceptTCP()
	if err != nil {
		return false, err
	}
	defer sc.Close()
	raw, err := c.SyscallConn()
	if err != nil {
		return false, err
	}
	var serr error
	if err := raw.Control(func(fd uintptr) { serr = enableRxStamps(int(fd)) }); err != nil || serr != nil {
		return false, errors.Join(err, serr)
	}
	if _, err := sc.Write([]byte{1}); err != nil {
		return false, err
	}
	_ = c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	var x rxReader
	var b [1]byte
	stamped := false
	err = raw.Read(func(fd uintptr) bool {
		n, ns, rerr := x.read(int(fd), b[:])
		if rerr == syscall.EAGAIN || rerr == syscall.EINTR {
			return false
		}
		stamped = n == 1 && ns > 0
		return true
	})
	return stamped, err
}

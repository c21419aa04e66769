//go:build linux

package sweep

import (
	"errors"
	"io"
	"net"
	"os"
	"syscall"
	"unsafe"
)

// Kernel receive timestamps: the epoll reader reads each stream with recvmsg(2) on a
// socket with SO_TIMESTAMPNS set, and the kernel returns with the bytes the time its
// network stack received the last segment among them (CLOCK_REALTIME, stamped as the
// packet enters the stack; for TCP the latest of the segments that read consumed,
// Linux's tcp_recv_timestamp). An event is then stamped when its bytes reached this
// host, not when the reader goroutine got round to reading them: a client that falls
// behind (a busy reader, a starved process, the server sharing its cores) no longer
// adds its own lateness to TTFT, ITL and E2E. Where the kernel gives no stamp (the
// option refused, a segment received before it was set) the read's time.Now stands,
// as on the netpoller path. docs/client.md ("Timestamps") has the figures.

// rxReader is recvmsg(2)'s scratch for one reader goroutine: the message header, its
// one iovec and a control buffer for one SCM_TIMESTAMPNS message (8-byte aligned).
type rxReader struct {
	iov syscall.Iovec
	msg syscall.Msghdr
	oob [8]uint64
}

// enableRxStamps asks the kernel to stamp fd's received segments (SO_TIMESTAMPNS).
func enableRxStamps(fd int) error {
	if err := syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_TIMESTAMPNS, 1); err != nil {
		return os.NewSyscallError("setsockopt SO_TIMESTAMPNS", err)
	}
	return nil
}

// read reads fd once into p (len(p) > 0) with recvmsg(2); rxNs is the kernel's receive
// time of the last segment read, in unix ns, or 0 when it gave none. Errors are the
// raw errno (syscall.EAGAIN when nothing is ready), as syscall.Read returns them.
func (x *rxReader) read(fd int, p []byte) (n int, rxNs int64, err error) {
	x.iov.Base = &p[0]
	x.iov.SetLen(len(p))
	x.msg = syscall.Msghdr{Iov: &x.iov, Control: (*byte)(unsafe.Pointer(&x.oob[0]))}
	x.msg.Iovlen = 1
	x.msg.SetControllen(len(x.oob) * 8)
	r, _, errno := syscall.Syscall(syscall.SYS_RECVMSG, uintptr(fd), uintptr(unsafe.Pointer(&x.msg)), 0)
	x.iov.Base = nil // p is not kept past the call
	if errno != 0 {
		return 0, 0, errno
	}
	return int(r), x.stamp(), nil
}

// stamp returns the SCM_TIMESTAMPNS time of the last recvmsg's control data in unix
// ns, or 0 when it carried none.
func (x *rxReader) stamp() int64 {
	cl := int(x.msg.Controllen)
	if x.msg.Flags&syscall.MSG_CTRUNC != 0 || cl < syscall.CmsgLen(int(unsafe.Sizeof(syscall.Timespec{}))) {
		return 0
	}
	h := (*syscall.Cmsghdr)(unsafe.Pointer(&x.oob[0]))
	if h.Level != syscall.SOL_SOCKET || h.Type != syscall.SCM_TIMESTAMPNS {
		return 0
	}
	ts := (*syscall.Timespec)(unsafe.Add(unsafe.Pointer(&x.oob[0]), syscall.CmsgLen(0)))
	return ts.Nano()
}

// rxSock reads a raw connection's TCP socket with recvmsg(2) through Go's netpoller,
// keeping the kernel stamp of each read (rawConn.rxNs); raw is nil when the
// connection is not TCP or refused SO_TIMESTAMPNS, and conn.Read is used.
type rxSock struct {
	conn net.Conn // the connection raw belongs to (an epoll reader replaces rc.conn)
	raw  syscall.RawConn
	rx   rxReader
	fn   func(fd uintptr) bool // read's callback, made once
	p    []byte
	n    int
	rxNs int64
	err  error
}

// sockRead reads from rc's socket into p like rc.conn.Read (the same errors: io.EOF
// at the end, *net.OpError "read"), setting rc.rxNs to the kernel's receive time of
// the bytes (0 when it gave none).
func (rc *rawConn) sockRead(p []byte) (int, error) {
	x := rc.rx
	if x == nil || x.conn != rc.conn {
		x = rc.attachRx()
	}
	if x.raw == nil || len(p) == 0 {
		rc.rxNs = 0
		return rc.conn.Read(p)
	}
	x.p, x.n, x.rxNs, x.err = p, 0, 0, nil
	err := x.raw.Read(x.fn)
	x.p = nil
	rc.rxNs = x.rxNs
	var oe *net.OpError
	switch {
	case err != nil: // a deadline, or the connection closed
		if errors.As(err, &oe) {
			oe.Op = "read"
		}
		return 0, err
	case x.err != nil:
		return 0, &net.OpError{Op: "read", Net: "tcp", Source: rc.conn.LocalAddr(), Addr: rc.conn.RemoteAddr(),
			Err: os.NewSyscallError("read", x.err)}
	case x.n == 0:
		return 0, io.EOF
	}
	return x.n, nil
}

// attachRx (re)binds rc's rxSock to rc.conn, turning on the socket's kernel receive
// timestamps once per connection.
func (rc *rawConn) attachRx() *rxSock {
	x := rc.rx
	if x == nil {
		x = &rxSock{}
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
		rc.rx = x
	}
	x.conn, x.raw = rc.conn, nil
	tc, ok := rc.conn.(*net.TCPConn)
	if !ok {
		return x
	}
	raw, err := tc.SyscallConn()
	if err != nil {
		return x
	}
	if !rc.rxStamps {
		var serr error
		if err := raw.Control(func(fd uintptr) { serr = enableRxStamps(int(fd)) }); err != nil || serr != nil {
			return x
		}
		rc.rxStamps = true
	}
	x.raw = raw
	return x
}

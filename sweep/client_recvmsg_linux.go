//go:build linux && !386

package sweep

import (
	"syscall"
	"unsafe"
)

// rxReader is recvmsg(2)'s scratch for one reader goroutine: the message header, its
// one iovec and a control buffer for one SCM_TIMESTAMPNS message (8-byte aligned).
type rxReader struct {
	iov syscall.Iovec
	msg syscall.Msghdr
	oob [4]uint64 // CmsgSpace(16) = 32 bytes on 64-bit, 20 on 32-bit
}

// rxStampsSupported: recvmsg(2) is a system call of its own here (linux/386 has only
// socketcall, and reads there carry no stamp).
const rxStampsSupported = true

// read reads fd once into p (len(p) > 0) with recvmsg(2); rxNs is the kernel's receive
// time of the last segment read, in unix ns, or 0 when it gave none. Errors are the
// raw errno (syscall.EAGAIN when nothing is ready), as syscall.Read returns them.
//
// fd must be non-blocking (every caller's is: a netpoller socket, or the epoll
// reader's duplicate of one, which shares its O_NONBLOCK), so the call never blocks
// and is made with RawSyscall, skipping the runtime's entersyscall/exitsyscall
// (BenchmarkFloorStreams500Raw is the floor for reads made that way).
func (x *rxReader) read(fd int, p []byte) (n int, rxNs int64, err error) {
	x.iov.Base = &p[0]
	x.iov.SetLen(len(p))
	x.msg = syscall.Msghdr{Iov: &x.iov, Control: (*byte)(unsafe.Pointer(&x.oob[0]))}
	x.msg.Iovlen = 1
	x.msg.SetControllen(len(x.oob) * 8)
	r, _, errno := syscall.RawSyscall(syscall.SYS_RECVMSG, uintptr(fd), uintptr(unsafe.Pointer(&x.msg)), 0)
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

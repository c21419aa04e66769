//go:build linux

package sweep

import (
	"context"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// Epoll readers: on Linux the body of a raw event stream is read by an epoll reader
// goroutine with its own epoll set (epollReaderCount of them), instead of by the
// request's own goroutine through Go's netpoller. Once the response head is in, the
// socket is taken out of the netpoller (a duplicate of it is kept, the net.Conn closed)
// and added to a reader's epoll set; the reader reads each ready socket once (one
// recvmsg(2) per arriving segment, no read that finds nothing), stamps the read with
// the kernel's receive time (client_rxstamp_linux.go) and runs the stream's framing,
// SSE and chunk parsing in place. The request's goroutine sleeps until its stream ends
// or its context ends (a timeout, a cancel), then puts the socket back into the
// netpoller as a new net.Conn for the drain and the keep-alive pool.
//
// The netpoller path costs, per segment, a second read(2) that returns EAGAIN before
// the goroutine parks, the park and the wake-up and the runtime's own epoll round;
// docs/client.md ("Designs tried and set aside") has the figures.

// epollReader is one reader goroutine with its epoll set and the streams it watches
// (keyed by socket).
type epollReader struct {
	epfd    int
	set     *os.File // epfd as a file in Go's netpoller (held: its finalizer closes epfd)
	mu      sync.Mutex
	watches map[int32]*bodyWatch
	rx      rxReader // recvmsg(2) scratch, used by the reader goroutine only
}

// epollReaderCount is how many epoll readers the process runs. One measured best on
// the 2-core dev VM: two (one per P), with or without runtime.LockOSThread, cost more
// CPU per token and no less timing error (docs/client.md, "Designs tried").
const epollReaderCount = 1

// epollReaders are the process's readers, started on first use; err is why they could
// not be (the netpoller path is used then).
var epollReaders struct {
	once sync.Once
	list []*epollReader
	next atomic.Uint32
	err  error
}

// epollWatched counts the bodies handed to an epoll reader (tests read it).
var epollWatched atomic.Int64

// useEpollReaders selects the epoll readers for raw event-stream bodies (on by
// default on Linux; BenchmarkClientStreams500Netpoller turns it off to measure the
// netpoller path). At 500 streams on the 2-core VM it measured less CPU per token and
// a lower TTFT error than the netpoller path (docs/client.md, "Figures").
var useEpollReaders = true

// epollReaderFor returns a reader (round robin), or nil when none could be started.
func epollReaderFor() *epollReader {
	epollReaders.once.Do(startEpollReaders)
	if epollReaders.err != nil {
		return nil
	}
	l := epollReaders.list
	return l[int(epollReaders.next.Add(1))%len(l)]
}

func startEpollReaders() {
	for range epollReaderCount {
		r, err := newEpollReader()
		if err != nil {
			epollReaders.err = err
			return
		}
		epollReaders.list = append(epollReaders.list, r)
	}
}

// newEpollReader makes an epoll set and starts its reader goroutine. The set's own fd
// is non-blocking and waits in Go's netpoller, so the reader parks there between
// batches instead of holding a P (and its M) in a blocking epoll_wait: a P stuck in
// that syscall keeps the goroutines it readied (the request whose stream ended) from
// running until sysmon retakes it, up to 10 ms later (docs/client.md, "Designs tried").
func newEpollReader() (*epollReader, error) {
	epfd, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		return nil, os.NewSyscallError("epoll_create1", err)
	}
	if err := syscall.SetNonblock(epfd, true); err != nil {
		_ = syscall.Close(epfd)
		return nil, os.NewSyscallError("fcntl", err)
	}
	f := os.NewFile(uintptr(epfd), "epoll")
	raw, err := f.SyscallConn()
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	r := &epollReader{epfd: epfd, set: f, watches: map[int32]*bodyWatch{}}
	go r.loop(raw)
	return r, nil
}

// loop waits in Go's netpoller for the epoll set to be readable, then takes its ready
// sockets without blocking and reads each once.
func (r *epollReader) loop(raw syscall.RawConn) {
	events := make([]syscall.EpollEvent, 1024)
	ready := func(fd uintptr) bool {
		n, err := epollWaitNow(int(fd), events)
		if err != nil || n <= 0 {
			return false // nothing ready (or EINTR): park until the set is readable
		}
		r.serve(events[:n])
		return true
	}
	for {
		if err := raw.Read(ready); err != nil {
			return // the set was closed: not done while the process runs
		}
	}
}

// serve reads each ready socket of events once.
func (r *epollReader) serve(events []syscall.EpollEvent) {
	for i := range events {
		r.mu.Lock()
		w := r.watches[events[i].Fd]
		r.mu.Unlock()
		if w != nil {
			w.readable()
		}
	}
}

// epollAddFails makes add fail as epoll_ctl does when the user's epoll watches run out
// (ENOSPC): tests turn it on to drive the fallback to the netpoller path.
var epollAddFails atomic.Bool

// add starts watching w's socket.
func (r *epollReader) add(w *bodyWatch) error {
	if epollAddFails.Load() {
		return os.NewSyscallError("epoll_ctl", syscall.ENOSPC)
	}
	r.mu.Lock()
	r.watches[int32(w.fd)] = w
	r.mu.Unlock()
	ev := syscall.EpollEvent{Events: syscall.EPOLLIN | syscall.EPOLLRDHUP, Fd: int32(w.fd)}
	if err := syscall.EpollCtl(r.epfd, syscall.EPOLL_CTL_ADD, w.fd, &ev); err != nil {
		r.remove(w)
		return os.NewSyscallError("epoll_ctl", err)
	}
	return nil
}

// remove stops watching w's socket.
func (r *epollReader) remove(w *bodyWatch) {
	_ = syscall.EpollCtl(r.epfd, syscall.EPOLL_CTL_DEL, w.fd, nil)
	r.mu.Lock()
	if r.watches[int32(w.fd)] == w {
		delete(r.watches, int32(w.fd))
	}
	r.mu.Unlock()
}

// bodyWatch is one event-stream body read by an epoll reader. mu serialises the
// reader's work with the request's goroutine ending the watch.
type bodyWatch struct {
	mu            sync.Mutex
	r             *epollReader
	fd            int
	s             *stream
	src           *rawBody
	wd            *watchdog
	parent, ctx   context.Context
	local, remote net.Addr
	ended         bool
	finished      chan struct{}
}

// readable reads the socket once and feeds what came to the stream.
func (w *bodyWatch) readable() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ended {
		return
	}
	rc := w.src.rc
	if err := rc.makeRoom(rawMaxHeader); err != nil {
		w.s.setError(w.s.c.classifyTransport(w.parent, w.ctx, err, true))
		w.end()
		return
	}
	n, rxNs, err := w.r.rx.read(w.fd, rc.buf[rc.w:])
	rc.noteRead(n, len(rc.buf)-rc.w)
	if err == syscall.EAGAIN || err == syscall.EINTR {
		return // a stale readiness: level-triggered, it is reported again when true
	}
	switch now := time.Now(); {
	case n > 0:
		w.s.stampRead(now, rxNs)
		rc.w += n
		w.wd.touch(now)
	case err == nil:
		rc.pending = io.EOF
	default:
		rc.pending = &net.OpError{Op: "read", Net: "tcp", Source: w.local, Addr: w.remote,
			Err: os.NewSyscallError("read", err)}
	}
	if w.drain() {
		w.end()
	}
}

// drain feeds the buffered body to the stream until it needs more bytes; it reports
// whether the stream is over.
func (w *bodyWatch) drain() bool {
	for {
		b, err := w.src.next()
		if err == errWouldBlock {
			err = nil
			if len(b) == 0 {
				return false
			}
		}
		if w.s.feed(w.parent, w.ctx, b, err) {
			return true
		}
	}
}

// end stops the watch and wakes the request's goroutine (w.mu held).
func (w *bodyWatch) end() {
	w.ended = true
	w.r.remove(w)
	close(w.finished)
}

// stopEarly ends the watch from the request's goroutine; it reports whether the watch
// was still running (the stream had not ended).
func (w *bodyWatch) stopEarly() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ended {
		return false
	}
	w.ended = true
	w.r.remove(w)
	return true
}

// readStreamEpoll reads a raw 2xx event-stream body through an epoll reader; it
// reports false, having read nothing, when it cannot (no reader, a connection that is
// not TCP, a socket the reader's epoll set refused), and the caller reads the body
// itself. rc.conn is replaced by a new net.Conn on the same socket (or, when that
// fails, left closed: the caller then never reuses it), also when it reports false
// after taking the socket out of the netpoller: the caller's cancel hook must then
// cover the new conn (runRaw).
func (c *Client) readStreamEpoll(parent, ctx context.Context, s *stream, src *rawBody, wd *watchdog) bool {
	rc := src.rc
	tc, ok := rc.conn.(*net.TCPConn)
	if !useEpollReaders || !ok {
		return false
	}
	r := epollReaderFor()
	if r == nil {
		return false
	}
	// What came with the head is read here first.
	rc.noRead = true
	defer func() { rc.noRead, rc.pending = false, nil }()
	s.stampRead(time.Now(), rc.rxNs)
	w := &bodyWatch{r: r, s: s, src: src, wd: wd, parent: parent, ctx: ctx,
		local: tc.LocalAddr(), remote: tc.RemoteAddr(), finished: make(chan struct{})}
	if w.drain() {
		return true
	}
	fd, err := detachTCP(tc)
	if err != nil {
		rc.noRead = false
		return false
	}
	w.fd = fd
	if err := r.add(w); err != nil {
		rc.conn = reattach(fd, tc)
		rc.noRead = false
		return false
	}
	epollWatched.Add(1)
	select {
	case <-w.finished:
	case <-ctx.Done():
		if w.stopEarly() {
			// A timeout or a cancel: classified by the context's cause, as a read
			// interrupted by its deadline is on the netpoller path.
			s.setError(c.classifyTransport(parent, ctx, os.ErrDeadlineExceeded, true))
		}
	}
	rc.conn = reattach(fd, tc)
	return true
}

// detachTCP returns a duplicate of c's socket and closes c, which takes the socket out
// of Go's netpoller while the duplicate keeps it open.
func detachTCP(c *net.TCPConn) (int, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return -1, err
	}
	nfd := -1
	var derr error
	if err := raw.Control(func(fd uintptr) {
		nfd, derr = dupCloexec(int(fd))
	}); err != nil {
		return -1, err
	}
	if derr != nil {
		return -1, derr
	}
	_ = c.Close()
	return nfd, nil
}

func dupCloexec(fd int) (int, error) {
	r, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_DUPFD_CLOEXEC, 0)
	if errno != 0 {
		return -1, os.NewSyscallError("fcntl", errno)
	}
	return int(r), nil
}

// reattach puts socket fd back into Go's netpoller as a new net.Conn and closes fd;
// when that fails it closes fd and returns closed, the closed original.
func reattach(fd int, closed net.Conn) net.Conn {
	f := os.NewFile(uintptr(fd), "tcp")
	nc, err := net.FileConn(f)
	_ = f.Close()
	if err != nil {
		return closed
	}
	return nc
}

// epollWaitNow is epoll_wait(2) with a zero timeout, which never blocks, so it skips
// the runtime's syscall bookkeeping (RawSyscall6); it returns the ready events' count.
func epollWaitNow(epfd int, events []syscall.EpollEvent) (int, error) {
	r, _, errno := syscall.RawSyscall6(syscall.SYS_EPOLL_PWAIT, uintptr(epfd),
		uintptr(unsafe.Pointer(&events[0])), uintptr(len(events)), 0, 0, 0)
	if errno != 0 {
		return 0, errno
	}
	return int(r), nil
}

//go:build linux

package sweep

import (
	"bytes"
	"net"
	"strconv"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/llmcap/llmcap/internal/proctime"
)

// BenchmarkFloorStreams500 is the floor under BenchmarkClientStreams500: the same
// server and load (500 streams, TTFT 50 ms, ITL 10 ms, 128 tokens, b.N rounds), read by
// the least a correct client must do: one epoll set, one read(2) per arriving segment,
// counting frames and nothing else (no HTTP or SSE parsing, no JSON, no timestamps, no
// records; the sockets are taken out of Go's netpoller, so no goroutine is woken).
// Its cpu_us/token is what this kernel charges a reader per streamed token;
// the client's own cost is the difference.
func BenchmarkFloorStreams500(b *testing.B) { benchFloorStreams(b, 500, false) }

// BenchmarkFloorStreams500Raw is BenchmarkFloorStreams500 with each read(2) made by
// syscall.RawSyscall, without the runtime's entersyscall/exitsyscall, as the client's
// epoll reader makes its recvmsg(2): the floor for that way of calling the kernel
// (docs/client.md, "Figures").
func BenchmarkFloorStreams500Raw(b *testing.B) { benchFloorStreams(b, 500, true) }

// BenchmarkFloorStreams1000 is BenchmarkFloorStreams500 with 1,000 streams, the floor
// under BenchmarkClientStreams1000.
func BenchmarkFloorStreams1000(b *testing.B) { benchFloorStreams(b, 1000, false) }

// benchFloorStreams runs the floor with workers streams; rawRead makes each read(2)
// with syscall.RawSyscall (the sockets are non-blocking: the duplicates share the
// netpoller's O_NONBLOCK).
func benchFloorStreams(b *testing.B, workers int, rawRead bool) {
	const tokens = benchTokens
	if lim := raiseNOFILE(uint64(workers) + 100); lim < uint64(workers)+100 {
		b.Skipf("open-files limit %d is below %d", lim, workers+100)
	}
	base := startBenchServer(b, benchTTFT, benchITL, tokens)
	addr := base[len("http://") : len(base)-len("/v1")]
	epfd, fds := floorConns(b, addr, workers)
	defer func() {
		for _, fd := range fds {
			syscall.Close(fd)
		}
		syscall.Close(epfd)
	}()
	request := func(i, round int) {
		body := `{"seed":` + strconv.Itoa(1+i*b.N+round) + `}`
		req := "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: " +
			strconv.Itoa(len(body)) + "\r\n\r\n" + body
		if _, err := syscall.Write(fds[i], []byte(req)); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	cpu0 := proctime.CPU()
	start := time.Now()
	stagger := benchStagger
	next := 0 // workers started so far
	rounds := make([]int, workers)
	frames, done := 0, 0
	buf := make([]byte, 16<<10)
	events := make([]syscall.EpollEvent, 256)
	for done < workers {
		for next < workers && time.Since(start) >= stagger*time.Duration(next)/time.Duration(workers) {
			request(next, 0)
			next++
		}
		n, err := syscall.EpollWait(epfd, events, 1)
		if err != nil && err != syscall.EINTR {
			b.Fatal(err)
		}
		for _, ev := range events[:max(n, 0)] {
			i := int(ev.Fd)
			m, err := floorRead(fds[i], buf, rawRead)
			if err != nil || m <= 0 {
				continue
			}
			frames += bytes.Count(buf[:m], []byte("\"content\":\" tok\""))
			if bytes.HasSuffix(buf[:m], []byte("0\r\n\r\n")) {
				if rounds[i]++; rounds[i] < b.N {
					request(i, rounds[i])
				} else {
					done++
				}
			}
		}
	}
	cpu := proctime.CPU() - cpu0
	b.StopTimer()
	st := fetchStamps(b, base)
	b.ReportMetric(float64(cpu.Microseconds())/float64(max(frames, 1)), "cpu_us/token")
	b.ReportMetric(float64(st.CPUNs)/1e3/float64(max(frames, 1)), "server_cpu_us/token")
	b.ReportMetric(float64(frames), "tokens")
	if want := workers * b.N * tokens; frames != want {
		b.Errorf("counted %d content frames, want %d", frames, want)
	}
}

// floorConns dials n connections to addr, takes them out of Go's netpoller and adds
// them to a new epoll set (event data: the connection's index).
func floorConns(b *testing.B, addr string, n int) (epfd int, fds []int) {
	epfd, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		b.Fatal(err)
	}
	for i := range n {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			b.Fatal(err)
		}
		fd := detachFD(b, c.(*net.TCPConn))
		fds = append(fds, fd)
		ev := syscall.EpollEvent{Events: syscall.EPOLLIN, Fd: int32(i)}
		if err := syscall.EpollCtl(epfd, syscall.EPOLL_CTL_ADD, fd, &ev); err != nil {
			b.Fatal(err)
		}
	}
	return epfd, fds
}

// detachFD returns a duplicate of c's socket and closes c, which takes the socket out
// of Go's netpoller (its close deregisters it) while the duplicate keeps it open.
func detachFD(b *testing.B, c *net.TCPConn) int {
	raw, err := c.SyscallConn()
	if err != nil {
		b.Fatal(err)
	}
	var nfd uintptr
	var errno syscall.Errno
	if err := raw.Control(func(fd uintptr) {
		nfd, _, errno = syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_DUPFD_CLOEXEC, 0)
	}); err != nil || errno != 0 {
		b.Fatal(err, errno)
	}
	c.Close()
	return int(nfd)
}

// floorRead reads fd once into buf, with syscall.Read or, when raw, syscall.RawSyscall.
func floorRead(fd int, buf []byte, raw bool) (int, error) {
	if !raw {
		return syscall.Read(fd, buf)
	}
	r, _, errno := syscall.RawSyscall(syscall.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)))
	if errno != 0 {
		return 0, errno
	}
	return int(r), nil
}

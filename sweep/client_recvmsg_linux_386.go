//go:build linux && 386

package sweep

import "syscall"

// rxReader reads with read(2) on linux/386, which has no recvmsg system call of its
// own (only socketcall): no kernel stamps there.
type rxReader struct{}

// rxStampsSupported is false: reads carry no kernel stamp on linux/386.
const rxStampsSupported = false

// read reads fd once into p; rxNs is always 0.
func (x *rxReader) read(fd int, p []byte) (n int, rxNs int64, err error) {
	n, err = syscall.Read(fd, p)
	if n < 0 {
		n = 0
	}
	return n, 0, err
}

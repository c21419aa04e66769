//go:build unix

package testlock

import (
	"os"
	"syscall"
)

// lock waits for an exclusive flock on f.
func lock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			return err
		}
	}
}

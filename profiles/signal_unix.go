//go:build unix

package profiles

import (
	"syscall"
)

// sendSignal sends sig to pid (a negative pid: its process group).
func sendSignal(pid int, sig syscall.Signal) error { return syscall.Kill(pid, sig) }

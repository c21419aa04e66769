//go:build !unix

package profiles

import (
	"os"
	"syscall"
)

// sendSignal kills the process |pid| whatever sig is: outside Unix there are neither
// signals nor process groups.
func sendSignal(pid int, _ syscall.Signal) error {
	if pid < 0 {
		pid = -pid
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}

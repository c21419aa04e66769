//go:build unix

package profiles

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup starts cmd in a process group of its own (nsys and the server it
// launches are stopped together).
func ownProcessGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// sendSignal sends sig to pid (a negative pid: its process group).
func sendSignal(pid int, sig syscall.Signal) error { return syscall.Kill(pid, sig) }

//go:build unix

package launch

import (
	"errors"
	"os/exec"
	"syscall"
)

// ownProcessGroup starts cmd in a process group of its own, so that stopping it also
// stops the workers it forks (e.g. a server started through a shell script).
func ownProcessGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// terminateGroup sends SIGTERM to the process group led by pid; a group already gone
// is not an error.
func terminateGroup(pid int) error { return signalGroup(pid, syscall.SIGTERM) }

// killGroup sends SIGKILL to the process group led by pid.
func killGroup(pid int) error { return signalGroup(pid, syscall.SIGKILL) }

func signalGroup(pid int, sig syscall.Signal) error {
	if err := syscall.Kill(-pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	return nil
}

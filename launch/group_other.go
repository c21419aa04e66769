//go:build !unix

package launch

import (
	"errors"
	"os"
	"os/exec"
)

// ownProcessGroup does nothing outside Unix: the launched process is stopped alone.
func ownProcessGroup(*exec.Cmd) {}

// terminateGroup kills the process pid (there is no SIGTERM outside Unix).
func terminateGroup(pid int) error { return killGroup(pid) }

// killGroup kills the process pid; one already gone is not an error.
func killGroup(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return nil
	}
	if err := p.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	return nil
}

//go:build linux

package launch

import (
	"os/exec"
	"syscall"
)

// dieWithParent sets the parent-death signal: SIGKILL when the thread that started the
// process ends (the whole llmcap, in practice: the Go runtime does not end the threads
// that run ordinary goroutines).
func dieWithParent(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}

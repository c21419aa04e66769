//go:build !linux

package launch

import "os/exec"

// dieWithParent does nothing outside Linux (no parent-death signal).
func dieWithParent(*exec.Cmd) {}

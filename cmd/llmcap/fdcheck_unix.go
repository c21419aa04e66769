//go:build unix

package main

import "syscall"

// openFilesLimit returns RLIMIT_NOFILE's soft and hard limits; ok is false when they
// cannot be read.
func openFilesLimit() (soft, hard uint64, ok bool) {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return 0, 0, false
	}
	return uint64(r.Cur), uint64(r.Max), true
}

//go:build unix

package sweep

import "syscall"

// raiseNOFILE raises the open-files limit to at least want (the hard limit too, which
// needs privilege), or else the soft limit to the hard limit; it returns the soft limit.
func raiseNOFILE(want uint64) uint64 {
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim) != nil {
		return 0
	}
	if lim.Cur >= want {
		return lim.Cur
	}
	if lim.Max < want && syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: want, Max: want}) == nil {
		return want
	}
	lim.Cur = lim.Max
	_ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim)
	_ = syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim)
	return lim.Cur
}

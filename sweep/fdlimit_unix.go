//go:build unix

package sweep

import "syscall"

// getNoFile returns RLIMIT_NOFILE's soft and hard limits.
func getNoFile() (soft, hard uint64, err error) {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return 0, 0, err
	}
	return uint64(r.Cur), uint64(r.Max), nil
}

// setNoFile sets RLIMIT_NOFILE.
func setNoFile(soft, hard uint64) error {
	r := syscall.Rlimit{Cur: soft, Max: hard}
	return syscall.Setrlimit(syscall.RLIMIT_NOFILE, &r)
}

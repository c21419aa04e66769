//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package rundir

import "os"

// tryLock does nothing where flock is not available: run directories are not locked.
func tryLock(*os.File) error { return nil }

// unlock does nothing where flock is not available.
func unlock(*os.File) error { return nil }

// locksWork: run directories are not locked here (SweepGone cannot tell).
const locksWork = false

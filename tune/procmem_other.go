//go:build !linux

package tune

// groupRSSBytes is 0 off Linux: there is no /proc to read.
func groupRSSBytes(int) (uint64, []int) { return 0, nil }

// startTicks is unknown off Linux.
func startTicks(int) (uint64, bool) { return 0, false }

// groupAlive cannot tell off Linux; it says no.
func groupAlive(int) bool { return false }

//go:build !unix

package main

// openFilesLimit is unknown on this platform (ok false: the check passes).
func openFilesLimit() (soft, hard uint64, ok bool) { return 0, 0, false }

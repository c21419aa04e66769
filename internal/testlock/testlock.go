// Package testlock serialises llmcap's timing-critical tests across the packages that
// `go test ./...` runs at once: a test that launches servers and judges latencies
// (a tune, a capacity search, a scrape against its limits) holds one machine-wide lock
// for its duration, so no two of them share the CPUs; the other tests still run beside
// them. For tests only.
package testlock

import (
	"os"
	"path/filepath"
	"testing"
)

// Hold takes the lock for the rest of t (released by t.Cleanup), waiting while another
// test holds it. The lock is a file in the temporary directory, locked with flock
// (elsewhere than Unix it does nothing). A failure to take it only logs: the test then
// runs unserialised.
func Hold(t testing.TB) {
	t.Helper()
	path := filepath.Join(os.TempDir(), "llmcap-timing-tests.lock")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o666)
	if err != nil {
		t.Logf("testlock: %v (running unserialised)", err)
		return
	}
	if err := lock(f); err != nil {
		f.Close()
		t.Logf("testlock: %v (running unserialised)", err)
		return
	}
	t.Cleanup(func() { f.Close() }) // closing the file releases the lock
}

package proctime

import (
	"runtime"
	"testing"
	"time"
)

// TestCPUCountsBusyWork: 50 ms of a busy loop adds between 40 ms and 5 s of CPU time
// (wide: a loaded machine deschedules the loop, but its CPU time still accrues).
func TestCPUCountsBusyWork(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" && runtime.GOOS != "windows" {
		t.Skip("no CPU time here")
	}
	before := CPU()
	x := 0
	for busy := time.Now(); CPU()-before < 50*time.Millisecond && time.Since(busy) < 5*time.Second; {
		x++
	}
	got := CPU() - before
	if got < 40*time.Millisecond || got > 5*time.Second {
		t.Fatalf("CPU time grew %v over a 50 ms busy loop (%d turns)", got, x)
	}
}

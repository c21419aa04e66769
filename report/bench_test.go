package report

import (
	"syscall"
	"testing"
	"time"
)

// cpuTime is this process's user+system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkWriteAll writes every format for a 3-segment (+ mix) × 8-step run with
// 100k records (acceptance: ≤ 5 s per report). It also reports CPU seconds per report,
// which, unlike wall time, does not depend on other load on the machine. Run with:
//
//	go test ./report/ -run '^$' -bench WriteAll -benchtime 3x
func BenchmarkWriteAll(b *testing.B) {
	a := fxAnalysis()
	steps := 0
	for _, seg := range allSegments(a) {
		steps += len(seg.Steps)
	}
	dir := fxWriteRunDir(b, a, 100_000/steps+1)
	cpu0 := cpuTime()
	b.ResetTimer()
	for b.Loop() {
		if err := Write(dir, a, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
}

package report

import (
	"testing"

	"github.com/llmcap/llmcap/internal/proctime"
)

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
	cpu0 := proctime.CPU()
	b.ResetTimer()
	for b.Loop() {
		if err := Write(dir, a, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((proctime.CPU()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
}

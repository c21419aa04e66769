package analysis

import (
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/llmcap/llmcap/internal/proctime"
	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
)

// writeMillion writes a run directory of n records (any n, despite the name) over 10 concurrency steps, shaped
// like a queue-bound server (8 slots), streamed to disk.
func writeMillion(b testing.TB, n int) (string, plan.Plan) {
	b.Helper()
	loads := []int{2, 4, 8, 12, 16, 24, 32, 40, 48, 64}
	p := plan.Plan{Name: "million", Seed: 3, Segments: []plan.Segment{{Name: "chat", Weight: 1}},
		Ladder: plan.Ladder{Concurrency: loads},
		SLA:    plan.SLA{TTFTMs: map[string]float64{"p95": 3000}, ITLMs: map[string]float64{"p50": 20}}}
	dir := b.TempDir()
	meta := metaFor(p)
	w, err := rundir.OpenWriter(dir)
	if err != nil {
		b.Fatal(err)
	}
	if err := w.WriteMeta(&meta); err != nil {
		b.Fatal(err)
	}
	batch := make([]*rundir.Record, 0, 10_000)
	flush := func() {
		if err := w.AppendRecords(batch); err != nil {
			b.Fatal(err)
		}
		batch = batch[:0]
	}
	rng := rand.New(rand.NewPCG(1, 2))
	const T = int64(1_700_000_000) * 1e9
	per := n / len(loads)
	for si, c := range loads {
		wait := float64(max(c-8, 0)) * 115
		for i := 0; i < per; i++ {
			sent := T + int64(si)*1e12 + int64(i)*int64(1e9/float64(min(c, 8)))
			ttft := 12 + wait*(0.5+rng.Float64())
			itl := 8 + 0.1*float64(min(c, 8)) + rng.Float64()
			out := 50 + rng.IntN(100)
			e2e := ttft + itl*float64(out-1)
			r := rundir.Record{RunID: "test", Segment: "chat", Step: si, Schedule: "concurrency", Concurrency: c,
				Phase: rundir.PhaseMeasure, RequestID: "r" + strconv.Itoa(i), SessionID: "s" + strconv.Itoa(i%c),
				SentNs: sent, FirstTokenNs: sent + int64(ttft*1e6), EndNs: sent + int64(e2e*1e6),
				TTFTMs: fp(ttft), TTFOMs: fp(ttft), ITLMs: fp(itl), E2EMs: fp(e2e),
				IntendedPromptTokens: 200, IntendedOutputTokens: out, PromptTokens: 200, OutputTokens: out,
				TokensSource: rundir.TokensUsage, Chunks: out, FinishReason: "length", Status: rundir.StatusOK}
			if i%500 == 0 {
				r.Status, r.ErrorClass, r.Error, r.TTFTMs = rundir.StatusError, rundir.ErrHTTP5xx, "upstream \"busy\"", nil
			}
			batch = append(batch, &r)
			if len(batch) == cap(batch) {
				flush()
			}
		}
	}
	flush()
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	return dir, p
}

// BenchmarkAnalyzeMillion analyses one million records and reports the wall time per
// analysis, the peak Go heap and the process's peak RSS (VmHWM). Run with
// go test -run '^$' -bench AnalyzeMillion -benchtime 1x ./analysis
func BenchmarkAnalyzeMillion(b *testing.B) {
	dir, _ := writeMillion(b, 1_000_000)
	runtime.GC()
	peak := startHeapWatch()
	b.ResetTimer()
	cpu0 := proctime.CPU()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		a, err := Analyze(dir)
		if err != nil {
			b.Fatal(err)
		}
		if n := a.Segments[0].Steps[0].Requests; n != 100_000 {
			b.Fatalf("step 0 has %d requests", n)
		}
	}
	el := time.Since(start) / time.Duration(b.N)
	cpu := (proctime.CPU() - cpu0) / time.Duration(b.N)
	b.StopTimer()
	heap := peak()
	rss := vmHWM()
	b.ReportMetric(el.Seconds(), "s/analysis")
	b.ReportMetric(cpu.Seconds(), "cpu-s/analysis")
	b.ReportMetric(float64(heap)/(1<<20), "MiB-peak-heap")
	b.ReportMetric(float64(rss)/(1<<20), "MiB-peak-RSS")
	b.Logf("1,000,000 records: %.2f s wall (%.2f s CPU) per analysis, peak heap %.0f MiB, peak RSS %.0f MiB",
		el.Seconds(), cpu.Seconds(), float64(heap)/(1<<20), float64(rss)/(1<<20))
	t0, c0 := time.Now(), proctime.CPU()
	in, err := readRun(dir)
	if err != nil {
		b.Fatal(err)
	}
	t1, c1 := time.Now(), proctime.CPU()
	analyzeInputs(in)
	b.Logf("phases: read %.2f s wall (%.2f s CPU), statistics+model+bootstrap %.2f s wall (%.2f s CPU)",
		t1.Sub(t0).Seconds(), (c1 - c0).Seconds(), time.Since(t1).Seconds(), (proctime.CPU() - c1).Seconds())
}

// startHeapWatch samples the live heap every 5 ms; the returned func stops it and gives
// the peak in bytes.
func startHeapWatch() func() uint64 {
	done := make(chan struct{})
	res := make(chan uint64)
	go func() {
		var peak uint64
		sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(sample) // no stop-the-world, unlike runtime.ReadMemStats
			peak = max(peak, sample[0].Value.Uint64())
			select {
			case <-done:
				res <- peak
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 { close(done); return <-res }
}

// vmHWM returns the process's peak resident set size in bytes (Linux; 0 elsewhere).
func vmHWM() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			f := strings.Fields(line)
			if len(f) >= 2 {
				kb, _ := strconv.ParseUint(f[1], 10, 64)
				return kb << 10
			}
		}
	}
	return 0
}

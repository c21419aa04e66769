package compare

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/llmcap/llmcap/sla"
)

// Bootstrap settings: BootstrapReps resamples per run and step, from BootstrapSeed.
const (
	BootstrapReps = 1000
	BootstrapSeed = 0xc0391a5e
)

// Metric indexes into stepStats (Metrics' order).
const (
	iTTFTP50 = iota
	iTTFTP95
	iITLP95
	iOutputTP
	iGoodput
)

// stepStats are a step's delta-table metrics, indexed like Metrics; n the requests
// behind each (0: no value).
type stepStats struct {
	v [5]float64
	n [5]int
}

// latencyStats sets s's TTFT p50/p95 and ITL p95 (numpy-linear percentiles,
// sla.Percentile) over the requests qs that define them; buf is reused scratch.
func latencyStats(s *stepStats, qs []req, buf *[2][]float64) {
	ttft, itl := buf[0][:0], buf[1][:0]
	for i := range qs {
		if q := &qs[i]; !math.IsNaN(q.ttft) {
			ttft = append(ttft, q.ttft)
		}
		if q := &qs[i]; !math.IsNaN(q.itl) {
			itl = append(itl, q.itl)
		}
	}
	buf[0], buf[1] = ttft, itl
	if len(ttft) > 0 {
		slices.Sort(ttft)
		s.v[iTTFTP50], s.v[iTTFTP95] = sla.Percentile(ttft, 0.50), sla.Percentile(ttft, 0.95)
		s.n[iTTFTP50], s.n[iTTFTP95] = len(ttft), len(ttft)
	}
	if len(itl) > 0 {
		slices.Sort(itl)
		s.v[iITLP95], s.n[iITLP95] = sla.Percentile(itl, 0.95), len(itl)
	}
}

// rateSums are the sums behind a step's throughputs: output tokens, good requests,
// and the time in flight (E2E, ms) of the requests that define it, over requests.
type rateSums struct {
	out, good, e2e float64
	e2eN           int
}

func sumsOf(qs []req) rateSums {
	var r rateSums
	for i := range qs {
		q := &qs[i]
		r.out += float64(q.out)
		if q.good {
			r.good++
		}
		if !math.IsNaN(q.e2e) {
			r.e2e += q.e2e
			r.e2eN++
		}
	}
	return r
}

// rates sets s's output tokens and good requests per second of a resample with sums
// b, against the step's own sums base over its span of durationS seconds: the sums
// over the span, and in a closed loop (closed: concurrency or users; Little's law,
// X = N / R) scaled by the step's mean E2E over the resample's, since a slower draw of
// the same requests completes fewer of them in the span. Resampling requests holds
// their number fixed, so without that scaling a step whose replies all have one
// length would show no throughput noise at all.
func rates(s *stepStats, b, base rateSums, n int, durationS float64, closed bool) {
	if durationS <= 0 || n == 0 {
		return
	}
	f := 1.0
	if closed && b.e2eN > 0 && base.e2eN > 0 && b.e2e > 0 {
		f = (base.e2e / float64(base.e2eN)) / (b.e2e / float64(b.e2eN))
	}
	s.v[iOutputTP], s.v[iGoodput] = f*b.out/durationS, f*b.good/durationS
	s.n[iOutputTP], s.n[iGoodput] = n, n
}

// statsOf is a step's metrics: the latencies of requests qs, the throughputs over its
// span of durationS seconds.
func statsOf(qs []req, durationS float64) stepStats {
	var s stepStats
	var buf [2][]float64
	latencyStats(&s, qs, &buf)
	sums := sumsOf(qs)
	rates(&s, sums, sums, len(qs), durationS, false)
	return s
}

// resampled draws reps bootstrap resamples of a step's requests qs from rng (len(qs)
// drawn with replacement each) and returns each resample's metrics: the latencies'
// percentiles, and the throughputs over the step's span (closed: a closed loop, see
// rates).
func resampled(qs []req, durationS float64, closed bool, reps int, rng *rand.Rand) []stepStats {
	out := make([]stepStats, reps)
	draw := make([]req, len(qs))
	base := sumsOf(qs)
	var buf [2][]float64
	for r := range out {
		for i := range draw {
			draw[i] = qs[rng.IntN(len(qs))]
		}
		latencyStats(&out[r], draw, &buf)
		rates(&out[r], sumsOf(draw), base, len(draw), durationS, closed)
	}
	return out
}

// interval is the 95% percentile interval of the differences b[k] − a[k] of metric m
// over the resamples where both have a value; ok is false when none has.
func interval(a, b []stepStats, m int) (lo, hi float64, ok bool) {
	var d []float64
	for k := range a {
		if a[k].n[m] > 0 && b[k].n[m] > 0 {
			d = append(d, b[k].v[m]-a[k].v[m])
		}
	}
	if len(d) == 0 {
		return 0, 0, false
	}
	slices.Sort(d)
	return sla.Percentile(d, 0.025), sla.Percentile(d, 0.975), true
}

// rngFor is the random stream of run i at one step of the delta table: fixed by the
// seed, the run's position and the step's, so the table is the same on every call.
func rngFor(run, row int) *rand.Rand {
	return rand.New(rand.NewPCG(BootstrapSeed, uint64(run)<<32|uint64(row)))
}

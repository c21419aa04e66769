package analysis

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestModelLossSolvesEachPointOnce checks that modelLoss, which solves the model once
// per point, gives bit for bit the sum of squared log-ratios of m.ttft, m.itl and m.e2e
// (each solving it again) for closed, open and users models around saturation, with
// an undefined (NaN) and a zero measurement left out.
func TestModelLossSolvesEachPointOnce(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 13))
	for k := 0; k < 300; k++ {
		m := qmodel{c: 1 + rng.Float64()*30, t0: 5 + rng.Float64()*50, tp: rng.Float64(), d0: 5 + rng.Float64()*10,
			d1: rng.Float64() * 0.5, open: k%3 == 1}
		if k%3 == 2 {
			m.think = 500 + rng.Float64()*2000
		}
		var pts []point
		for i := 0; i < 8; i++ {
			p := point{n: 1 + rng.Float64()*60, lout: 20 + rng.Float64()*200,
				ttftMean: 10 + rng.Float64()*500, itlMean: 5 + rng.Float64()*20, e2eMean: 100 + rng.Float64()*5000}
			switch i {
			case 3:
				p.itlMean = math.NaN()
			case 5:
				p.ttftMean = 0
			}
			pts = append(pts, p)
		}
		var want float64
		sq := func(pred, meas float64) {
			if meas > 0 && pred > 0 && !math.IsNaN(meas) {
				d := math.Log(pred / meas)
				want += d * d
			}
		}
		for _, p := range pts {
			sq(m.ttft(p.n, p.lout), p.ttftMean)
			sq(m.itl(p.n, p.lout), p.itlMean)
			sq(m.e2e(p.n, p.lout), p.e2eMean)
		}
		if math.IsNaN(want) || math.IsInf(want, 0) {
			want = math.MaxFloat64
		}
		if got := modelLoss(pts, m); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("model %+v: modelLoss %v, per-metric sum %v", m, got, want)
		}
	}
}

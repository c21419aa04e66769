package rundir

import (
	"math"
	"slices"
	"strconv"
	"strings"
)

// SimLatenessFamily is the embedded simulator's histogram of how late its iterations
// ended on the wall clock (seconds): the driver's scheduling delay. A simulator starved
// of CPU runs late, and its latencies then measure the host, not the modelled engine.
const SimLatenessFamily = "llmcap_sim_iteration_lateness_seconds"

// Histogram is a Prometheus histogram of one scrape: cumulative counts by upper bound
// (ascending, +Inf last), summed over label sets.
type Histogram struct {
	Bounds []float64
	Counts []float64
}

// ServerHistogram reads histogram family (e.g. SimLatenessFamily) from s's flattened
// family_bucket{…le="x"…} keys, adding the counts of label sets with the same bound;
// without a +Inf bucket the family's _count closes it. ok is false without buckets.
func ServerHistogram(s MetricSample, family string) (Histogram, bool) {
	byLe := map[float64]float64{}
	total, hasTotal := 0.0, false
	for k, v := range s.Values {
		base, labels, _ := strings.Cut(k, "{")
		switch base {
		case family + "_bucket":
			le, ok := labelValue(labels, "le")
			if !ok {
				continue
			}
			b, err := strconv.ParseFloat(le, 64)
			if err != nil {
				continue
			}
			byLe[b] += v
		case family + "_count":
			total += v
			hasTotal = true
		}
	}
	if len(byLe) == 0 {
		return Histogram{}, false
	}
	if _, ok := byLe[math.Inf(1)]; !ok && hasTotal {
		byLe[math.Inf(1)] = total
	}
	h := Histogram{}
	for b := range byLe {
		h.Bounds = append(h.Bounds, b)
	}
	slices.Sort(h.Bounds)
	for _, b := range h.Bounds {
		h.Counts = append(h.Counts, byLe[b])
	}
	return h, true
}

// labelValue is the value of label name in a flattened label list (`a="x",b="y"}`).
func labelValue(labels, name string) (string, bool) {
	for _, part := range strings.Split(strings.TrimSuffix(labels, "}"), ",") {
		k, v, ok := strings.Cut(part, "=")
		if ok && k == name {
			return strings.Trim(v, `"`), true
		}
	}
	return "", false
}

// Since is h minus an earlier scrape of the same histogram: the observations between the
// two. Bounds missing from earlier count as 0; a counter reset (a negative difference)
// gives h itself.
func (h Histogram) Since(earlier Histogram) Histogram {
	out := Histogram{Bounds: h.Bounds, Counts: make([]float64, len(h.Counts))}
	for i, b := range h.Bounds {
		prev := 0.0
		if j := slices.Index(earlier.Bounds, b); j >= 0 {
			prev = earlier.Counts[j]
		}
		out.Counts[i] = h.Counts[i] - prev
		if out.Counts[i] < 0 {
			return h
		}
	}
	return out
}

// Total is the number of observations (the +Inf bucket's count).
func (h Histogram) Total() float64 {
	if len(h.Counts) == 0 {
		return 0
	}
	return h.Counts[len(h.Counts)-1]
}

// Quantile estimates the q-quantile (0..1) as Prometheus's histogram_quantile does:
// linear within the bucket that holds rank q·total (from 0, or from the previous bound),
// the highest finite bound when the rank falls in the +Inf bucket. NaN without
// observations.
func (h Histogram) Quantile(q float64) float64 {
	total := h.Total()
	if total <= 0 || len(h.Bounds) == 0 {
		return math.NaN()
	}
	rank := q * total
	lower, below := 0.0, 0.0
	for i, b := range h.Bounds {
		if h.Counts[i] >= rank {
			if math.IsInf(b, 1) {
				if i == 0 {
					return math.NaN()
				}
				return h.Bounds[i-1]
			}
			in := h.Counts[i] - below
			if in <= 0 {
				return b
			}
			return lower + (b-lower)*(rank-below)/in
		}
		lower, below = b, h.Counts[i]
	}
	return h.Bounds[len(h.Bounds)-1]
}

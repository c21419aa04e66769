package rundir

import (
	"math"
	"strconv"
	"strings"
)

// ServerSeries is meaning m's value per label set in one scrape, in m's Unit: the
// first of m's names present in s (as ServerValue picks it), each label set's value
// multiplied by the name's Scale, keyed by the label list as the scraper flattened it
// (`gpu="0",UUID="GPU-…"`, "" for a name without labels). nil when s holds none of
// m's names (or m is outside the table). It is how a per-GPU figure (DCGM's one label
// set per GPU) is read before ServerValue's aggregate.
func ServerSeries(s MetricSample, m ServerMetric) map[string]float64 {
	d, known := serverMetricTable[m]
	if !known {
		return nil
	}
	best := len(d.names)
	var out map[string]float64
	for k, v := range s.Values {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		base, labels, _ := strings.Cut(k, "{")
		rank := nameRank(d.names, base)
		if rank < 0 || rank > best {
			continue
		}
		if rank < best {
			best, out = rank, map[string]float64{}
		}
		out[strings.TrimSuffix(labels, "}")] = v * d.names[rank].Scale
	}
	return out
}

// MetricLabels parses a flattened label list (`a="x",b="y"`, as ServerSeries keys it,
// values quoted by strconv.Quote) into name → value; a malformed tail is ignored.
func MetricLabels(labels string) map[string]string {
	out := map[string]string{}
	rest := strings.TrimSuffix(strings.TrimPrefix(labels, "{"), "}")
	for rest != "" {
		name, tail, ok := strings.Cut(rest, "=")
		if !ok {
			break
		}
		q, err := strconv.QuotedPrefix(tail)
		if err != nil {
			break
		}
		v, err := strconv.Unquote(q)
		if err != nil {
			break
		}
		out[name] = v
		rest = strings.TrimPrefix(tail[len(q):], ",")
	}
	return out
}

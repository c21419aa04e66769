package plan

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// GoodputStat is the statistic at which an AIPerf-style goodput bound enters the SLA
// (sla.goodput, --goodput). AIPerf judges each request against its thresholds: a
// request is good when its own TTFT, ITL, … are each ≤ the threshold, and goodput is
// the good requests per second. llmcap's goodput counts exactly those requests
// (docs/metrics.md "goodput": per request, the same thresholds), so the goodput
// figure is AIPerf's. AIPerf gives no pass/fail verdict; llmcap's capacity needs one per
// step, and it judges each goodput metric at its p95: a step passes when at least 95%
// of its requests meet that metric's threshold (with several metrics, each metric
// separately, not 95% meeting all at once).
const GoodputStat = "p95"

// GoodputMetrics are the AIPerf metric names sla.goodput accepts, in SLAMetrics order,
// and the SLA metric each one bounds: time_to_first_token → ttft,
// time_to_first_output_token → ttfo, inter_token_latency → itl (AIPerf's per-request
// ITL is llmcap's, (E2E − TTFT) / (OSL − 1)), request_latency → e2e.
var GoodputMetrics = []string{"time_to_first_token", "time_to_first_output_token", "inter_token_latency", "request_latency"}

// GoodputBound is one parsed "metric:value" pair of a goodput string.
type GoodputBound struct {
	// Metric is the AIPerf name (one of GoodputMetrics).
	Metric string
	// SLAMetric is the SLA metric it bounds ("ttft", "ttfo", "itl", "e2e").
	SLAMetric string
	// ThresholdMs is the per-request threshold in ms (> 0).
	ThresholdMs float64
}

// ParseGoodput parses AIPerf's --goodput syntax: space-separated metric:value pairs,
// values in ms, e.g. "time_to_first_token:500 inter_token_latency:50". It returns the
// bounds in the order given, or an error saying which pair is wrong and what is
// allowed: a pair without ":", a metric not in GoodputMetrics, a value that is not a
// finite number > 0, a metric given twice, or no pair at all. The callers quote s
// before the error, so the error quotes a pair only when s holds several.
func ParseGoodput(s string) ([]GoodputBound, error) {
	fields := strings.Fields(s)
	if len(fields) == 0 {
		return nil, fmt.Errorf("no metric:value pair: %s", GoodputForm)
	}
	var out []GoodputBound
	for _, f := range fields {
		name, val, ok := strings.Cut(f, ":")
		if !ok && len(fields) == 1 {
			return nil, fmt.Errorf("not metric:value: %s", GoodputForm)
		}
		if !ok {
			return nil, fmt.Errorf("%q is not metric:value: %s", f, GoodputForm)
		}
		i := slices.Index(GoodputMetrics, name)
		if i < 0 {
			return nil, fmt.Errorf("unknown metric %q: %s", name, oneOf(GoodputMetrics))
		}
		ms, err := strconv.ParseFloat(val, 64)
		if err != nil || !(ms > 0) || math.IsInf(ms, 0) {
			return nil, fmt.Errorf("%s's threshold %q must be a number of ms > 0", name, val)
		}
		for _, b := range out {
			if b.Metric == name {
				return nil, fmt.Errorf("%s is given twice: give each metric once", name)
			}
		}
		out = append(out, GoodputBound{Metric: name, SLAMetric: SLAMetrics[i], ThresholdMs: ms})
	}
	return out, nil
}

// GoodputForm says what a goodput string looks like (in ParseGoodput's errors and the
// --goodput flag's).
const GoodputForm = `want space-separated metric:value pairs, values in ms, ` +
	`e.g. "time_to_first_token:500 inter_token_latency:50"`

// slaMap returns a pointer to the SLA's latency map of metric ("ttft", "ttfo", "itl",
// "e2e"), nil for another name.
func (s *SLA) slaMap(metric string) *map[Percentile]float64 {
	switch metric {
	case "ttft":
		return &s.TTFTMs
	case "ttfo":
		return &s.TTFOMs
	case "itl":
		return &s.ITLMs
	case "e2e":
		return &s.E2EMs
	}
	return nil
}

// expandGoodput moves sla.goodput into the latency maps: each bound becomes the
// metric's GoodputStat entry (sla.ttft_ms.p95 for time_to_first_token), and Goodput is
// cleared, so the resolved plan states each bound once. A bad string, or a bound whose
// map already holds a different p95 threshold, is a problem at sla.goodput (the maps are
// then left as they are). --goodput sets both sla.goodput and the p95 keys, so the flag
// never clashes with the file.
func (p *Plan) expandGoodput(ps *problems) {
	s := &p.SLA
	if strings.TrimSpace(s.Goodput) == "" {
		s.Goodput = ""
		return
	}
	bounds, err := ParseGoodput(s.Goodput)
	if err != nil {
		ps.add("sla.goodput", s.Goodput, "%v", err)
		return
	}
	for _, b := range bounds {
		m := s.slaMap(b.SLAMetric)
		if old, ok := (*m)[GoodputStat]; ok && old != b.ThresholdMs {
			ps.add("sla.goodput", s.Goodput, "%s:%g contradicts sla.%s_ms.%s = %g: give each bound once",
				b.Metric, b.ThresholdMs, b.SLAMetric, GoodputStat, old)
			return
		}
	}
	for _, b := range bounds {
		m := s.slaMap(b.SLAMetric)
		if *m == nil {
			*m = map[Percentile]float64{}
		}
		(*m)[GoodputStat] = b.ThresholdMs
	}
	s.Goodput = ""
}

package rundir

import (
	"math"
	"strings"
)

// ServerMetric is a quantity llmcap reads from a server's scraped Prometheus metrics
// (server-metrics.jsonl), whatever the engine calls it. Each meaning has one unit;
// ServerValue converts every engine's name to it (servermetrics_table.go lists the
// names, their scales and their sources).
type ServerMetric int

// The server metrics llmcap reads.
const (
	// ServerRequestsRunning is the number of requests in the running batch (requests).
	ServerRequestsRunning ServerMetric = iota + 1
	// ServerRequestsWaiting is the number of requests queued, not yet running (requests).
	ServerRequestsWaiting
	// ServerKVCacheUsage is the fraction of the KV cache in use, 0..1 (the fullest
	// cache when several engines report).
	ServerKVCacheUsage
	// ServerPreemptions is the cumulative number of preempted (vLLM) or retracted
	// (SGLang) requests, a counter (requests).
	ServerPreemptions
	// ServerPrefixCacheHitTokens is the cumulative number of prompt tokens served from
	// the prefix cache, a counter (tokens).
	ServerPrefixCacheHitTokens
	// ServerPrefixCacheQueryTokens is the cumulative number of prompt tokens looked up
	// in the prefix cache, a counter (tokens).
	ServerPrefixCacheQueryTokens
	// ServerPrefixCacheHitRate is the engine's own prefix-cache hit rate, 0..1 (a gauge,
	// for engines without the hit/query counters).
	ServerPrefixCacheHitRate
	// ServerGPUUtilization is the fraction of time the GPU was busy, 0..1 (mean over GPUs).
	ServerGPUUtilization
	// ServerGPUPowerW is the GPUs' power draw in watts (sum over GPUs).
	ServerGPUPowerW
	// ServerGPUMemoryUsedMiB is the GPUs' used framebuffer memory in MiB (sum over GPUs).
	ServerGPUMemoryUsedMiB
	// ServerGPUEnergyJ is the GPUs' energy consumed since boot in joules, a counter (sum
	// over GPUs; dcgm-exporter reports mJ).
	ServerGPUEnergyJ
)

// ServerAggregate says how ServerValue combines the label sets (engines, DP ranks,
// GPUs, models) of one metric name in one scrape.
type ServerAggregate int

// Aggregations over label sets.
const (
	// AggregateSum adds the label sets (counts, counters, watts, memory).
	AggregateSum ServerAggregate = iota + 1
	// AggregateMax takes the largest (a fraction where the fullest one binds).
	AggregateMax
	// AggregateMean averages the label sets (a fraction shared by peers).
	AggregateMean
)

// ServerMetricName is one engine's name for a ServerMetric.
type ServerMetricName struct {
	// Name is the metric family as the scraper flattens it: a counter with its _total
	// suffix, labels excluded (e.g. "vllm:num_preemptions_total").
	Name string
	// Scale multiplies the engine's value into the meaning's unit: 1, or 0.01 for a
	// percentage read as a fraction.
	Scale float64
	// Source is the engine, version and file the name was checked against.
	Source string
}

// serverMetricDef is one meaning's entry of the name table.
type serverMetricDef struct {
	key   string // stable identifier, e.g. "requests_running"
	unit  string // unit of the value ServerValue returns
	agg   ServerAggregate
	names []ServerMetricName // in priority order: the first name present wins
}

// AllServerMetrics lists every ServerMetric, in declaration order.
func AllServerMetrics() []ServerMetric {
	out := make([]ServerMetric, 0, len(serverMetricTable))
	for m := ServerRequestsRunning; m <= ServerGPUEnergyJ; m++ {
		out = append(out, m)
	}
	return out
}

// String is the meaning's stable identifier, e.g. "kv_cache_usage" ("unknown" for a
// value outside the table).
func (m ServerMetric) String() string {
	if d, ok := serverMetricTable[m]; ok {
		return d.key
	}
	return "unknown"
}

// Unit is the unit of ServerValue's result for m: "requests", "fraction" (0..1),
// "tokens", "W", "MiB" or "J" ("" for a value outside the table).
func (m ServerMetric) Unit() string { return serverMetricTable[m].unit }

// Aggregate is how ServerValue combines m's label sets (0 for a value outside the table).
func (m ServerMetric) Aggregate() ServerAggregate { return serverMetricTable[m].agg }

// ServerMetricNames lists the engine names read for m, in priority order (a copy; nil
// for a value outside the table).
func ServerMetricNames(m ServerMetric) []ServerMetricName {
	return append([]ServerMetricName(nil), serverMetricTable[m].names...)
}

// ServerMetricOf is the meaning a scraped key ("name" or "name{labels}") is read for;
// ok is false when no meaning reads it.
func ServerMetricOf(key string) (m ServerMetric, ok bool) {
	base, _, _ := strings.Cut(key, "{")
	m, ok = serverMetricByName[base]
	return m, ok
}

// ServerValue is the value of meaning m in one scrape, in m's Unit: of the names
// listed for m, the first that has a finite value in s is read, its label sets
// combined by m's Aggregate and the result multiplied by the name's Scale. ok is false
// when s holds none of m's names (or m is outside the table).
func ServerValue(s MetricSample, m ServerMetric) (float64, bool) {
	d, known := serverMetricTable[m]
	if !known {
		return 0, false
	}
	best, acc, n := len(d.names), 0.0, 0
	for k, v := range s.Values {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		base, _, _ := strings.Cut(k, "{")
		rank := nameRank(d.names, base)
		if rank < 0 || rank > best {
			continue
		}
		if rank < best { // a name earlier in the list: start over with it
			best, acc, n = rank, 0, 0
		}
		acc = aggregate(d.agg, acc, v, n)
		n++
	}
	if n == 0 {
		return 0, false
	}
	if d.agg == AggregateMean {
		acc /= float64(n)
	}
	return acc * d.names[best].Scale, true
}

// nameRank is the index of name in names, -1 when absent.
func nameRank(names []ServerMetricName, name string) int {
	for i := range names {
		if names[i].Name == name {
			return i
		}
	}
	return -1
}

// aggregate folds v into acc, the aggregate of the n values before it (a mean is
// accumulated as a sum and divided at the end).
func aggregate(agg ServerAggregate, acc, v float64, n int) float64 {
	if agg == AggregateMax {
		if n == 0 || v > acc {
			return v
		}
		return acc
	}
	return acc + v
}

// serverMetricByName maps each listed engine name to its meaning.
var serverMetricByName = func() map[string]ServerMetric {
	out := map[string]ServerMetric{}
	for m, d := range serverMetricTable {
		for _, n := range d.names {
			out[n.Name] = m
		}
	}
	return out
}()

package analysis

import (
	"math"

	"github.com/llmcap/llmcap/rundir"
)

// PrefixCacheSource says where a step's prefix-cache hit rate comes from.
type PrefixCacheSource string

// Sources of a prefix-cache hit rate.
const (
	// PrefixFromCounters: the increase of the hit-token counter over the increase of
	// the query-token counter across the step's window (vLLM V1
	// vllm:prefix_cache_hits_total / vllm:prefix_cache_queries_total).
	PrefixFromCounters PrefixCacheSource = "counters"
	// PrefixFromGauge: the mean of the engine's own hit-rate gauge over the window's
	// scrapes (SGLang sglang:cache_hit_rate, vLLM V0 gpu_prefix_cache_hit_rate), for
	// engines without the counters.
	PrefixFromGauge PrefixCacheSource = "gauge"
)

// PrefixCacheStats is a step's prefix-cache hit rate over its measurement window.
type PrefixCacheStats struct {
	// HitRate is the fraction of looked-up prompt tokens served from the cache, 0..1.
	HitRate float64 `json:"hit_rate"`
	// HitTokens and QueryTokens are the counters' increases over the window (tokens;
	// 0 for the gauge source).
	HitTokens   float64           `json:"hit_tokens,omitempty"`
	QueryTokens float64           `json:"query_tokens,omitempty"`
	Source      PrefixCacheSource `json:"source"`
}

// prefixAcc accumulates the prefix-cache counters and gauge over one step's window.
type prefixAcc struct {
	hitFirst, hitLast, qFirst, qLast float64
	counters                         bool
	gaugeSum                         float64
	gaugeN                           int
}

// add reads one scrape's prefix-cache counters (both must be present) and gauge.
func (p *prefixAcc) add(m *rundir.MetricSample) {
	hit, okH := rundir.ServerValue(*m, rundir.ServerPrefixCacheHitTokens)
	q, okQ := rundir.ServerValue(*m, rundir.ServerPrefixCacheQueryTokens)
	if okH && okQ {
		if !p.counters {
			p.hitFirst, p.qFirst, p.counters = hit, q, true
		}
		p.hitLast, p.qLast = hit, q
	}
	if g, ok := rundir.ServerValue(*m, rundir.ServerPrefixCacheHitRate); ok {
		p.gaugeSum += g
		p.gaugeN++
	}
}

// stats is the window's hit rate: from the counters when prompt tokens were looked up
// between the first and the last scrape (a counter reset, a negative increase, reads as
// none), else from the gauge; nil when neither is known.
func (p *prefixAcc) stats() *PrefixCacheStats {
	if p.counters {
		dq, dh := p.qLast-p.qFirst, p.hitLast-p.hitFirst
		if dq > 0 && dh >= 0 {
			return &PrefixCacheStats{HitRate: math.Min(1, dh/dq), HitTokens: dh, QueryTokens: dq, Source: PrefixFromCounters}
		}
	}
	if p.gaugeN > 0 {
		return &PrefixCacheStats{HitRate: p.gaugeSum / float64(p.gaugeN), Source: PrefixFromGauge}
	}
	return nil
}

package plan

import (
	"maps"
	"math"
	"regexp"
	"strings"
)

// Bound is the range a plan file may give a number: the value of a number key, each
// item of a list of numbers (ladder.concurrency), or each value of a map of numbers
// (sla.ttft_ms). Zero where the loader reads 0 as "the default" is inside the bound.
type Bound struct {
	// Min and Max are the limits; HasMin and HasMax say which exist.
	Min, Max       float64
	HasMin, HasMax bool
	// MinExclusive and MaxExclusive make a limit strict (> Min, < Max).
	MinExclusive, MaxExclusive bool
}

// from is v ≥ min; above is v > min.
func from(min float64) Bound  { return Bound{Min: min, HasMin: true} }
func above(min float64) Bound { return Bound{Min: min, HasMin: true, MinExclusive: true} }

// upTo adds v ≤ max; below adds v < max.
func (b Bound) upTo(max float64) Bound { b.Max, b.HasMax = max, true; return b }
func (b Bound) below(max float64) Bound {
	b.Max, b.HasMax, b.MaxExclusive = max, true, true
	return b
}

// keyBounds are the bounds Validate enforces on plain number keys, by the reference's
// key path (list items written "[]"), the upper ones read from limits.go. Keys whose
// range depends on another key (capture.steps when capture is enabled,
// ladder.early_stop.factor when the rule is on) are not listed; neither are the lower
// bounds of distribution parameters, which depend on the dist kind.
var keyBounds = map[string]Bound{
	"target.temperature":                      from(0),
	"target.max_response_bytes":               from(0),
	"target.simulator.tensor_parallel":        above(0),
	"target.simulator.max_num_seqs":           above(0).upTo(MaxLoad),
	"target.simulator.max_num_batched_tokens": above(0).upTo(MaxTokens),
	"target.simulator.block_size":             above(0).upTo(MaxTokens),
	"target.simulator.gpu_memory_utilization": above(0).upTo(1),
	"target.simulator.compute_efficiency":     above(0).upTo(1),
	"target.simulator.bandwidth_efficiency":   above(0).upTo(1),
	"target.simulator.overhead_ms":            from(0),
	"target.simulator.speed_up":               above(0),
	"segments[].weight":                       from(0),
	"segments[].shared_prefix_tokens":         from(0).upTo(MaxTokens),
	"segments[].multi_turn.turns":             above(0).upTo(MaxTurns),
	"segments[].trace.time_scale":             from(0), // 0: the default, 1
	"segments[].trace.prompt_scale":           from(0),
	"segments[].trace.output_scale":           from(0),
	"segments[].trace.max_prompt_tokens":      from(0).upTo(MaxTokens),
	"segments[].trace.max_output_tokens":      from(0).upTo(MaxTokens),
	"segments[].trace.start_row":              from(0),
	"segments[].trace.rows":                   from(0),
	"ladder.concurrency":                      above(0).upTo(MaxLoad),
	"ladder.rate":                             above(0).upTo(MaxRate),
	"ladder.users":                            from(1).upTo(MaxLoad),
	"ladder.burstiness":                       above(0),
	"ladder.max_concurrency":                  from(0).upTo(MaxLoad),
	"ladder.warmup.requests":                  from(0).upTo(MaxRequests),
	"ladder.requests":                         from(0).upTo(MaxRequests),
	"ladder.search.start":                     from(0).upTo(math.Max(MaxLoad, MaxRate)), // 0: the default
	"ladder.search.max":                       from(0).upTo(math.Max(MaxLoad, MaxRate)),
	"ladder.search.tolerance":                 from(0).below(1),
	"ladder.search.max_steps":                 from(0).upTo(MaxSearchSteps),
	"ladder.search.growth":                    from(0),
	"sla.ttft_ms":                             above(0),
	"sla.ttfo_ms":                             above(0),
	"sla.itl_ms":                              above(0),
	"sla.e2e_ms":                              above(0),
	"sla.max_error_rate":                      from(0).upTo(1),
	"report.gpu_hour_usd":                     from(0),
	"report.power_usd_per_kwh":                from(0),
	"report.target_users":                     above(0),
	"report.headroom":                         from(0).below(1),
	"report.gpus_per_replica":                 from(0),
	"report.xlsx_max_rows":                    from(0).upTo(MaxXLSXRows), // 0: the default
}

// distParams are the number keys of a Dist mapping, each bounded by checkDist.
var distParams = []string{"value", "min", "max", "mean", "stddev"}

// tokenDists and secondsDists are the paths of the token-count and seconds
// distributions: every parameter of the first is at most MaxTokens, of the second at
// most MaxDuration in seconds (checkDist).
var (
	tokenDists   = []string{"target.simulator.output_tokens", "segments[].prompt_tokens", "segments[].output_tokens"}
	secondsDists = []string{"segments[].multi_turn.think_time_s"}
)

// distParamMax is the largest value of every parameter of a token-count (tokens) or
// seconds distribution.
func distParamMax(tokens bool) float64 {
	if tokens {
		return MaxTokens
	}
	return MaxDuration.Seconds()
}

// KeyBounds returns the numeric range of every bounded plain number key of a plan file,
// by the reference's key path ("ladder.concurrency" bounds each level,
// "sla.ttft_ms" each threshold, "segments[].prompt_tokens.max" a distribution
// parameter). Validate refuses a value outside its bound at that key; docs and the
// JSON schema read them from here. A fresh map each call.
func KeyBounds() map[string]Bound {
	out := maps.Clone(keyBounds)
	for tokens, paths := range map[bool][]string{true: tokenDists, false: secondsDists} {
		for _, p := range paths {
			for _, k := range distParams {
				out[p+"."+k] = Bound{}.upTo(distParamMax(tokens))
			}
		}
	}
	return out
}

// DistPaths returns the key paths of the plan's distributions, tokens ones
// (prompt_tokens, output_tokens) and seconds ones (think_time_s), in the reference's
// form ("segments[].prompt_tokens").
func DistPaths() (tokens, seconds []string) {
	return append([]string(nil), tokenDists...), append([]string(nil), secondsDists...)
}

// PortPattern matches a URL's explicit port that checkPort accepts: 1 to 65535,
// leading zeros allowed (a regular expression, RE2 and ECMA-262 alike).
const PortPattern = `^0*([1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])$`

var portRE = regexp.MustCompile(PortPattern)

// positiveNumberPattern matches a decimal number > 0 ("500", "0.5", "1e3").
const positiveNumberPattern = `\+?(0*[1-9][0-9]*(\.[0-9]*)?|0*\.[0-9]*[1-9][0-9]*)([eE][-+]?[0-9]+)?`

// GoodputPattern is a regular expression for sla.goodput as ParseGoodput reads it:
// space-separated GoodputMetrics:value pairs, values decimal numbers > 0 (it does not
// catch a metric given twice); blank is no bound.
func GoodputPattern() string {
	pair := "(" + strings.Join(GoodputMetrics, "|") + "):" + positiveNumberPattern
	return `^\s*(` + pair + `(\s+` + pair + `)*)?\s*$`
}

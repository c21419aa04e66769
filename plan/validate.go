package plan

import (
	"fmt"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Validate checks the whole plan and returns nil or a *ValidationError listing every
// problem at once, each with its field path, the bad value and what is allowed.
// Relative file paths are checked against the working directory (Load makes them
// absolute first).
func (p *Plan) Validate() error {
	if probs := p.problems(); len(probs) > 0 {
		return &ValidationError{Problems: probs}
	}
	return nil
}

// problems runs every check in field order, after the check for non-finite numbers
// (whose paths the other checks then do not report again).
func (p *Plan) problems() problems {
	var nonFinite problems
	p.checkFinite(&nonFinite)
	return append(nonFinite, without(p.fieldProblems(), nonFinite)...)
}

// fieldProblems runs the checks of each section, in field order.
func (p *Plan) fieldProblems() problems {
	var ps problems
	if !nameRE.MatchString(p.Name) {
		ps.add("name", p.Name, "must be letters, digits, '.', '_' or '-' (it names the run directory)")
	}
	p.checkTarget(&ps)
	p.checkSegments(&ps)
	p.checkLadder(&ps)
	p.checkStepTimeout(&ps)
	p.checkSLA(&ps)
	p.checkCapture(&ps)
	p.checkReport(&ps)
	p.checkTune(&ps)
	p.checkDrift(&ps)
	return ps
}

var nameRE = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

func oneOf(list []string) string {
	return "must be one of " + strings.Join(list, ", ")
}

// checkURL requires an absolute http(s) URL with a host; hint is added to the message
// (e.g. target.url's alternative, "simulator").
func checkURL(ps *problems, path, raw, hint string) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		ps.add(path, redactURL(raw), "must be an http:// or https:// URL with a host%s%s", hint, userInfoHint(raw))
		return
	}
	checkPort(ps, path, raw)
}

func checkFile(ps *problems, path, file string) {
	st, err := os.Stat(file)
	if err != nil || st.IsDir() {
		ps.add(path, file, "must name an existing file (relative paths are resolved against the config file's directory)")
	}
}

func positiveInt(ps *problems, path string, v int) {
	if v <= 0 {
		ps.add(path, v, "must be > 0")
	}
}

func nonNegInt(ps *problems, path string, v int) {
	if v < 0 {
		ps.add(path, v, "must be >= 0")
	}
}

// nonNegDur requires 0 <= d <= MaxDuration.
func nonNegDur(ps *problems, path string, d time.Duration) { durationRange(ps, path, d) }

// positiveDur requires 0 < d <= MaxDuration.
func positiveDur(ps *problems, path string, d time.Duration) {
	if d <= 0 {
		ps.add(path, d, "must be > 0")
		return
	}
	durationRange(ps, path, d)
}

func (p *Plan) checkTarget(ps *problems) {
	t := p.Target
	switch {
	case p.Tune != nil: // each trial's target is the server tune.launch starts
		if t.Model == "" {
			ps.add("target.model", "", "must name the model the server of tune.launch serves")
		}
	case !t.IsSimulator():
		checkURL(ps, "target.url", t.URL, fmt.Sprintf(" (or %q for the embedded simulator)", TargetSimulator))
		if t.Model == "" {
			ps.add("target.model", "", "must name the served model when target.url is a server")
		}
	case t.Model != "" && t.Model != t.Simulator.Model: // the simulator 404s any other name (sim.Server)
		ps.add("target.model", t.Model, "is not served by the embedded simulator, which answers only target.simulator.model (%s): "+
			"set target.simulator.model: %s to simulate that catalog model, or leave target.model out", t.Simulator.Model, t.Model)
	}
	if !slices.Contains(APIs, t.API) {
		ps.add("target.api", t.API, "%s", oneOf(APIs))
	}
	if t.Temperature < 0 {
		ps.add("target.temperature", t.Temperature, "must be >= 0")
	}
	for i, u := range t.MetricsURLs {
		checkURL(ps, fmt.Sprintf("target.metrics_urls[%d]", i), u, " (a Prometheus endpoint, e.g. http://127.0.0.1:8000/metrics)")
	}
	positiveDur(ps, "target.metrics_interval", t.MetricsInterval)
	nonNegDur(ps, "target.connect_timeout", t.ConnectTimeout)
	nonNegDur(ps, "target.first_byte_timeout", t.FirstByteTimeout)
	nonNegDur(ps, "target.idle_timeout", t.IdleTimeout)
	nonNegDur(ps, "target.request_timeout", t.RequestTimeout)
	if t.MaxResponseBytes < 0 {
		ps.add("target.max_response_bytes", t.MaxResponseBytes, "must be >= 0 (0: the default, 64 MiB)")
	}
	if l := t.Launch; l != nil {
		if t.IsSimulator() {
			ps.add("target.launch", raw("a launch command"), "needs target.url to be the launched server's URL (not %q)", TargetSimulator)
		}
		if len(l.Command) == 0 || l.Command[0] == "" {
			ps.add("target.launch.command", l.Command, "must be a non-empty argv list, e.g. [vllm, serve, MODEL]")
		}
		for i, e := range l.Env {
			if !strings.Contains(e, "=") {
				ps.add(fmt.Sprintf("target.launch.env[%d]", i), redactEnv(e), "must be KEY=VALUE")
			}
		}
		positiveDur(ps, "target.launch.ready_timeout", l.ReadyTimeout)
	}
	t.Simulator.check(ps)
	t.checkHeaders(ps)
}

// Validate checks the simulator settings alone (as `llmcap serve-sim` takes them) and
// returns nil or a *ValidationError whose paths start with "target.simulator.".
func (s Simulator) Validate() error {
	var ps problems
	s.check(&ps)
	if len(ps) > 0 {
		return &ValidationError{Problems: ps}
	}
	return nil
}

func (s Simulator) check(ps *problems) {
	const pre = "target.simulator."
	if s.GPU == "" {
		ps.add(pre+"gpu", s.GPU, "must name a catalog GPU, e.g. H100-SXM")
	}
	if s.Model == "" {
		ps.add(pre+"model", s.Model, "must name a catalog model, e.g. llama-3.1-8b")
	}
	if s.Catalog != "" {
		checkFile(ps, pre+"catalog", s.Catalog)
	}
	s.checkCatalogNames(ps)
	positiveInt(ps, pre+"tensor_parallel", s.TensorParallel)
	s.checkTensorParallel(ps)
	positiveInt(ps, pre+"max_num_seqs", s.MaxNumSeqs)
	atMostInt(ps, pre+"max_num_seqs", s.MaxNumSeqs, MaxLoad, "sequences in a batch")
	positiveInt(ps, pre+"max_num_batched_tokens", s.MaxNumBatchedTokens)
	atMostInt(ps, pre+"max_num_batched_tokens", s.MaxNumBatchedTokens, MaxTokens, "tokens in a batch")
	positiveInt(ps, pre+"block_size", s.BlockSize)
	atMostInt(ps, pre+"block_size", s.BlockSize, MaxTokens, "tokens per KV-cache block")
	fraction(ps, pre+"gpu_memory_utilization", s.GPUMemoryUtilization)
	fraction(ps, pre+"compute_efficiency", s.ComputeEfficiency)
	fraction(ps, pre+"bandwidth_efficiency", s.BandwidthEfficiency)
	if s.OverheadMs < 0 {
		ps.add(pre+"overhead_ms", s.OverheadMs, "must be >= 0")
	}
	if s.SpeedUp <= 0 {
		ps.add(pre+"speed_up", s.SpeedUp, "must be > 0")
	}
	if f := s.NondeterministicFraction; f < 0 || f > 1 {
		ps.add(pre+"nondeterministic_fraction", f, "must be 0 to 1 (the share of prompts whose temperature-0 output is not reproducible)")
	}
	if s.OutputTokens != nil {
		checkDist(ps, pre+"output_tokens", *s.OutputTokens, true)
	}
}

// fraction requires 0 < v <= 1.
func fraction(ps *problems, path string, v float64) {
	if v <= 0 || v > 1 {
		ps.add(path, v, "must be > 0 and <= 1")
	}
}

// checkDist validates a distribution; tokens requires values in [1, MaxTokens] (else
// seconds in [0, MaxDuration]): every parameter (value, min, max, mean, stddev) is
// bounded, so no draw and no estimate from it overflows.
func checkDist(ps *problems, path string, d Dist, tokens bool) {
	lo, loMsg := 0.0, ">= 0"
	hi, hiWhat := MaxDuration.Seconds(), "seconds; 30 days"
	if tokens {
		lo, loMsg = 1, ">= 1"
		hi, hiWhat = MaxTokens, tokensWhat
	}
	before := len(*ps)
	for _, f := range []struct {
		k string
		v float64
	}{{"value", d.Value}, {"min", d.Min}, {"max", d.Max}, {"mean", d.Mean}, {"stddev", d.StdDev}} {
		atMostFloat(ps, path+"."+f.k, f.v, hi, hiWhat)
	}
	if len(*ps) > before {
		return // the rules below compare the parameters; one past the limit is enough said
	}
	switch d.Kind {
	case DistFixed:
		if d.Value < lo {
			ps.add(path+".value", d.Value, "must be %s", loMsg)
		}
	case DistUniform:
		if d.Min < lo {
			ps.add(path+".min", d.Min, "must be %s", loMsg)
		}
		if d.Max < d.Min || d.Max <= 0 {
			ps.add(path+".max", d.Max, "must be > 0 and >= min (%g)", d.Min)
		}
	case DistNormal, DistLognormal:
		if d.Mean <= 0 {
			ps.add(path+".mean", d.Mean, "must be > 0")
		}
		if d.StdDev < 0 {
			ps.add(path+".stddev", d.StdDev, "must be >= 0")
		}
		if d.Min < 0 {
			ps.add(path+".min", d.Min, "must be >= 0")
		}
		if d.Max != 0 && d.Max < d.Min {
			ps.add(path+".max", d.Max, "must be >= min (%g), or 0 for no cap", d.Min)
		}
	case DistEmpirical:
		if d.File == "" {
			ps.add(path+".file", d.File, "must name a CSV or JSONL file with the values")
		} else {
			checkFile(ps, path+".file", d.File)
		}
		if d.Column == "" {
			ps.add(path+".column", d.Column, "must name the column (CSV header or JSON field) holding the values")
		}
	default:
		ps.add(path+".dist", d.Kind, "%s", oneOf(DistKinds))
	}
}

func (p *Plan) checkSegments(ps *problems) {
	if len(p.Segments) == 0 {
		ps.add("segments", raw("an empty list"), "must list at least one segment")
		return
	}
	seen := map[string]int{}
	var sum float64
	negative := false
	for i, s := range p.Segments {
		pre := fmt.Sprintf("segments[%d].", i)
		before := len(*ps)
		switch j, dup := seen[s.Name]; {
		case !nameRE.MatchString(s.Name):
			ps.add(pre+"name", s.Name, "must be letters, digits, '.', '_' or '-'")
		case s.Name == MixSegment:
			ps.add(pre+"name", s.Name, "must not be %q (reserved for the weighted mix)", MixSegment)
		case dup:
			ps.add(pre+"name", s.Name, "must be unique (segments[%d] has it)", j)
		}
		seen[s.Name] = i
		if s.Weight < 0 {
			ps.add(pre+"weight", s.Weight, "must be >= 0 (a weight is the segment's share of the mix)")
			negative = true
		} else {
			sum += s.Weight
		}
		nonNegInt(ps, pre+"shared_prefix_tokens", s.SharedPrefixTokens)
		atMostInt(ps, pre+"shared_prefix_tokens", s.SharedPrefixTokens, MaxTokens, tokensWhat)
		if s.Trace != nil {
			checkTrace(ps, pre+"trace", *s.Trace)
		} else {
			checkDist(ps, pre+"prompt_tokens", s.PromptTokens, true)
			checkDist(ps, pre+"output_tokens", s.OutputTokens, true)
			checkPrefix(ps, pre, s)
			if len(*ps) == before {
				p.checkFits(ps, pre, s)
			}
		}
		if m := s.MultiTurn; m != nil {
			positiveInt(ps, pre+"multi_turn.turns", m.Turns)
			atMostInt(ps, pre+"multi_turn.turns", m.Turns, MaxTurns, "turns per session")
			if m.ThinkTimeS.Kind != "" {
				checkDist(ps, pre+"multi_turn.think_time_s", m.ThinkTimeS, false)
			}
		}
	}
	if sum <= 0 && !negative {
		ps.add("segments[*].weight", raw(fmt.Sprintf("a sum of %g", sum)), "weights must sum to a positive number")
	}
}

func checkTrace(ps *problems, path string, t Trace) {
	before := len(*ps)
	if !slices.Contains(TraceFormats, t.Format) {
		ps.add(path+".format", t.Format, "%s", oneOf(TraceFormats))
	}
	if t.File == "" {
		ps.add(path+".file", t.File, "must name the trace file")
	} else {
		checkFile(ps, path+".file", t.File)
	}
	for _, f := range []struct {
		k string
		v float64
	}{{"time_scale", t.TimeScale}, {"prompt_scale", t.PromptScale}, {"output_scale", t.OutputScale}} {
		if f.v <= 0 {
			ps.add(path+"."+f.k, f.v, "must be > 0")
		}
	}
	nonNegInt(ps, path+".max_prompt_tokens", t.MaxPromptTokens)
	atMostInt(ps, path+".max_prompt_tokens", t.MaxPromptTokens, MaxTokens, tokensWhat)
	nonNegInt(ps, path+".max_output_tokens", t.MaxOutputTokens)
	atMostInt(ps, path+".max_output_tokens", t.MaxOutputTokens, MaxTokens, tokensWhat)
	nonNegInt(ps, path+".start_row", t.StartRow)
	nonNegInt(ps, path+".rows", t.Rows)
	if len(*ps) == before {
		checkTraceRows(ps, path, t)
	}
}

// checkTraceRows reads the trace of an otherwise valid trace section: a file that does
// not parse as its format, has no row in the window or whose timestamps overflow is a
// problem at path.file, so `llmcap plan` fails on it as run does. The message is the
// reader's reason alone (its lines 1-based), without the file name the value shows.
func checkTraceRows(ps *problems, path string, t Trace) {
	if _, err := t.Load(); err != nil {
		reason := strings.TrimPrefix(err.Error(), "trace "+t.File+": ")
		ps.add(path+".file", t.File, "must be %s trace: %s", traceFormatName(t.Format), reason)
	}
}

// traceFormatName is a trace format's proper name, with its article: "a Mooncake",
// "an Azure".
func traceFormatName(format string) string {
	switch format {
	case TraceMooncake:
		return "a Mooncake"
	case TraceAzure:
		return "an Azure"
	}
	return "a " + format
}

// checkPrefix checks that a segment's shared prefix fits in its prompts: the prefix is
// part of prompt_tokens (the rest is drawn after it), so it must be smaller than the
// smallest prompt the distribution can draw — the fixed value, the min of a uniform (or of
// a clamped normal/lognormal), or, for an unbounded normal/lognormal, its mean. Empirical
// distributions (values in a file) are not checked here.
func checkPrefix(ps *problems, pre string, s Segment) {
	n := float64(s.SharedPrefixTokens)
	if n <= 0 {
		return
	}
	d := s.PromptTokens
	var bound float64
	what := ""
	switch d.Kind {
	case DistFixed:
		bound, what = d.Value, "the fixed prompt_tokens.value"
	case DistUniform:
		bound, what = d.Min, "prompt_tokens.min"
	case DistNormal, DistLognormal:
		bound, what = d.Mean, "prompt_tokens.mean (the distribution is unbounded below)"
		if d.Min > 0 {
			bound, what = d.Min, "prompt_tokens.min"
		}
	default:
		return
	}
	if n >= bound {
		ps.add(pre+"shared_prefix_tokens", s.SharedPrefixTokens,
			"must be smaller than %s, %g: the shared prefix is part of prompt_tokens, not added to it", what, bound)
	}
}

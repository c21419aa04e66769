package plan

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/viper"
)

// Defaults of the plan sections a plan may leave out, so that a plan holding only a
// target (or no file at all: llmcap run --url URL --model NAME) is complete. Each
// applies only where nothing gives that part of the plan:
//
//   - segments: when the plan file has no segments key, one segment,
//     DefaultSegmentName, with fixed DefaultPromptTokens and DefaultOutputTokens
//     (overrides such as --isl or --set segments[0].… then change it);
//   - ladder levels: when no ladder.concurrency, ladder.rate, ladder.users or
//     ladder.search is given by any source, the capacity search over concurrency with
//     the search defaults (the same as --concurrency auto: from 1, growing ×4 until the
//     SLA breaks, then narrowing; search.go);
//   - window: when neither ladder.duration nor ladder.requests is given,
//     DefaultStepDuration;
//   - warm-up: when the plan file has no ladder section and no source gives one,
//     DefaultWarmup (a file's ladder without one keeps none, as before); grace is
//     DefaultGrace in every plan (defaultValues), listed here too when the file has no
//     ladder section;
//   - SLA: when the plan file has no sla section and no source gives a latency bound
//     (sla.*_ms or sla.goodput), TTFT p95 ≤ DefaultTTFTP95Ms and ITL p95 ≤
//     DefaultITLP95Ms (max_error_rate defaults to 0.01 in every plan);
//   - name: without a plan file, target.model made safe for a directory name.
//
// The values follow the peers' one-off defaults: a chat-sized prompt and answer (vLLM
// bench serve's random dataset uses 1024/128, AIPerf's synthetic prompts ~550 tokens),
// and the SLA the example plans use.
const (
	DefaultSegmentName  = "default"
	DefaultPromptTokens = 512
	DefaultOutputTokens = 128
	DefaultStepDuration = 30 * time.Second
	DefaultWarmup       = 5 * time.Second
	DefaultTTFTP95Ms    = 500.0
	DefaultITLP95Ms     = 50.0
)

// fileSections records which optional sections the plan file itself holds.
type fileSections struct{ segments, ladder, sla bool }

// sectionsInFile reads, from v after ReadInConfig, which of segments, ladder and sla the
// plan file at path holds (none without a file).
func sectionsInFile(v *viper.Viper, path string) fileSections {
	if path == "" {
		return fileSections{}
	}
	return fileSections{segments: v.InConfig("segments"), ladder: v.InConfig("ladder"), sla: v.InConfig("sla")}
}

// presetSegments gives v the default segment when nothing sets segments (before the
// overrides are applied, so that --set segments[0].… and --isl change it), and
// reports whether it did.
func presetSegments(v *viper.Viper) bool {
	if v.IsSet("segments") {
		return false
	}
	v.SetDefault("segments", []any{map[string]any{
		"name":          DefaultSegmentName,
		"weight":        1,
		"prompt_tokens": Dist{Kind: DistFixed, Value: DefaultPromptTokens}.OverrideValue(),
		"output_tokens": Dist{Kind: DistFixed, Value: DefaultOutputTokens}.OverrideValue(),
	}})
	return true
}

// fillSectionDefaults applies the defaults of the ladder, the SLA and the name (see
// the constants) to the decoded plan and sets p.Assumed to what was filled in, the
// segment too when segmentsPreset (and no override replaced the whole list).
func (p *Plan) fillSectionDefaults(v *viper.Viper, in fileSections, path string, segmentsPreset bool, overrides map[string]any) {
	var notes []string
	if _, replaced := overrides["segments"]; segmentsPreset && !replaced && len(p.Segments) == 1 {
		s := p.Segments[0]
		notes = append(notes, fmt.Sprintf("segments: one segment %q, prompt %s tokens, output %s tokens (max_tokens)",
			s.Name, lengthText(s.PromptTokens), lengthText(s.OutputTokens)))
	}
	notes = append(notes, p.fillLadderDefaults(v, in)...)
	if !in.sla && !p.SLA.HasLatencySLA() && !anySet(v, "sla.ttft_ms", "sla.ttfo_ms", "sla.itl_ms", "sla.e2e_ms", "sla.goodput") {
		p.SLA.TTFTMs = map[Percentile]float64{"p95": DefaultTTFTP95Ms}
		p.SLA.ITLMs = map[Percentile]float64{"p95": DefaultITLP95Ms}
		notes = append(notes, fmt.Sprintf("sla: TTFT p95 ≤ %g ms, ITL p95 ≤ %g ms, error rate ≤ %g%%",
			DefaultTTFTP95Ms, DefaultITLP95Ms, p.SLA.MaxErrorRate*100))
	}
	if path == "" && p.Name == "" && !p.Target.IsSimulator() {
		p.Name = nameFromModel(p.Target.Model)
	}
	p.Assumed = notes
}

// fillLadderDefaults applies the ladder's defaults (levels, window, warm-up, grace)
// and returns a note for each one applied.
func (p *Plan) fillLadderDefaults(v *viper.Viper, in fileSections) []string {
	var notes []string
	l := &p.Ladder
	needs := p.needsLadder()
	if needs && l.Search == nil && len(l.Concurrency)+len(l.Rate)+len(l.Users) == 0 &&
		!anySet(v, "ladder.concurrency", "ladder.rate", "ladder.users", "ladder.search") {
		l.Search = &Search{Over: SearchConcurrency}
		l.Search.fillDefaults()
		s := l.Search
		notes = append(notes, fmt.Sprintf("ladder: capacity search over concurrency from %g (×%g until the SLA breaks, "+
			"then narrowing to %g%%; at most %d steps per search, up to %g)", s.Start, s.Growth, s.Tolerance*100, s.MaxSteps, s.Max))
	}
	if needs && l.Duration == 0 && l.Requests == 0 && !anySet(v, "ladder.duration", "ladder.requests") {
		l.Duration = DefaultStepDuration
		notes = append(notes, fmt.Sprintf("ladder.duration: %s measurement window per step", DefaultStepDuration))
	}
	if in.ladder {
		return notes
	}
	if l.Warmup == (Warmup{}) && !anySet(v, "ladder.warmup", "ladder.warmup.duration", "ladder.warmup.requests") {
		l.Warmup.Duration = DefaultWarmup
		notes = append(notes, fmt.Sprintf("ladder.warmup: %s per step, left out of the statistics", DefaultWarmup))
	}
	if l.Grace == DefaultGrace {
		notes = append(notes, fmt.Sprintf("ladder.grace: %s for the requests in flight at the window's end to finish (they count)", DefaultGrace))
	}
	return notes
}

// anySet reports whether some source (file, environment, overrides) sets one of keys.
func anySet(v *viper.Viper, keys ...string) bool {
	for _, k := range keys {
		if v.IsSet(k) {
			return true
		}
	}
	return false
}

// lengthText renders a token-length distribution as --isl writes it: "512", "512±64",
// or Dist.String for other kinds.
func lengthText(d Dist) string {
	switch d.Kind {
	case DistFixed:
		return fmt.Sprintf("%g", d.Value)
	case DistNormal:
		return fmt.Sprintf("%g±%g", d.Mean, d.StdDev)
	}
	return d.String()
}

// nameFromModel is a plan name (nameRE) made from a model name: every character
// outside [A-Za-z0-9._-] becomes '-' ("stories:latest" → "stories-latest",
// "meta-llama/Llama-3.1-8B" → "meta-llama-Llama-3.1-8B"), at most 64 characters;
// DefaultName when nothing is left.
func nameFromModel(model string) string {
	name := strings.Map(func(r rune) rune {
		if r < 128 && (r == '.' || r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return r
		}
		return '-'
	}, model)
	name = strings.Trim(name, "-.")
	if len(name) > 64 {
		name = name[:64]
	}
	if name == "" {
		return DefaultName
	}
	return name
}

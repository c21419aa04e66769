package importer

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/llmcap/llmcap/plan"
)

// UnknownURL is the target.url of an import whose source names no server (vLLM bench
// results do not save it): a reserved name (RFC 2606 .invalid) that never resolves;
// --set target.url=… gives the real one.
const UnknownURL = "http://unknown.invalid/v1"

// UnknownModel is the target.model of an import whose source names no model.
const UnknownModel = "unknown"

// buildPlan is the plan of the imported ladder srcs (ordered by load) and its steps,
// one per source: plan.Load over the import's own overrides (target, the ladder's
// levels, one segment "default" of the measured mean prompt and output lengths, no
// warm-up, grace or early stop, the description naming the tool and files) with user
// on top (--set: the SLA, the report, the target, the name). The steps carry each
// file's measured window: duration (first send → last response), requests, warm-up
// requests. user keys under ladder or segments are refused (ErrOverride).
func buildPlan(f Format, srcs []*source, user map[string]any) (*plan.Plan, []plan.Step, error) {
	for k := range user {
		if k == "ladder" || strings.HasPrefix(k, "ladder.") || strings.HasPrefix(k, "segments") {
			return nil, nil, fmt.Errorf("--set %s: %w: the ladder and the segment are the imported files' (one step per file)", k, ErrOverride)
		}
	}
	ov := importOverrides(f, srcs)
	for k, v := range user {
		ov[k] = v
	}
	if d, ok := user["description"].(string); ok && d != "" {
		ov["description"] = d + " — " + describe(f, srcs)
	}
	p, err := plan.Load("", ov)
	if err != nil {
		return nil, nil, fmt.Errorf("import: the plan of the imported ladder: %w", err)
	}
	steps := p.Steps()
	if len(steps) != len(srcs) {
		return nil, nil, fmt.Errorf("import: the plan has %d steps for %d files", len(steps), len(srcs))
	}
	for i, s := range srcs {
		measuredWindow(&steps[i], s)
	}
	return p, steps, nil
}

// importOverrides are the plan keys an import sets from its sources.
func importOverrides(f Format, srcs []*source) map[string]any {
	first := srcs[0]
	ov := map[string]any{
		"target.url": orDefault(first.url, UnknownURL), "target.model": orDefault(modelOf(srcs), UnknownModel),
		"target.api": orDefault(first.api, "chat"), "description": describe(f, srcs),
		"ladder.requests": maxMeasured(srcs), "ladder.warmup": 0, "ladder.grace": "0s",
		"ladder.early_stop.enabled": false,
		"segments": []any{map[string]any{"name": plan.DefaultSegmentName, "weight": 1,
			"prompt_tokens": fixed(meanTokens(srcs, false)), "output_tokens": fixed(meanTokens(srcs, true))}},
	}
	levels := make([]any, len(srcs))
	for i, s := range srcs {
		levels[i] = s.load()
		if s.schedule == plan.ScheduleConcurrency {
			levels[i] = s.concurrency
		}
	}
	if first.schedule == plan.ScheduleRate {
		ov["ladder.rate"] = levels
		ov["ladder.arrival"] = first.arrival
		if first.arrival == plan.ArrivalGamma {
			ov["ladder.burstiness"] = first.burstiness
		}
		if mc, ok := sameMaxConcurrency(srcs); ok && mc > 0 {
			ov["ladder.max_concurrency"] = mc
		}
	} else {
		ov["ladder.concurrency"] = levels
	}
	return ov
}

// describe is the plan's description of an import: the tool, the command and each
// file with its load, and what the import noted or skipped.
func describe(f Format, srcs []*source) string {
	parts := make([]string, len(srcs))
	for i, s := range srcs {
		parts[i] = fmt.Sprintf("%s from %s", s.loadWords(), s.file)
		var notes []string
		notes = append(notes, s.notes...)
		if n := len(s.skipped); n > 0 {
			notes = append(notes, fmt.Sprintf("%d corrupt records skipped, first %s", n, s.skipped[0]))
		}
		if len(notes) > 0 {
			parts[i] += " (" + strings.Join(notes, "; ") + ")"
		}
	}
	return fmt.Sprintf("Imported from %s by llmcap import %s: %s.", srcs[0].tool, f, strings.Join(parts, ", "))
}

// measuredWindow sets st's window to what s measured: its warm-up and measured
// request counts and its wall time, first send → last response (its estimate too).
func measuredWindow(st *plan.Step, s *source) {
	var first, last int64
	warm, meas := 0, 0
	for i := range s.requests {
		q := &s.requests[i]
		if q.warmup {
			warm++
		} else {
			meas++
		}
		r := q.record("", *st)
		if first == 0 || q.sentNs < first {
			first = q.sentNs
		}
		last = max(last, r.EndNs, q.sentNs)
	}
	st.Warmup = plan.Warmup{Requests: warm}
	st.Requests, st.Grace, st.Cooldown = meas, 0, 0
	st.Duration = time.Duration(last - first)
	st.Estimated = st.Duration
}

// modelOf is the sources' model ("" when none names one).
func modelOf(srcs []*source) string {
	for _, s := range srcs {
		if s.model != "" {
			return s.model
		}
	}
	return ""
}

// sameMaxConcurrency is the open loops' common max_concurrency, ok false when they
// differ.
func sameMaxConcurrency(srcs []*source) (int, bool) {
	for _, s := range srcs[1:] {
		if s.maxConcurrency != srcs[0].maxConcurrency {
			return 0, false
		}
	}
	return srcs[0].maxConcurrency, true
}

// maxMeasured is the largest step's measured request count (at least 1).
func maxMeasured(srcs []*source) int {
	n := 1
	for _, s := range srcs {
		m := 0
		for i := range s.requests {
			if !s.requests[i].warmup {
				m++
			}
		}
		n = max(n, m)
	}
	return n
}

// meanTokens is the mean prompt (or, with output, output) length of the successful
// requests, rounded, at least 1.
func meanTokens(srcs []*source, output bool) int {
	sum, n := 0.0, 0
	for _, s := range srcs {
		for i := range s.requests {
			q := &s.requests[i]
			if q.fail != nil {
				continue
			}
			v := q.isl
			if output {
				v = q.osl
			}
			sum, n = sum+float64(v), n+1
		}
	}
	if n == 0 {
		return 1
	}
	return max(1, int(math.Round(sum/float64(n))))
}

// fixed is a fixed-length distribution as a plan override value.
func fixed(n int) map[string]any { return map[string]any{"dist": plan.DistFixed, "value": n} }

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

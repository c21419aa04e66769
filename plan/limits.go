package plan

import (
	"fmt"
	"strconv"
	"time"

	"github.com/llmcap/llmcap/tracefile"
)

// Upper bounds of a plan's sizes. Each is far past any real deployment, and low enough
// that every count, product and estimate built from it fits an int64 (so no float→int
// conversion wraps and no wall-time estimate overflows a time.Duration).
const (
	// MaxTokens bounds a request's prompt or output tokens (every parameter of
	// prompt_tokens and output_tokens, shared_prefix_tokens, a trace's max_*_tokens):
	// 10 M tokens, longer than any model's context today. The sweep clamps every draw
	// to [1, MaxTokens] too.
	MaxTokens = tracefile.MaxTokens
	// MaxLoad bounds a concurrency, users or max_concurrency level and a search's start
	// and max over concurrency or users: 1 M requests in flight (each one a connection).
	MaxLoad = 1_000_000
	// MaxRate bounds a rate level and a rate search's start and max, in req/s.
	MaxRate = 1_000_000
	// MaxRequests bounds a request count (ladder.requests, ladder.warmup.requests).
	MaxRequests = 100_000_000
	// MaxTurns bounds multi_turn.turns.
	MaxTurns = 10_000
	// MaxDuration bounds each duration of the plan (windows, warm-up, grace,
	// cool-down, timeouts, think time) and a think-time distribution's seconds: 30 days.
	MaxDuration = 30 * 24 * time.Hour
	// MaxSearchSteps bounds ladder.search.max_steps.
	MaxSearchSteps = 1000
)

// atMostInt adds a problem when v > limit, naming the limit and what it bounds.
func atMostInt(ps *problems, path string, v, limit int, what string) {
	if v > limit {
		ps.add(path, v, "must be <= %d (%s)", limit, what)
	}
}

// atMostFloat adds a problem when v > limit, naming the limit and what it bounds.
func atMostFloat(ps *problems, path string, v, limit float64, what string) {
	if v > limit {
		ps.add(path, v, "must be <= %s (%s)", strconv.FormatFloat(limit, 'f', -1, 64), what)
	}
}

// durationRange requires 0 <= d <= MaxDuration.
func durationRange(ps *problems, path string, d time.Duration) {
	switch {
	case d < 0:
		ps.add(path, d, "must be >= 0")
	case d > MaxDuration:
		ps.add(path, d, "must be <= %s (30 days)", MaxDuration)
	}
}

// loadLimit is the largest load of a schedule (MaxLoad, or MaxRate for rates) and its
// unit, for messages.
func loadLimit(schedule string) (float64, string) {
	if schedule == ScheduleRate {
		return MaxRate, "req/s"
	}
	return MaxLoad, "requests in flight"
}

// tokensWhat is the reason shown with a token count past MaxTokens.
var tokensWhat = fmt.Sprintf("tokens per request; %d M is longer than any model's context", MaxTokens/1_000_000)

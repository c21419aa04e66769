package rundir

import (
	"fmt"
	"math"
)

// MaxRecordLatencyMs bounds every latency of a record (TTFT, TTFO, ITL, E2E, ICL,
// schedule lag, wait): 10^10 ms, about 116 days, far past any step's wall-time bound.
// A larger value is no measurement (a hand-edited or damaged line) and would overflow
// the statistics' sums.
const MaxRecordLatencyMs = 1e10

// impossible reports the first value of r no sweep can have written, nil when there is
// none: a negative step index; a phase other than warmup, measure or grace, or a status
// other than ok or error; a latency that is negative, not finite or above
// MaxRecordLatencyMs (a schedule lag may be negative: a request sent marginally before
// its due time); a negative token count, chunk count, turn, load or time. The reader
// counts such a line as corrupt (Damage).
func (r *Record) impossible() error {
	switch {
	case r.Step < 0:
		return fmt.Errorf("impossible record: step %d", r.Step)
	case r.Phase != PhaseWarmup && r.Phase != PhaseMeasure && r.Phase != PhaseGrace:
		return fmt.Errorf("impossible record: unknown phase %q", r.Phase)
	case r.Status != StatusOK && r.Status != StatusError:
		return fmt.Errorf("impossible record: unknown status %q", r.Status)
	}
	lat := []struct {
		name   string
		v      *float64
		signed bool
	}{{"ttft_ms", r.TTFTMs, false}, {"ttfo_ms", r.TTFOMs, false}, {"itl_ms", r.ITLMs, false}, {"e2e_ms", r.E2EMs, false},
		{"waited_ms", r.WaitedMs, false}, {"schedule_lag_ms", r.ScheduleLagMs, true},
		{"read_lag_ms", r.ReadLagMs, false}}
	for _, l := range lat {
		if l.v != nil && badLatency(*l.v, l.signed) {
			return fmt.Errorf("impossible record: %s %g", l.name, *l.v)
		}
	}
	for _, v := range r.ICLMs {
		if badLatency(v, false) {
			return fmt.Errorf("impossible record: icl_ms %g", v)
		}
	}
	counts := []struct {
		name string
		v    int64
	}{{"prompt_tokens", int64(r.PromptTokens)}, {"output_tokens", int64(r.OutputTokens)},
		{"reasoning_tokens", int64(r.ReasoningTokens)}, {"intended_prompt_tokens", int64(r.IntendedPromptTokens)},
		{"intended_output_tokens", int64(r.IntendedOutputTokens)}, {"chunks", int64(r.Chunks)}, {"turn", int64(r.Turn)},
		{"concurrency", int64(r.Concurrency)}, {"users", int64(r.Users)}, {"http_status", int64(r.HTTPStatus)},
		{"scheduled_ns", r.ScheduledNs}, {"sent_ns", r.SentNs}, {"first_token_ns", r.FirstTokenNs}, {"end_ns", r.EndNs}}
	for _, c := range counts {
		if c.v < 0 {
			return fmt.Errorf("impossible record: %s %d", c.name, c.v)
		}
	}
	if r.Rate < 0 || math.IsNaN(r.Rate) || math.IsInf(r.Rate, 0) {
		return fmt.Errorf("impossible record: rate %g", r.Rate)
	}
	return nil
}

// badLatency reports whether v (ms) is no latency: not finite, above
// MaxRecordLatencyMs in size, or negative unless signed.
func badLatency(v float64, signed bool) bool {
	return math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > MaxRecordLatencyMs || (v < 0 && !signed)
}

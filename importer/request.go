package importer

import (
	"fmt"
	"math"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
)

// TokensImported is the records' tokens_source of an import: the token counts are the
// source tool's own (AIPerf's tokenizer or the server's usage; vLLM bench's usage
// completion_tokens, else its tokenizer), neither of llmcap's usage or counted.
const TokensImported = "imported"

// ErrImported is the error class of a failure the source recorded that fits none of
// llmcap's classes (docs/metrics.md "Failure classes"); the record's error keeps the
// source's own words.
const ErrImported = "imported_error"

// request is one request as a source file gives it, in llmcap's units: times in unix
// ns, latencies in ms (nil when the source has none), token counts.
type request struct {
	id, session string
	turn        int
	line        int // the JSON Lines file's line (1-based); 0: none (a vLLM result's arrays)
	warmup      bool
	sentNs      int64
	endNs       int64    // last response (0: sent + E2E)
	ttftMs      *float64 // sent → first token
	e2eMs       *float64 // sent → last token
	itlMs       *float64 // the source's per-request ITL, (E2E − TTFT)/(OSL − 1); nil: derived
	iclMs       []float64
	isl, osl    int
	reasoning   int
	fail        *failure // nil: a success
}

// failure is a failed request's llmcap error class, HTTP status (0: none) and the
// source's message.
type failure struct {
	class   string
	status  int
	message string
}

// check reports the first value of q no measurement can have: a send time ≤ 0, a
// latency that is negative, not finite or above rundir.MaxRecordLatencyMs, a TTFT
// after the E2E, or a negative token count.
func (q *request) check() error {
	if q.sentNs <= 0 {
		return fmt.Errorf("send time %d ns: not a time", q.sentNs)
	}
	for _, l := range []struct {
		name string
		v    *float64
	}{{"ttft", q.ttftMs}, {"e2e", q.e2eMs}, {"itl", q.itlMs}} {
		if l.v != nil && badMs(*l.v) {
			return fmt.Errorf("%s %g ms: not a latency", l.name, *l.v)
		}
	}
	for _, v := range q.iclMs {
		if badMs(v) {
			return fmt.Errorf("inter-chunk latency %g ms: not a latency", v)
		}
	}
	if q.ttftMs != nil && q.e2eMs != nil && *q.ttftMs > *q.e2eMs*(1+1e-9)+1e-6 {
		return fmt.Errorf("ttft %g ms after e2e %g ms", *q.ttftMs, *q.e2eMs)
	}
	if q.isl < 0 || q.osl < 0 || q.reasoning < 0 {
		return fmt.Errorf("negative token count (isl %d, osl %d, reasoning %d)", q.isl, q.osl, q.reasoning)
	}
	return nil
}

// badMs reports whether v is no latency in ms.
func badMs(v float64) bool {
	return math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v > rundir.MaxRecordLatencyMs
}

// record is q as a records.jsonl line of step st: phase warmup or measure; TTFO = TTFT
// when no reasoning token came (else unknown); ITL the source's, else
// (E2E − TTFT)/(OSL − 1) for OSL ≥ 2 (AIPerf's and llmcap's definition); ICL the
// source's inter-chunk gaps; chunks len(ICL) + 1 when they are known.
func (q *request) record(runID string, st plan.Step) rundir.Record {
	r := rundir.Record{RunID: runID, Segment: st.Segment, Step: st.Index, Schedule: st.Schedule,
		Concurrency: st.Concurrency, Rate: st.Rate, Phase: rundir.PhaseMeasure, RequestID: q.id,
		SessionID: q.session, Turn: q.turn, SentNs: q.sentNs, EndNs: q.endNs,
		PromptTokens: q.isl, OutputTokens: q.osl, ReasoningTokens: q.reasoning, TokensSource: TokensImported,
		Status: rundir.StatusOK}
	if q.warmup {
		r.Phase = rundir.PhaseWarmup
	}
	if q.fail != nil {
		r.Status, r.ErrorClass, r.HTTPStatus, r.Error = rundir.StatusError, q.fail.class, q.fail.status, q.fail.message
		return r
	}
	r.TTFTMs, r.E2EMs, r.ICLMs = q.ttftMs, q.e2eMs, q.iclMs
	if q.ttftMs != nil {
		r.FirstTokenNs = q.sentNs + msToNs(*q.ttftMs)
		if q.reasoning == 0 {
			r.TTFOMs = q.ttftMs
		}
	}
	if r.EndNs == 0 && q.e2eMs != nil {
		r.EndNs = q.sentNs + msToNs(*q.e2eMs)
	}
	r.ITLMs = q.itlMs
	if r.ITLMs == nil && q.osl >= 2 && q.ttftMs != nil && q.e2eMs != nil {
		itl := (*q.e2eMs - *q.ttftMs) / float64(q.osl-1)
		r.ITLMs = &itl
	}
	if len(q.iclMs) > 0 {
		r.Chunks = len(q.iclMs) + 1
	}
	return r
}

// msToNs converts ms to ns, rounded.
func msToNs(ms float64) int64 { return int64(math.Round(ms * 1e6)) }

// ms returns a pointer to v.
func ms(v float64) *float64 { return &v }

package rundir

// Phases of a record within its step.
const (
	PhaseWarmup  = "warmup"
	PhaseMeasure = "measure"
	PhaseGrace   = "grace"
)

// Record statuses.
const (
	StatusOK    = "ok"
	StatusError = "error"
)

// Error classes of failed records (docs/metrics.md "Failure classes"). ErrEmptyResponse
// is a 2xx response that ended properly but carried no answer:
// no content or reasoning event and no usage completion_tokens > 0 (e.g. a stream of
// only "data: [DONE]").
const (
	ErrHTTP4xx          = "http_4xx"
	ErrHTTP429          = "http_429"
	ErrHTTP5xx          = "http_5xx"
	ErrConnect          = "connect"
	ErrTimeoutConnect   = "timeout_connect"
	ErrTimeoutFirstByte = "timeout_first_byte"
	ErrTimeoutIdle      = "timeout_idle"
	ErrTimeoutRequest   = "timeout_request"
	ErrInBand           = "in_band_error"
	ErrContextLength    = "context_length_exceeded"
	ErrStreamTruncated  = "stream_truncated"
	ErrCancelled        = "cancelled" // interrupted by the user (Ctrl-C) or a failed run
	// ErrUnfinished: still in flight when its step ended (the end of the grace period,
	// or the step's wall-time bound): a censored observation, its wait so far in
	// WaitedMs (a lower bound of its TTFT when no token came, and of its E2E).
	ErrUnfinished    = "unfinished"
	ErrDecode        = "decode"
	ErrEmptyResponse = "empty_response"
	// ErrResponseTooLarge: the response body passed the client's maximum response size
	// (target.max_response_bytes); the client stopped reading and closed the connection.
	ErrResponseTooLarge = "response_too_large"
)

// Token count sources.
const (
	TokensUsage   = "usage"   // the server's usage.completion_tokens
	TokensCounted = "counted" // the count of content-bearing events
)

// Record is one request, one line of records.jsonl (append-only). Times are int64 unix
// nanoseconds derived from the monotonic clock (0 when absent); latencies are ms and nil
// when undefined. Semantics follow AIPerf (docs/metrics.md).
type Record struct {
	RunID       string  `json:"run_id"`
	Segment     string  `json:"segment"`                // the segment this request was drawn from
	StepSegment string  `json:"step_segment,omitempty"` // the step's segment ("mix" for mix steps)
	Step        int     `json:"step"`
	Schedule    string  `json:"schedule"` // concurrency | rate | users | trace
	Concurrency int     `json:"concurrency,omitempty"`
	Rate        float64 `json:"rate,omitempty"`  // req/s
	Users       int     `json:"users,omitempty"` // a users step's population
	Phase       string  `json:"phase"`           // warmup | measure | grace
	RequestID   string  `json:"request_id"`      // also the request's X-Request-Id (docs/client.md)
	SessionID   string  `json:"session_id"`
	Turn        int     `json:"turn"`

	ScheduledNs  int64 `json:"scheduled_ns"`   // open loop: the scheduled send time; users: when the user's think ended; closed loop after a backoff: when the slot was ready
	SentNs       int64 `json:"sent_ns"`        // request written
	FirstTokenNs int64 `json:"first_token_ns"` // first content/reasoning event read
	EndNs        int64 `json:"end_ns"`         // last content/reasoning event read

	// TTFTMs: sent → first event with non-empty content or reasoning.
	TTFTMs *float64 `json:"ttft_ms"`
	// TTFOMs: sent → first non-reasoning content.
	TTFOMs *float64 `json:"ttfo_ms"`
	// ITLMs: (E2E − TTFT)/(OSL − 1), defined for OSL ≥ 2 (AIPerf; vLLM's TPOT).
	ITLMs *float64 `json:"itl_ms"`
	// E2EMs: sent → last content/reasoning event.
	E2EMs *float64 `json:"e2e_ms"`
	// ScheduleLagMs: sent − scheduled (open loop, users, a closed loop's backoff), the
	// client's own lateness (docs/metrics.md).
	ScheduleLagMs *float64 `json:"schedule_lag_ms,omitempty"`
	// ReadLagMs: the most the client fell behind in reading this response, in ms: the
	// largest gap between a read's return and the kernel's receive time of the bytes it
	// read (Linux, http:// targets; nil where the kernel gives no receive time). Below
	// an ITL it costs no accuracy, since events carry their arrival time; above one,
	// events whose segments waited together carry the last one's arrival
	// (docs/client.md, "Timestamps").
	ReadLagMs *float64 `json:"read_lag_ms,omitempty"`
	// WaitedMs: an unfinished request's wait, from sent (or, unsent, from the start of
	// the attempt) to the step's cut: a lower bound of its E2E (and of its TTFT when
	// FirstTokenNs is 0). Nil for the other records.
	WaitedMs *float64 `json:"waited_ms,omitempty"`
	// ICLMs: gaps between consecutive content-bearing events (only with --save-icl).
	ICLMs []float64 `json:"icl_ms,omitempty"`

	IntendedPromptTokens int    `json:"intended_prompt_tokens"`
	IntendedOutputTokens int    `json:"intended_output_tokens"`
	PromptTokens         int    `json:"prompt_tokens"`
	OutputTokens         int    `json:"output_tokens"`
	ReasoningTokens      int    `json:"reasoning_tokens"`
	TokensSource         string `json:"tokens_source"` // usage | counted
	Chunks               int    `json:"chunks"`        // content-bearing events
	FinishReason         string `json:"finish_reason"`
	// OutputHash is the FNV-1a 64-bit hash of the answer's whole content text as
	// received (16 lower-case hex digits; absent when no content arrived), the same
	// however the text was split into chunks: equal hashes mean equal outputs (drift).
	OutputHash string `json:"output_hash,omitempty"`

	Status     string `json:"status"` // ok | error
	ErrorClass string `json:"error_class,omitempty"`
	HTTPStatus int    `json:"http_status,omitempty"`
	Error      string `json:"error,omitempty"` // message, never secrets

	// RetryAfterMs is the wait a 429 or 503 response asked for in its Retry-After header
	// (delta-seconds or an HTTP-date, ms from when the response arrived; at most
	// MaxRecordedRetryAfterMs); 0 when absent, unparsable or another status.
	RetryAfterMs int64 `json:"retry_after_ms,omitempty"`
}

// MaxRecordedRetryAfterMs bounds Record.RetryAfterMs (one day): a larger Retry-After is
// recorded as this.
const MaxRecordedRetryAfterMs = 24 * 3600 * 1000

// OK reports whether the request succeeded.
func (r *Record) OK() bool { return r.Status == StatusOK }

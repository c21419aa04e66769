// Package analysis turns a run directory into statistics, goodput, a fitted queueing
// model and the capacity answer, written as analysis.json (the interchange for reports).
// It reads only the run directory (sweep's files); it never imports report.
package analysis

import (
	"time"

	"github.com/llmcap/llmcap/capsearch"
	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
	"github.com/llmcap/llmcap/sla"
)

// FileAnalysis is the analysis output inside a run directory.
const FileAnalysis = "analysis.json"

// FormatVersion is the version of analysis.json this package writes
// (Analysis.FormatVersion): 7 adds the drift section (the output-drift probe's result,
// drift.jsonl) and the "nondeterministic" and "drift-baseline" warning kinds; 6 adds GPU telemetry (a step's gpu, a capacity's energy,
// a what-if row's energy costs) and a step's prefix-cache hit rate (server.prefix_cache),
// so that `llmcap report` re-analyses older files of runs that scraped them; 5 adds the headline (the executive summary's plain
// lines) and words the answer for a manager; 4 renames a step's "cancelled" count "unfinished" (requests
// still in flight when the step ended, now judged as censored values), adds a step's
// cut_by_step_timeout and the "unfinished" and "step-timeout" warning kinds (the
// "cancelled" kind is gone); 3 gives the capacity a range (bracket or prediction
// interval) apart from its resampling noise, and segments their capacity search; 2 had
// typed warnings (objects with kind, segment, step and message) and a bootstrap band;
// files without it (0) hold plain-string warnings. Older files should be re-analysed.
const FormatVersion = 7

// Regime is the bottleneck a step or a segment is in.
type Regime string

// Regimes (bottlenecks) a step or a segment can be in.
const (
	RegimeNone    Regime = "none"    // under load, nothing saturated
	RegimeQueue   Regime = "queue"   // queue/admission-bound: TTFT rises, ITL flat
	RegimePrefill Regime = "prefill" // prefill-bound: TTFT rises with prompt tokens in flight, ITL inflated
	RegimeDecode  Regime = "decode"  // decode-bound: ITL rises with batch size
	// RegimeErrors: the error-rate bound fails (requests fail) before any latency limit,
	// so capacity cannot be measured until the target's errors are fixed.
	RegimeErrors Regime = "errors"
)

// QueueLimit is what holds requests in an admission queue (StepStats.QueueLimit and
// Capacity.QueueLimit, set with RegimeQueue only): the running-batch slots or the KV
// cache. Empty when the regime is not queue or the limit could not be told.
type QueueLimit string

// Queue limits.
const (
	QueueLimitUnknown QueueLimit = ""
	// QueueBySlots: requests wait while the running batch is at its limit (max_num_seqs,
	// --max-running-requests, --parallel, OLLAMA_NUM_PARALLEL…) with room in the KV cache.
	QueueBySlots QueueLimit = "slots"
	// QueueByKVCache: requests wait while the KV cache is full or preempting, with the
	// running batch below its slot limit (more slots would not help).
	QueueByKVCache QueueLimit = "kv_cache"
)

// CapacityMethod is how a capacity was found (Capacity.Method): MethodMeasured,
// MethodInterpolated, MethodModel, MethodAtLeast, MethodBelowFirstStep or MethodNoData.
type CapacityMethod string

// RangeKind is what a capacity's range is (Capacity.RangeKind).
type RangeKind string

// Range kinds.
const (
	RangeBracket    RangeKind = "bracket"             // between measured passing and failing loads
	RangePrediction RangeKind = "prediction_interval" // the model's, for a value it interpolated or projected
	RangeOpen       RangeKind = "open"                // at least the highest load tested
)

// Summary holds the statistics of one latency metric over successful measured requests,
// in ms. Percentiles interpolate linearly between closest ranks (numpy's default).
// N == 0 means the metric is missing (no successful request had it): every other field
// is then 0 and must be shown as missing ("–"), never as 0 ms.
type Summary struct {
	N      int     `json:"n"`
	Mean   float64 `json:"mean"`
	P50    float64 `json:"p50"`
	P90    float64 `json:"p90"`
	P95    float64 `json:"p95"`
	P99    float64 `json:"p99"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	StdDev float64 `json:"stddev"`
	// Censored counts the values that are lower bounds (unfinished requests' waits); 0
	// in a step's summaries, which hold finished requests only (the SLA judge's own
	// summaries count the unfinished ones).
	Censored int `json:"censored,omitempty"`
}

// StepStats are the statistics of one step (of one segment, or of the mix).
type StepStats struct {
	Step        int     `json:"step"`
	Segment     string  `json:"segment"`
	Schedule    string  `json:"schedule"`
	Concurrency int     `json:"concurrency,omitempty"`
	Rate        float64 `json:"rate,omitempty"`
	// Users is a users step's population (schedule users): N users with think time.
	Users int `json:"users,omitempty"`
	// Load is Concurrency, Users or Rate (the ladder's x axis).
	Load float64 `json:"load"`
	// thinkS is a users step's mean think time Z in s (sla.think_time); 0 otherwise.
	thinkS float64

	Requests int `json:"requests"` // measured (measure + grace) requests
	// WarmupRequests counts the step's warm-up requests (never in any statistic).
	WarmupRequests int `json:"warmup_requests"`
	Errors         int `json:"errors"`
	// Unfinished counts the measured requests still in flight when the step ended (at
	// the end of the grace period or of the step's wall-time bound; records.jsonl
	// error_class unfinished, or cancelled in the grace phase in older runs): in neither
	// Requests nor Errors, the SLA judge counts their waits as censored lower bounds
	// (docs/metrics.md "Unfinished requests").
	Unfinished int `json:"unfinished"`
	// Overdue counts the unfinished requests that waited past OverdueAfterMs (ms,
	// sla.OverdueAfterMs: twice the longest finished successful E2E, at least 1 s):
	// lost to the user, they count as failed in ErrorRate and never as good.
	// OverdueMinWaitMs is the shortest wait (ms) among them. All 0 when none.
	Overdue          int     `json:"overdue,omitempty"`
	OverdueAfterMs   float64 `json:"overdue_after_ms,omitempty"`
	OverdueMinWaitMs float64 `json:"overdue_min_wait_ms,omitempty"`
	// CutByStepTimeout: the step's wall-time bound ended it (steps.jsonl
	// cut_by_step_timeout).
	CutByStepTimeout bool `json:"cut_by_step_timeout,omitempty"`
	// ErrorRate is the failed share (Errors + Overdue) / (Requests + Overdue): the
	// SLA judge's error rate.
	ErrorRate    float64        `json:"error_rate"`
	ErrorClasses map[string]int `json:"error_classes,omitempty"`
	// ErrorSamples gives, per error class, the first failed record's error message
	// (records.jsonl "error"; at most 200 characters).
	ErrorSamples map[string]string `json:"error_samples,omitempty"`

	// OverMaxTokens counts the successful measured requests whose output ignored the
	// max_tokens they were sent (rundir.OverMaxTokens); OverMaxTokensOf the successful
	// measured requests sent one; OverMaxTokensRatio the median output ÷ max_tokens of
	// the former (0 when none).
	OverMaxTokens      int     `json:"over_max_tokens,omitempty"`
	OverMaxTokensOf    int     `json:"over_max_tokens_of,omitempty"`
	OverMaxTokensRatio float64 `json:"over_max_tokens_ratio,omitempty"`

	TTFTMs Summary `json:"ttft_ms"`
	TTFOMs Summary `json:"ttfo_ms"`
	ITLMs  Summary `json:"itl_ms"`
	E2EMs  Summary `json:"e2e_ms"`
	ICLMs  Summary `json:"icl_ms"`

	// Throughputs over (last response − first request) of the measured requests; with
	// unfinished requests the span runs to the step's cut (the latest unfinished
	// request's sent + wait), as the step was busy until then.
	DurationS             float64 `json:"duration_s"`
	RequestThroughput     float64 `json:"request_throughput"`      // req/s
	OutputTokenThroughput float64 `json:"output_token_throughput"` // tokens/s
	TotalTokenThroughput  float64 `json:"total_token_throughput"`  // tokens/s
	// Goodput: finished requests meeting every SLA latency bound per second (each request
	// judged by sla.RequestGoodness); GoodFraction: their share of the finished requests
	// plus the unfinished ones that already broke a bound or are overdue (an unfinished
	// request is never good; one still within every bound and not overdue is left out,
	// its outcome unknown).
	Goodput      float64 `json:"goodput"`
	GoodFraction float64 `json:"good_fraction"`
	// PerUserOutputTokensPerS is the mean of OSL/E2E per request (tokens/s one user sees).
	PerUserOutputTokensPerS float64 `json:"per_user_output_tokens_per_s"`
	// LittleThroughputRps is the steady-state request throughput in req/s: closed loop
	// N / R by Little's law (R = mean E2E of successful measured requests, with requests
	// cut off at the end of the grace period counted for their time in flight), open loop the
	// rate, users step the rate at which its users sent in the measurement window (a
	// closed population sends as fast as it is answered; its requests in flight are this
	// × R). Unlike RequestThroughput it excludes the drain tail after the window, when
	// fewer than N requests are in flight. For a segment analysed from the mix's records
	// it is MixShare × the mix step's steady-state throughput.
	LittleThroughputRps float64 `json:"little_throughput_rps"`
	// AchievedRateRps (open loop) is the rate in req/s at which the server completed
	// the requests sent in the measurement window (phase measure or grace): the send
	// rate × the departure rate of their successful requests over the arrival rate,
	// each over its inner ranks, at most the send rate (see achievedRate); 0 when
	// unknown. Below 0.9 × the send rate the step is saturated and LittleThroughputRps
	// is this rate instead of the offered one.
	AchievedRateRps float64 `json:"achieved_rate_rps,omitempty"`
	sentRateRps     float64 // the window's sends per second, (n − 1) / send span
	// ScheduleLagMs summarises the schedule lag, sent − scheduled in ms, of the step's
	// measured requests: how long requests waited on the client (open loop: held by
	// ladder.max_concurrency, or a client behind its schedule; closed loop and users: a
	// slot's backoff after a fast failure). N == 0 when the records carry none (a closed
	// loop without failures).
	ScheduleLagMs Summary `json:"schedule_lag_ms"`
	// ReadLagMs summarises the client's read lag of the step's measured requests
	// (rundir.Record.ReadLagMs: the most each request's reads came after its bytes
	// arrived, ms); nil when the records carry none (off Linux, https:// targets, runs
	// before it). Above an ITL, events that waited together carry the last one's
	// arrival: clientReadLate judges it.
	ReadLagMs *Summary `json:"read_lag_ms,omitempty"`
	// ClientLimited (open loop): the client, not the server, limited the step — it sent
	// below 0.9 × the rate while the median request waited on the client longer than
	// max(100 ms, mean E2E). LittleThroughputRps is then the completed requests per
	// second (RequestThroughput), what the client's cap let through.
	ClientLimited bool `json:"client_limited,omitempty"`
	// MixShare is, for a segment analysed from the mix's records (ladder.per_segment
	// false), its share of the mix step's measured requests; 0 for a step of its own.
	MixShare float64 `json:"mix_share,omitempty"`
	// mixE2EMs is the mix step's mean E2E (ms) when MixShare > 0.
	mixE2EMs float64
	// cancelledNoFirst counts the Cancelled requests that had no first token yet (the
	// server never answered them within the grace period).
	cancelledNoFirst int
	// judged is the SLA judge's sample of the step (sla.Collector; stepSample).
	judged sla.Sample
	// stepTimeout is the wall-time bound that cut the step (CutByStepTimeout).
	stepTimeout time.Duration
	// itlEligible counts the successful measured requests with at least two output
	// tokens: those for which ITL is defined (OSL ≥ 2).
	itlEligible int
	// cutOffMsSum and cutOffN: the time in flight (ms, sent → cut-off) summed over the
	// Cancelled requests that were sent, and their number (for residenceMs).
	cutOffMsSum float64
	cutOffN     int

	IntendedPromptTokensMean float64 `json:"intended_prompt_tokens_mean"`
	PromptTokensMean         float64 `json:"prompt_tokens_mean"`
	IntendedOutputTokensMean float64 `json:"intended_output_tokens_mean"`
	OutputTokensMean         float64 `json:"output_tokens_mean"`

	SteadyState       bool   `json:"steady_state"`
	SteadyStateReason string `json:"steady_state_reason"`

	// MeetsSLA: every SLA constraint and the error rate hold at this step.
	MeetsSLA bool `json:"meets_sla"`
	// SLAViolations lists the broken constraints, e.g. "ttft p95 812 ms > 500 ms".
	SLAViolations []string `json:"sla_violations,omitempty"`
	// SLAChecks are the judge's checks, bound by bound (sla.Judge): the values it
	// compared (censoring-aware; the TTFTMs … E2EMs summaries are over finished requests
	// only). Empty for a step judged empty (no finished request).
	SLAChecks []SLACheck `json:"sla_checks,omitempty"`
	// verdict is the judge's typed verdict behind MeetsSLA, SLAViolations and SLAChecks.
	verdict sla.Verdict

	Regime         Regime `json:"regime"`
	RegimeEvidence string `json:"regime_evidence"`
	// QueueLimit (regime queue) says what holds the queue: slots or kv_cache.
	QueueLimit QueueLimit `json:"queue_limit,omitempty"`

	Server *ServerStats `json:"server,omitempty"`
	// GPU is the GPU telemetry (DCGM exporter) over the step's measurement window:
	// utilisation, memory, power, energy and energy per output token (energy.go); nil
	// when no scrape in the window carried DCGM metrics.
	GPU *GPUStats `json:"gpu,omitempty"`

	// SimulatorLate: the embedded simulator ran late in this step (its iteration
	// lateness p99, Server.SimLatenessP99Ms, above SimLateLimitMs): the host starved it of
	// CPU, so the step's latencies measure the host, not the modelled engine.
	SimulatorLate bool `json:"simulator_late,omitempty"`
}

// ServerStats are scraped server metrics over a step's measurement window.
type ServerStats struct {
	RunningMean float64 `json:"running_mean"`
	// RunningMax is the largest running batch scraped in the window (requests).
	RunningMax      float64 `json:"running_max"`
	WaitingMean     float64 `json:"waiting_mean"`
	WaitingMax      float64 `json:"waiting_max"`
	KVCacheUsageMax float64 `json:"kv_cache_usage_max"` // 0..1
	Preemptions     float64 `json:"preemptions"`        // increase over the window
	// SimLatenessP99Ms is the embedded simulator's iteration lateness p99 over the window
	// (ms, from rundir.SimLatenessFamily's buckets, histogram_quantile); SimIterations the
	// iterations it ran then. Absent for other servers.
	SimLatenessP99Ms float64 `json:"sim_lateness_p99_ms,omitempty"`
	SimIterations    float64 `json:"sim_iterations,omitempty"`
	// PrefixCache is the prefix-cache hit rate over the window (prefix_cache.go), nil
	// when the engine reports none or looked up no prompt tokens.
	PrefixCache *PrefixCacheStats `json:"prefix_cache,omitempty"`
	// kvSeen: a KV-cache usage gauge was scraped (KVCacheUsageMax 0 is then a fact).
	kvSeen bool
}

// Fit is the queueing model fitted to one segment's ladder.
type Fit struct {
	// ServiceRate is the maximum throughput in req/s (X_max) once slots are saturated.
	ServiceRate float64 `json:"service_rate_rps"`
	// Slots is the effective number of requests served in parallel (≈ max_num_seqs).
	Slots float64 `json:"slots"`
	// SlotsIdentified is false when no steady step held clearly more requests than the
	// fitted slots (no step saturated the server): Slots, its interval and ServiceRate
	// are then unknown and written as 0.
	SlotsIdentified bool `json:"slots_identified"`
	// SlotsCILow/High is the bootstrap confidence interval of Slots (95%).
	SlotsCILow  float64 `json:"slots_ci_low"`
	SlotsCIHigh float64 `json:"slots_ci_high"`
	// BaseTTFTMs is TTFT with no queueing (prefill time at this segment's prompt size).
	BaseTTFTMs float64 `json:"base_ttft_ms"`
	// DecodeBaseMs and DecodePerSeqMs model ITL(batch) = base + perSeq·batch.
	DecodeBaseMs   float64 `json:"decode_base_ms"`
	DecodePerSeqMs float64 `json:"decode_per_seq_ms"`
	// PrefillMsPerKToken models prefill time per 1k prompt tokens in flight.
	PrefillMsPerKToken float64 `json:"prefill_ms_per_ktoken"`
	// R2 of the TTFT p95 fit and its residuals (measured − predicted, ms), both over the
	// steps the model was fitted to (the steady steps when at least two are steady, else
	// every step with TTFT data); ResidualLoads gives each residual's load.
	R2            float64   `json:"r2"`
	Residuals     []float64 `json:"residuals"`
	ResidualLoads []float64 `json:"residual_loads"`
	// slotsFitted is the fitted slot count even when not identified (a lower bound).
	slotsFitted float64
	// slotsUnlocated is the share of bootstrap resamples whose fit saturated no step
	// (their slot count is unknown; SlotsCILow/High leave them out).
	slotsUnlocated float64
	// FitSteps is the number of steps the model was fitted to.
	FitSteps int `json:"fit_steps"`
	// Underdetermined: fewer than minFitSteps (3) steps behind the fit, too few to
	// identify the model (it has more parameters than the TTFT p95 points: an R² near 1
	// means nothing). Slots and ServiceRate are then unknown (SlotsIdentified false, 0)
	// and R2 must not be shown as a measure of fit.
	Underdetermined bool `json:"underdetermined,omitempty"`
	// BootstrapReps is the number of bootstrap resamples behind the intervals.
	BootstrapReps int `json:"bootstrap_reps"`
	// Curve is the model's predicted TTFT p95 / ITL p50 over a load grid (for charts).
	Curve []CurvePoint `json:"curve"`
}

// CurvePoint is one point of a fitted curve, with its confidence band.
type CurvePoint struct {
	Load      float64 `json:"load"`
	TTFTp95Ms float64 `json:"ttft_p95_ms"`
	TTFTLowMs float64 `json:"ttft_low_ms"`
	TTFTHigh  float64 `json:"ttft_high_ms"`
	ITLp50Ms  float64 `json:"itl_p50_ms"`
	// Throughput in req/s predicted at Load.
	Throughput float64 `json:"throughput_rps"`
}

// Capacity is the answer: the largest load within the SLA, with its confidence band.
type Capacity struct {
	// cause is why the segment's first failing step failed (verdict_cause.go), for the
	// answer's words.
	cause failCause
	// MaxConcurrencyWithinSLA (closed loop; for a users ladder the requests in flight at
	// the capacity point, X · R) or MaxRateWithinSLA (open loop, req/s). For a users
	// ladder the capacity load, and RangeLow/RangeHigh, are users (UsersWithThinkTime).
	MaxConcurrencyWithinSLA float64 `json:"max_concurrency_within_sla"`
	MaxRateWithinSLA        float64 `json:"max_rate_within_sla,omitempty"`
	// OfferedRateRps (open loop) is the offered rate at the capacity point when the
	// server completed less (MaxRateWithinSLA is then the achieved throughput); else 0.
	OfferedRateRps float64 `json:"offered_rate_rps,omitempty"`
	// ClientLimited (open loop): a step at or below the capacity point was client-limited
	// (StepStats.ClientLimited), so the capacity is what the client let through — a
	// lower bound on the server's, not its limit.
	ClientLimited bool `json:"client_limited,omitempty"`
	// RangeLow..RangeHigh is the range the true capacity lies in, of kind RangeKind:
	// for a measured capacity the bracket between the last passing load and the load
	// below the first failing one (concurrency and users are whole: [pass, fail − 1]);
	// for an interpolated or projected one the model's prediction interval (within the
	// bracket when there is one); for at_least [the highest load tested, open).
	RangeLow  float64   `json:"range_low"`
	RangeHigh float64   `json:"range_high"`
	RangeKind RangeKind `json:"range_kind,omitempty"`
	// OpenEnded: the true capacity may lie above RangeHigh (method at_least: RangeHigh is
	// 0, meaning no upper bound; method model: the projection hit its 2× cap). Show the
	// range as "≥ RangeLow" when RangeHigh is 0.
	OpenEnded bool `json:"open_ended,omitempty"`
	// NoiseLow..NoiseHigh is the 95% band of the capacity over resampled requests (the
	// bootstrap): how much the verdicts could move with other draws of the same steps'
	// requests. It is not the range (which covers the loads not measured); resamples
	// whose first step fails are left out, never counted as a capacity of 0.
	NoiseLow  float64 `json:"noise_low"`
	NoiseHigh float64 `json:"noise_high"`
	// PassLoad and FailLoad are the measured bracket: the largest passing load below the
	// first failing one, and that failing load (0 when absent).
	PassLoad float64 `json:"pass_load,omitempty"`
	FailLoad float64 `json:"fail_load,omitempty"`
	// Method: "measured" (the largest passing measured load), "interpolated" (the
	// fitted model's capacity between the last passing and the first failing steps,
	// which it reproduces), "at_least" (every step met the SLA: the highest load
	// tested, a lower bound), "model" (every step met the SLA and a good fit projects
	// beyond the last step, at most 2×), "below_first_step" (the SLA fails at the
	// lowest load) or "no_data".
	Method CapacityMethod `json:"method"`
	// FirstStepSaturated (method below_first_step): the lowest load tested was already
	// past saturation (an open loop: the server completed fewer requests than offered;
	// a closed loop: its requests queued for a slot): test lower loads. False when the
	// SLA is simply tighter than the latency at the lowest load.
	FirstStepSaturated bool `json:"first_step_saturated,omitempty"`
	// Bottleneck is the regime that limits capacity: queue, prefill, decode, errors
	// (the error-rate bound fails) or none.
	Bottleneck         Regime `json:"bottleneck"`
	BottleneckEvidence string `json:"bottleneck_evidence"`
	// QueueLimit (bottleneck queue) says what holds the queue: slots or kv_cache.
	QueueLimit QueueLimit `json:"queue_limit,omitempty"`
	// LimitingConstraint names the SLA constraint that binds first, e.g. "ttft p95 ≤ 500 ms".
	LimitingConstraint string `json:"limiting_constraint"`
	// ThroughputAtCapacity in req/s and output tokens/s at the capacity point: the
	// steady-state throughput (closed loop N / R by Little's law with R the mean E2E
	// interpolated at the capacity point; open loop the rate), not the drain-diluted
	// RequestThroughput of the steps.
	ThroughputAtCapacity       float64 `json:"throughput_at_capacity_rps"`
	OutputTokensPerSAtCapacity float64 `json:"output_tokens_per_s_at_capacity"`
	// UsersWithThinkTime is the users served within the SLA. From a users ladder
	// (UsersSource measured) it is the capacity load itself: users measured as closed
	// populations thinking ThinkTimeS on average, and MaxConcurrencyWithinSLA is then
	// the requests in flight at that point (X · R). From a concurrency or rate ladder
	// (UsersSource converted) it is the estimate X · (R + Z) at capacity; closed loop
	// N + X·Z = N·(R + Z)/R.
	UsersWithThinkTime float64 `json:"users_with_think_time"`
	// Users is UsersWithThinkTime rounded down (the conservative figure the answer
	// sentence states); 0 when sizing is not possible.
	Users      int     `json:"users"`
	ThinkTimeS float64 `json:"think_time_s"`
	// UsersSource says where Users come from: UsersMeasured (a users ladder) or
	// UsersConverted (X · (R + Z) from a concurrency or rate ladder, an estimate); ""
	// when there are none.
	UsersSource UsersSource `json:"users_source,omitempty"`
	// Advice: what to do about the bottleneck (more replicas, faster GPU, engine
	// settings), in plain words; the report shows it as written.
	Advice string `json:"advice"`
	// Energy is the GPUs' power and energy per output token at the capacity point,
	// from the DCGM exporter's metrics (energy_capacity.go); nil without them.
	Energy *EnergyAtCapacity `json:"energy,omitempty"`
}

// WhatIf is one sizing row: target users → replicas, GPUs and cost.
type WhatIf struct {
	GPU             string  `json:"gpu"`
	Projected       bool    `json:"projected"` // true when scaled by roofline, not measured
	UsersPerReplica float64 `json:"users_per_replica"`
	TargetUsers     int     `json:"target_users"`
	// Headroom is the spare fraction of users_per_replica each replica keeps
	// (report.headroom, default 0.2): replicas = ⌈target_users / (users_per_replica ×
	// (1 − headroom))⌉.
	Headroom          float64 `json:"headroom"`
	Replicas          int     `json:"replicas"`
	GPUs              int     `json:"gpus"`
	CostPerMonthUSD   float64 `json:"cost_per_month_usd"`
	CostPerMOutputUSD float64 `json:"cost_per_million_output_tokens_usd"`
	// GPUHourUSD is the price per GPU-hour behind the costs; PriceSource says where it
	// comes from. SamePriceAssumed is true when the catalog has no price for this
	// projected GPU and the measured GPU's price was reused (PriceMeasuredAssumed).
	GPUHourUSD       float64     `json:"gpu_hour_usd"`
	PriceSource      PriceSource `json:"price_source,omitempty"`
	SamePriceAssumed bool        `json:"same_price_assumed,omitempty"`
	// EnergyCostPerMonthUSD and EnergyCostPerMOutputUSD are the GPUs' electricity at
	// report.power_usd_per_kwh (energyCosts): the measured GPU's row only, with GPU
	// telemetry scraped and a price set; 0 otherwise.
	EnergyCostPerMonthUSD   float64 `json:"energy_cost_per_month_usd,omitempty"`
	EnergyCostPerMOutputUSD float64 `json:"energy_cost_per_million_output_tokens_usd,omitempty"`
}

// PriceSource says where a what-if row's $/GPU-hour comes from.
type PriceSource string

// Price sources of a what-if row.
const (
	// PricePlan is report.gpu_hour_usd (the measured GPU's row).
	PricePlan PriceSource = "plan"
	// PriceCatalog is the GPU's price_usd_per_hour in the catalog (with the plan's override).
	PriceCatalog PriceSource = "catalog"
	// PriceMeasuredAssumed is the measured GPU's price, reused for a projected GPU the
	// catalog has no price for.
	PriceMeasuredAssumed PriceSource = "measured_gpu_assumed"
	// PriceNone is no price at all: costs are 0.
	PriceNone PriceSource = "none"
)

// ErrorSummary is the failed requests of a run's measured steps (each step counted once:
// segments' own steps and the mix's), by class with a sample message per class.
type ErrorSummary struct {
	Requests  int               `json:"requests"`
	Errors    int               `json:"errors"`
	ErrorRate float64           `json:"error_rate"`
	Classes   map[string]int    `json:"classes,omitempty"`
	Samples   map[string]string `json:"samples,omitempty"`
}

// SegmentAnalysis is the analysis of one segment's ladder (or of the mix).
type SegmentAnalysis struct {
	Segment string  `json:"segment"`
	Weight  float64 `json:"weight"`
	// FromMix: the segment ran only inside the mix (ladder.per_segment false) and is
	// analysed from the mix steps' records drawn from it. Its loads, capacity and users
	// are then the whole mix's (the mix load at which this segment's requests still meet
	// the SLA), while its throughputs are its own share.
	FromMix  bool        `json:"from_mix,omitempty"`
	Steps    []StepStats `json:"steps"`
	Fit      *Fit        `json:"fit,omitempty"`
	Capacity Capacity    `json:"capacity"`
	WhatIf   []WhatIf    `json:"what_if,omitempty"`
	// Search is the capacity search that chose the steps (ladder.search), nil for a
	// fixed ladder.
	Search *Search `json:"search,omitempty"`
}

// Search is how a segment's capacity search went: the loads it measured in order,
// each with the SLA judge's verdict, and why it stopped.
type Search struct {
	Over string `json:"over"`
	// Steps is the number of steps it used; Path the loads in the order measured.
	Steps int           `json:"steps"`
	Path  []SearchPoint `json:"path"`
	// Stop is why it ended (capsearch.StopReason: adjacent, tolerance, max_steps,
	// max_load, below_min, no_progress; "" when the run ended before it did);
	// StopText says it in words.
	Stop     capsearch.StopReason `json:"stop"`
	StopText string               `json:"stop_text"`
}

// SearchPoint is one step of a capacity search: its load, whether it met the SLA,
// and whether the queueing model chose it (Guided, with the capacity it predicted).
type SearchPoint struct {
	Step       int     `json:"step"`
	Load       float64 `json:"load"`
	Pass       bool    `json:"pass"`
	Unreliable bool    `json:"unreliable,omitempty"`
	// Unfinished: the run ended during this step; it has no verdict.
	Unfinished    bool    `json:"unfinished,omitempty"`
	Guided        bool    `json:"guided,omitempty"`
	PredictedLoad float64 `json:"predicted_load,omitempty"`
}

// KernelSummary is one captured step's profile (profiles/<step>/, see profiles.go):
// where its GPU time went (kernels.json), or without GPU data the server's OS runtime
// calls (osrt.json) and NoGPU saying why, or CaptureError when the capture failed.
type KernelSummary struct {
	// Step is the step index (-1 when no step names the directory); Load its
	// concurrency or rate; Dir the capture directory's name under profiles/ ("" when
	// the capture failed before writing one).
	Step        int                `json:"step"`
	Segment     string             `json:"segment"`
	Load        float64            `json:"load"`
	Dir         string             `json:"dir"`
	ClassShares map[string]float64 `json:"class_shares"` // class → fraction of GPU time
	Top         []KernelRow        `json:"top"`
	// Knee marks the capture at its segment's knee: the first captured step that broke
	// the SLA, else (every captured step met it) the highest captured load; KneeReason
	// says which.
	Knee       bool   `json:"knee,omitempty"`
	KneeReason string `json:"knee_reason,omitempty"`
	// GPUTimeNs is the summed kernel and GPU memory-operation time (ns); WindowNs the
	// capture window's wall time (ns, 0 when unknown).
	GPUTimeNs int64 `json:"gpu_time_ns,omitempty"`
	WindowNs  int64 `json:"window_ns,omitempty"`
	// OSRuntime are the largest OS runtime (libc) calls of the server's processes over
	// the window (nsys osrt trace), OSRuntimeTimeNs their summed time (ns).
	OSRuntime       []OSCallRow `json:"os_runtime,omitempty"`
	OSRuntimeTimeNs int64       `json:"os_runtime_time_ns,omitempty"`
	// NoGPU says in plain words why there is no GPU-time breakdown ("" when there is).
	NoGPU string `json:"no_gpu,omitempty"`
	// CaptureError is why the capture of this step failed (steps.jsonl capture_error).
	CaptureError string `json:"capture_error,omitempty"`
	// StopHung says how `nsys stop` hung when the data was recovered from its .qdstrm.
	StopHung string `json:"stop_hung,omitempty"`
}

// OSCallRow is one OS runtime function's calls over a capture window.
type OSCallRow struct {
	Name        string  `json:"name"`
	Calls       int64   `json:"calls"`
	TotalTimeNs int64   `json:"total_time_ns"`
	AvgNs       float64 `json:"avg_ns"`
	Share       float64 `json:"share"` // of the traced OS runtime time, 0..1
}

// KernelRow is one kernel's total GPU time (kernels.json's row, rundir.KernelRow).
type KernelRow = rundir.KernelRow

// Analysis is analysis.json.
type Analysis struct {
	// FormatVersion is FormatVersion when this package wrote the file (0: an older one).
	FormatVersion int    `json:"format_version"`
	RunID         string `json:"run_id"`
	ToolVersion   string `json:"tool_version"`
	// ToolCommit is the commit of the llmcap that ran the sweep (run.json's; absent:
	// unknown).
	ToolCommit rundir.ToolCommit `json:"tool_commit,omitzero"`
	// Schedule is concurrency, rate, users or trace (the ladder's x axis).
	Schedule    string            `json:"schedule"`
	Plan        plan.Plan         `json:"plan"`
	Constraints []plan.Constraint `json:"sla_constraints"`
	Segments    []SegmentAnalysis `json:"segments"`
	// Mix is the weighted mix's analysis when the ladder ran it.
	Mix *SegmentAnalysis `json:"mix,omitempty"`
	// Overall is the headline: the mix's capacity when present, else the tightest segment's.
	Overall       Capacity        `json:"overall"`
	OverallSource string          `json:"overall_source"` // "mix" or a segment name
	WhatIf        []WhatIf        `json:"what_if"`
	Kernels       []KernelSummary `json:"kernels,omitempty"`
	// Answer is the one-sentence answer (the CLI summary, page 1 of the PDF, the
	// Markdown and the workbook show it as written).
	Answer string `json:"answer"`
	// Headline is the answer's plain-words companions: what a user is, what limits
	// capacity, what to do and how sure the answer is (page 1 of every report).
	Headline Headline `json:"headline"`
	// Warnings are every warning about the run and its verdict, typed by kind, in the
	// order shown: the simulator's speed-up first, the sweep's own (message prefixed
	// "sweep: "), the analysis's per step and segment, sizing, and last the notes on
	// the headline (projected or lower-bound capacity, error rates above the SLA,
	// projected what-if rows). Every output renders this list as it is.
	Warnings []Warning `json:"warnings"`
	// Errors summarises the failed measured requests of the whole run.
	Errors ErrorSummary `json:"errors"`
	// SpeedUp is the simulator's speed_up when it is not 1: every latency was compressed
	// by this factor, so latencies and capacity are not real-time figures.
	SpeedUp float64 `json:"speed_up,omitempty"`
	// RunState is run.json's state when the run did not complete ("interrupted",
	// "running", "failed"); empty for a complete run.
	RunState string `json:"run_state,omitempty"`
	// StepsCompleted and StepsPlanned, for a run that did not complete: the steps that
	// finished (a steps.jsonl line), which alone are analysed, and the plan's steps.
	StepsCompleted int `json:"steps_completed,omitempty"`
	StepsPlanned   int `json:"steps_planned,omitempty"`
	// GroundTruth holds the simulator's known settings (max_num_seqs…) when applicable.
	GroundTruth map[string]any `json:"ground_truth,omitempty"`
	// Engine is the server software detected (vllm, sglang, llama.cpp, ollama, tgi or
	// simulator; empty when unknown), EngineSource how; the advice names its settings.
	Engine       Engine `json:"engine,omitempty"`
	EngineSource string `json:"engine_source,omitempty"`
	// RunningLimit is the configured running-batch limit in requests (0 when not
	// recorded), RunningLimitSource the setting it was read from.
	RunningLimit       int    `json:"running_limit,omitempty"`
	RunningLimitSource string `json:"running_limit_source,omitempty"`
	// Drift is the output-drift probe's result (plan.Drift, drift.jsonl); nil for a run
	// without the probe, and in files before format 7.
	Drift *Drift `json:"drift,omitempty"`
}

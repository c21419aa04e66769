// Package plan holds llmcap's typed plan schema (the YAML a user writes), its defaults,
// its validation with field-path errors, and its expansion into an ordered list of steps.
//
// Pure: no I/O besides reading the config file (and checking that referenced trace files
// exist). Later stages (sweep, analysis, report, profiles) import these types; plan imports
// none of them.
package plan

import (
	"time"

	"github.com/llmcap/llmcap/tracefile"
)

// Plan is the whole, resolved benchmark plan. Field names follow the YAML keys
// (mapstructure tags); durations accept Go duration strings ("30s", "2m").
type Plan struct {
	// Name names the run; it becomes part of the default run directory name (default:
	// the plan file's name without its extension; without a file, target.model made
	// safe for a directory name, "stories-latest" for stories:latest, or "llmcap" for
	// the simulator).
	Name string `mapstructure:"name" json:"name" yaml:"name"`
	// Description is free text shown in reports.
	Description string `mapstructure:"description" json:"description,omitempty" yaml:"description,omitempty"`
	// Seed makes prompt text, length draws and arrivals deterministic.
	Seed int64 `mapstructure:"seed" json:"seed" yaml:"seed"`

	Target Target `mapstructure:"target" json:"target" yaml:"target"`
	// Segments are the classes of traffic and their mix. Left out (no segments key
	// anywhere), the plan has one segment "default" of fixed 512 prompt and 128 output
	// tokens (--isl and --osl change it).
	Segments []Segment `mapstructure:"segments" json:"segments" yaml:"segments"`
	Ladder   Ladder    `mapstructure:"ladder" json:"ladder" yaml:"ladder"`
	SLA      SLA       `mapstructure:"sla" json:"sla" yaml:"sla"`
	Capture  Capture   `mapstructure:"capture" json:"capture" yaml:"capture"`
	Report   Report    `mapstructure:"report" json:"report" yaml:"report"`
	// Tune configures `llmcap tune`, a search over the server's parameters (tune.go);
	// other commands ignore it.
	Tune *Tune `mapstructure:"tune" json:"tune,omitempty" yaml:"tune,omitempty"`
	// Drift, when set, runs the output-drift probe (drift.go, docs/drift.md): a frozen
	// prompt set at temperature 0 before the ladder (and after it), whose outputs'
	// hashes show whether the server answers the same prompt the same way.
	Drift *Drift `mapstructure:"drift" json:"drift,omitempty" yaml:"drift,omitempty"`

	// Assumed lists, one line each, the defaults Load filled in for what the plan file,
	// the environment and the overrides left out (section_defaults.go); empty for a
	// plan that gives every section. Never serialised.
	Assumed []string `mapstructure:"-" json:"-" yaml:"-"`
}

// TargetSimulator is the Target.URL value that selects the embedded engine simulator.
const TargetSimulator = "simulator"

// Target is the server under test.
type Target struct {
	// URL is "simulator" (the default: the embedded engine, started in-process on
	// 127.0.0.1) or an OpenAI-compatible base URL such as "http://127.0.0.1:8000/v1".
	URL string `mapstructure:"url" json:"url" yaml:"url"`
	// API is "chat" (/v1/chat/completions, the default) or "completions" (/v1/completions).
	API string `mapstructure:"api" json:"api" yaml:"api"`
	// Model is the model name sent in each request (and checked against /v1/models).
	// For the simulator it defaults to, and must equal, target.simulator.model: the
	// simulator answers only that name.
	Model string `mapstructure:"model" json:"model" yaml:"model"`
	// APIKeyEnv names an environment variable holding the API key.
	APIKeyEnv string `mapstructure:"api_key_env" json:"api_key_env,omitempty" yaml:"api_key_env,omitempty"`
	// APIKeyFile names a file holding the API key (first line, trimmed).
	APIKeyFile string `mapstructure:"api_key_file" json:"api_key_file,omitempty" yaml:"api_key_file,omitempty"`
	// APIKey is resolved from APIKeyEnv/APIKeyFile at load time. Never serialised.
	APIKey string `mapstructure:"-" json:"-" yaml:"-"`
	// ExtraBody is merged into every request body (e.g. ignore_eos: true). Keys are
	// lower-cased by the config loader (viper is case-insensitive), so write them in
	// lower case (snake_case) as OpenAI-compatible servers expect.
	ExtraBody map[string]any `mapstructure:"extra_body" json:"extra_body,omitempty" yaml:"extra_body,omitempty"`
	// Headers are extra HTTP request headers, a map of header name to value, sent with
	// every load request and the preflight (default none), for gateways that need more
	// than a bearer token. Names are RFC 9110 tokens (letters, digits and
	// !#$%&'*+-.^_`|~, no dot: the plan loader splits keys at dots), case-insensitive
	// (the loader lower-cases them; they are sent in canonical form, X-Api-Key). A value
	// may take parts from the environment: ${NAME} is replaced by the variable NAME
	// (set and non-empty, or the plan is invalid), $${ is a literal ${; values from the
	// environment never appear in run.json, logs or errors. Headers llmcap sets itself
	// are refused (Host, Content-Type, Content-Length, Transfer-Encoding, Connection,
	// Accept, X-Request-Id, the session header, …), and so is Authorization when
	// api_key_env, api_key_file or user info in url supplies the credentials. Also
	// --header 'Name: value' (repeatable), which wins over the plan's header of that
	// name. docs/client.md "Request headers".
	Headers map[string]string `mapstructure:"headers" json:"headers,omitempty" yaml:"headers,omitempty"`
	// SessionHeader names the header that carries a multi-turn session's id (the
	// records' session_id: the same on every turn of one session, different across
	// sessions), for session-affinity routers; an RFC 9110 token. Default
	// DefaultSessionHeader; "" sends none. Single-turn requests never
	// carry it.
	SessionHeader string `mapstructure:"session_header" json:"session_header" yaml:"session_header"`
	// Temperature sent with each request (default 0).
	Temperature float64 `mapstructure:"temperature" json:"temperature" yaml:"temperature"`
	// MetricsURLs are Prometheus endpoints scraped during the sweep. For the simulator
	// its own /metrics is scraped automatically.
	MetricsURLs []string `mapstructure:"metrics_urls" json:"metrics_urls,omitempty" yaml:"metrics_urls,omitempty"`
	// MetricsInterval is the scrape interval (default 1s).
	MetricsInterval time.Duration `mapstructure:"metrics_interval" json:"metrics_interval_ns" yaml:"metrics_interval"`
	// Timeouts for each request (docs/client.md "Timeouts"); an explicit 0 turns one
	// off. ConnectTimeout bounds the TCP dial (default none: the OS's own bound).
	// FirstByteTimeout runs from getting a connection to the response headers (default
	// DefaultFirstByteTimeout: Ollama and llama.cpp may hold the headers until the
	// first token, after a model load). IdleTimeout bounds every wait for more of the
	// body after the headers (default DefaultIdleTimeout: vLLM and SGLang send the
	// headers at once, even for a queued request, and then nothing until its first
	// token, which took 41.7 s on average at 50 users in the seed data, minutes in the
	// tail). A hung server meets neither, so its requests fail as timeout_first_byte or
	// timeout_idle instead of waiting for ever. RequestTimeout caps the whole request
	// (default none: a long reply at a healthy pace must not be cut).
	ConnectTimeout   time.Duration `mapstructure:"connect_timeout" json:"connect_timeout_ns" yaml:"connect_timeout"`
	FirstByteTimeout time.Duration `mapstructure:"first_byte_timeout" json:"first_byte_timeout_ns" yaml:"first_byte_timeout"`
	IdleTimeout      time.Duration `mapstructure:"idle_timeout" json:"idle_timeout_ns" yaml:"idle_timeout"`
	RequestTimeout   time.Duration `mapstructure:"request_timeout" json:"request_timeout_ns" yaml:"request_timeout"`
	// MaxResponseBytes bounds one response body in bytes (0: the client's default, 64
	// MiB); a longer one is recorded as error class response_too_large.
	MaxResponseBytes int64 `mapstructure:"max_response_bytes" json:"max_response_bytes,omitempty" yaml:"max_response_bytes,omitempty"`
	// Launch optionally starts the server before the sweep.
	Launch *Launch `mapstructure:"launch" json:"launch,omitempty" yaml:"launch,omitempty"`
	// Simulator configures the embedded engine when URL is "simulator".
	Simulator Simulator `mapstructure:"simulator" json:"simulator" yaml:"simulator"`
}

// IsSimulator reports whether the target is the embedded engine simulator.
func (t Target) IsSimulator() bool { return t.URL == "" || t.URL == TargetSimulator }

// Launch is a server command llmcap starts (and stops) around the sweep.
type Launch struct {
	// Command is the argv of the server process.
	Command []string `mapstructure:"command" json:"command" yaml:"command"`
	// Env are extra KEY=VALUE environment entries.
	Env []string `mapstructure:"env" json:"env,omitempty" yaml:"env,omitempty"`
	// ReadyTimeout bounds the wait for GET {url}/models to answer 200 (default 5m).
	ReadyTimeout time.Duration `mapstructure:"ready_timeout" json:"ready_timeout_ns" yaml:"ready_timeout"`
}

// Simulator configures the embedded continuous-batching engine simulator.
type Simulator struct {
	// GPU is a catalog GPU name (e.g. "H100-SXM").
	GPU string `mapstructure:"gpu" json:"gpu" yaml:"gpu"`
	// Model is a catalog model name (e.g. "llama-3.1-8b").
	Model string `mapstructure:"model" json:"model" yaml:"model"`
	// Catalog optionally names a YAML catalog overriding the embedded one.
	Catalog string `mapstructure:"catalog" json:"catalog,omitempty" yaml:"catalog,omitempty"`
	// TensorParallel is the tensor-parallel degree (GPUs per replica; default 1).
	TensorParallel int `mapstructure:"tensor_parallel" json:"tensor_parallel" yaml:"tensor_parallel"`
	// MaxNumSeqs is vLLM's max_num_seqs (default 256).
	MaxNumSeqs int `mapstructure:"max_num_seqs" json:"max_num_seqs" yaml:"max_num_seqs"`
	// MaxNumBatchedTokens is vLLM's max_num_batched_tokens (default 8192).
	MaxNumBatchedTokens int `mapstructure:"max_num_batched_tokens" json:"max_num_batched_tokens" yaml:"max_num_batched_tokens"`
	// GPUMemoryUtilization is the fraction of HBM the engine may use (default 0.9).
	GPUMemoryUtilization float64 `mapstructure:"gpu_memory_utilization" json:"gpu_memory_utilization" yaml:"gpu_memory_utilization"`
	// BlockSize is the KV cache block size in tokens (default 16).
	BlockSize int `mapstructure:"block_size" json:"block_size" yaml:"block_size"`
	// PrefixCaching enables prefix caching by prompt block hashes.
	PrefixCaching bool `mapstructure:"prefix_caching" json:"prefix_caching" yaml:"prefix_caching"`
	// ComputeEfficiency and BandwidthEfficiency scale peak FLOPS and HBM bandwidth
	// (defaults 0.6 and 0.8); OverheadMs is the fixed per-iteration overhead (default 2).
	ComputeEfficiency   float64 `mapstructure:"compute_efficiency" json:"compute_efficiency" yaml:"compute_efficiency"`
	BandwidthEfficiency float64 `mapstructure:"bandwidth_efficiency" json:"bandwidth_efficiency" yaml:"bandwidth_efficiency"`
	OverheadMs          float64 `mapstructure:"overhead_ms" json:"overhead_ms" yaml:"overhead_ms"`
	// OutputTokens is the natural output-length distribution used when a request does
	// not set ignore_eos (capped by max_tokens). Nil means "always max_tokens".
	OutputTokens *Dist `mapstructure:"output_tokens" json:"output_tokens,omitempty" yaml:"output_tokens,omitempty"`
	// SpeedUp divides every simulated duration (default 1: real time). Tests use it.
	SpeedUp float64 `mapstructure:"speed_up" json:"speed_up" yaml:"speed_up"`
	// NondeterministicFraction is the share of prompts (0..1, default 0) whose output
	// at temperature 0 is not reproducible: at temperature 0 the text is a function of
	// the prompt and the request's seed, except for a prompt whose text hash falls in
	// this fraction, whose output diverges from some token on at each call (ground
	// truth for the drift probe, docs/drift.md). At another temperature, or with none
	// sent, the text is seeded by the request's id, as before.
	NondeterministicFraction float64 `mapstructure:"nondeterministic_fraction" json:"nondeterministic_fraction,omitempty" yaml:"nondeterministic_fraction,omitempty"`
}

// Distribution kinds accepted by Dist.Kind.
const (
	DistFixed     = "fixed"
	DistUniform   = "uniform"
	DistNormal    = "normal"
	DistLognormal = "lognormal"
	DistEmpirical = "empirical"
)

// Dist is a token-count (or seconds, for think time) distribution.
//
//	fixed:     value
//	uniform:   min, max
//	normal:    mean, stddev (clamped to [min, max] when set)
//	lognormal: mean, stddev of the resulting values (clamped to [min, max] when set)
//	empirical: file (CSV or JSONL trace) and column; values drawn uniformly from it
//
// A plan file may write it short, as --isl and --osl take it: a bare number is fixed
// (prompt_tokens: 512 is {dist: fixed, value: 512}); "512±64" or "512+-64" is normal
// with mean 512 and stddev 64, clamped below at 1 token ({dist: normal, mean: 512,
// stddev: 64, min: 1}; sd 0 is fixed); "uniform:min=16,max=48" is a distribution as
// the flags write it. In think_time_s the numbers are seconds and "5±2" is normal
// without a clamp.
type Dist struct {
	// Kind is the distribution: fixed, uniform, normal, lognormal or empirical.
	Kind   string  `mapstructure:"dist" json:"dist" yaml:"dist"`
	Value  float64 `mapstructure:"value" json:"value,omitempty" yaml:"value,omitempty"`
	Mean   float64 `mapstructure:"mean" json:"mean,omitempty" yaml:"mean,omitempty"`
	StdDev float64 `mapstructure:"stddev" json:"stddev,omitempty" yaml:"stddev,omitempty"`
	Min    float64 `mapstructure:"min" json:"min,omitempty" yaml:"min,omitempty"`
	Max    float64 `mapstructure:"max" json:"max,omitempty" yaml:"max,omitempty"`
	File   string  `mapstructure:"file" json:"file,omitempty" yaml:"file,omitempty"`
	Column string  `mapstructure:"column" json:"column,omitempty" yaml:"column,omitempty"`
}

// Segment is one class of traffic (e.g. short chat, medium, whole-codebase prompts).
type Segment struct {
	// Name names the segment in steps, reports and capture.steps (unique; not "mix").
	Name string `mapstructure:"name" json:"name" yaml:"name"`
	// Weight is the segment's share of the mix (normalised over all segments).
	Weight float64 `mapstructure:"weight" json:"weight" yaml:"weight"`
	// PromptTokens and OutputTokens are the intended ISL and OSL distributions.
	PromptTokens Dist `mapstructure:"prompt_tokens" json:"prompt_tokens" yaml:"prompt_tokens"`
	OutputTokens Dist `mapstructure:"output_tokens" json:"output_tokens" yaml:"output_tokens"`
	// SharedPrefixTokens is a prefix common to every prompt of the segment, counted
	// inside prompt_tokens (a prompt of n tokens is the prefix plus n − prefix drawn
	// tokens), so it must be smaller than the smallest prompt_tokens value (the fixed
	// value, the min, or the mean of an unbounded normal/lognormal).
	SharedPrefixTokens int `mapstructure:"shared_prefix_tokens" json:"shared_prefix_tokens,omitempty" yaml:"shared_prefix_tokens,omitempty"`
	// MultiTurn, when set, makes each user a session of several turns.
	MultiTurn *MultiTurn `mapstructure:"multi_turn" json:"multi_turn,omitempty" yaml:"multi_turn,omitempty"`
	// Trace, when set, replays a real trace instead of the distributions above.
	Trace *Trace `mapstructure:"trace" json:"trace,omitempty" yaml:"trace,omitempty"`
}

// MultiTurn describes conversation sessions: history is appended each turn.
type MultiTurn struct {
	// Turns per session (>= 1).
	Turns int `mapstructure:"turns" json:"turns" yaml:"turns"`
	// ThinkTimeS is the pause between a reply and the next turn, in seconds.
	ThinkTimeS Dist `mapstructure:"think_time_s" json:"think_time_s" yaml:"think_time_s"`
}

// Trace formats accepted by Trace.Format.
const (
	TraceMooncake = tracefile.FormatMooncake // JSONL: timestamp (ms), input_length, output_length, hash_ids
	TraceAzure    = tracefile.FormatAzure    // CSV: TIMESTAMP, ContextTokens, GeneratedTokens
)

// Trace replays a recorded request trace.
type Trace struct {
	// Format is the trace's format: mooncake (JSONL) or azure (CSV).
	Format string `mapstructure:"format" json:"format" yaml:"format"`
	// File is the trace file (relative to the plan file).
	File string `mapstructure:"file" json:"file" yaml:"file"`
	// TimeScale multiplies inter-arrival gaps (0.5 = twice as fast; default 1).
	TimeScale float64 `mapstructure:"time_scale" json:"time_scale" yaml:"time_scale"`
	// PromptScale and OutputScale multiply token lengths (default 1).
	PromptScale float64 `mapstructure:"prompt_scale" json:"prompt_scale" yaml:"prompt_scale"`
	OutputScale float64 `mapstructure:"output_scale" json:"output_scale" yaml:"output_scale"`
	// MaxPromptTokens and MaxOutputTokens cap lengths after scaling (0 = no cap).
	MaxPromptTokens int `mapstructure:"max_prompt_tokens" json:"max_prompt_tokens,omitempty" yaml:"max_prompt_tokens,omitempty"`
	MaxOutputTokens int `mapstructure:"max_output_tokens" json:"max_output_tokens,omitempty" yaml:"max_output_tokens,omitempty"`
	// StartRow and Rows select a window of data rows (0-based; Rows 0 = to the end).
	StartRow int `mapstructure:"start_row" json:"start_row" yaml:"start_row"`
	Rows     int `mapstructure:"rows" json:"rows" yaml:"rows"`
}

// Arrival processes accepted by Ladder.Arrival.
const (
	ArrivalPoisson  = "poisson"
	ArrivalGamma    = "gamma"
	ArrivalConstant = "constant"
)

// Think-time distributions accepted by Ladder.ThinkTimeDist.
const (
	// ThinkExponential draws exponential think times (memoryless users, as in the
	// classical closed "terminal" model): coefficient of variation 1.
	ThinkExponential = "exponential"
	// ThinkConstant makes every think time exactly SLA.ThinkTime.
	ThinkConstant = "constant"
)

// Ladder is the sequence of load levels driven for each segment (and the mix).
type Ladder struct {
	// Concurrency levels for a closed loop (exactly N requests in flight).
	Concurrency []int `mapstructure:"concurrency" json:"concurrency,omitempty" yaml:"concurrency,omitempty"`
	// Rate levels in requests/s for an open loop.
	Rate []float64 `mapstructure:"rate" json:"rate,omitempty" yaml:"rate,omitempty"`
	// Users levels for a closed population (ScheduleUsers): N users, each sending a
	// request, waiting for its answer, thinking for a time drawn from ThinkTimeDist
	// around SLA.ThinkTime, and sending the next, so the requests in flight fluctuate
	// as in production. Needs SLA.ThinkTime > 0. Exactly one of Concurrency, Rate and
	// Users is set.
	Users []int `mapstructure:"users" json:"users,omitempty" yaml:"users,omitempty"`
	// ThinkTimeDist is the distribution of a users step's think times, of mean
	// SLA.ThinkTime: ThinkExponential (the default; "" means it too) or ThinkConstant.
	// Multi-turn segments pause between the turns of a session by their own
	// multi_turn.think_time_s instead (this distribution applies between sessions).
	ThinkTimeDist string `mapstructure:"think_time_dist" json:"think_time_dist,omitempty" yaml:"think_time_dist,omitempty"`
	// Arrival is poisson (default), gamma or constant; Burstiness is gamma's shape
	// (1 = Poisson, < 1 burstier).
	Arrival    string  `mapstructure:"arrival" json:"arrival,omitempty" yaml:"arrival,omitempty"`
	Burstiness float64 `mapstructure:"burstiness" json:"burstiness,omitempty" yaml:"burstiness,omitempty"`
	// Search, when set, replaces the fixed levels with an adaptive capacity search.
	Search *Search `mapstructure:"search" json:"search,omitempty" yaml:"search,omitempty"`
	// MaxConcurrency caps in-flight requests of an open loop (0 = no cap).
	MaxConcurrency int `mapstructure:"max_concurrency" json:"max_concurrency,omitempty" yaml:"max_concurrency,omitempty"`

	// Warmup per step: a request count and/or a duration (excluded from statistics).
	// Trace steps warm up by requests only, on at most TraceWarmupFraction of the
	// trace's requests (a duration could swallow a short, time-scaled trace whole).
	// Left out with the whole ladder section (and given by no flag or variable), a
	// DefaultWarmup warm-up per step.
	Warmup Warmup `mapstructure:"warmup" json:"warmup" yaml:"warmup"`
	// Duration and/or Requests bound the measurement window (whichever ends first).
	// With both left out, DefaultStepDuration per step, even when the plan has a ladder
	// section.
	Duration time.Duration `mapstructure:"duration" json:"duration_ns" yaml:"duration"`
	Requests int           `mapstructure:"requests" json:"requests,omitempty" yaml:"requests,omitempty"`
	// Grace lets in-flight requests finish after the window (they are counted).
	Grace time.Duration `mapstructure:"grace" json:"grace_ns" yaml:"grace"`
	// Cooldown is an idle pause between steps.
	Cooldown time.Duration `mapstructure:"cooldown" json:"cooldown_ns" yaml:"cooldown"`
	// StepTimeout bounds each step's wall time (0: derived: the largest of the step's
	// warm-up + window + grace durations plus StepTimeoutMargin, StepTimeoutFactor × its
	// estimated wall time, and StepTimeoutFloor). When it expires the step ends: its requests still in flight are recorded as unfinished
	// (censored; docs/metrics.md "Unfinished requests") and steps.jsonl marks the step
	// cut_by_step_timeout.
	StepTimeout time.Duration `mapstructure:"step_timeout" json:"step_timeout_ns,omitempty" yaml:"step_timeout,omitempty"`

	// PerSegment runs the ladder for each segment alone (default true).
	PerSegment *bool `mapstructure:"per_segment" json:"per_segment,omitempty" yaml:"per_segment,omitempty"`
	// Mix also runs the ladder on the weighted mix of all segments.
	Mix bool `mapstructure:"mix" json:"mix" yaml:"mix"`
	// EarlyStop ends a segment's ladder after Consecutive steps whose SLA metric exceeds
	// its threshold by Factor (e.g. 2 steps at 3× the TTFT p95 target).
	EarlyStop EarlyStop `mapstructure:"early_stop" json:"early_stop" yaml:"early_stop"`
}

// ThinkDist returns the ladder's think-time distribution: ThinkTimeDist, or
// ThinkExponential when it is empty (a plan built in code).
func (l Ladder) ThinkDist() string {
	if l.ThinkTimeDist == "" {
		return ThinkExponential
	}
	return l.ThinkTimeDist
}

// Warmup is the per-step warm-up: Requests completed and/or Duration elapsed. A plan
// file may write it short, as --warmup takes it: a bare whole number is a request
// count (warmup: 10 is {requests: 10}), a duration is the time (warmup: 5s is
// {duration: 5s}), 0 is none.
type Warmup struct {
	Requests int           `mapstructure:"requests" json:"requests,omitempty" yaml:"requests,omitempty"`
	Duration time.Duration `mapstructure:"duration" json:"duration_ns,omitempty" yaml:"duration,omitempty"`
}

// EarlyStop is the rule that ends a segment's ladder once the SLA is clearly broken.
type EarlyStop struct {
	// Enabled turns the rule on (default true); Factor and Consecutive as in Ladder.EarlyStop.
	Enabled     bool    `mapstructure:"enabled" json:"enabled" yaml:"enabled"`
	Factor      float64 `mapstructure:"factor" json:"factor" yaml:"factor"`
	Consecutive int     `mapstructure:"consecutive" json:"consecutive" yaml:"consecutive"`
}

// Percentile is a statistic an SLA constraint applies to: "p50", "p90", "p95", "p99" or "mean".
type Percentile = string

// SLA is the service-level agreement a deployment must meet. Each latency map goes from
// a statistic ("p50", "p90", "p95", "p99", "mean") to a threshold in ms (inclusive ≤).
type SLA struct {
	// TTFTMs, TTFOMs, ITLMs and E2EMs bound time to first token, time to first output
	// token, inter-token latency and end-to-end latency, in ms, by statistic. Left
	// out with the whole sla section, and with no latency bound from a flag or
	// variable (--goodput, sla.goodput), the SLA is TTFT p95 ≤ 500 ms and ITL p95 ≤
	// 50 ms.
	TTFTMs map[Percentile]float64 `mapstructure:"ttft_ms" json:"ttft_ms,omitempty" yaml:"ttft_ms,omitempty"`
	TTFOMs map[Percentile]float64 `mapstructure:"ttfo_ms" json:"ttfo_ms,omitempty" yaml:"ttfo_ms,omitempty"`
	ITLMs  map[Percentile]float64 `mapstructure:"itl_ms" json:"itl_ms,omitempty" yaml:"itl_ms,omitempty"`
	E2EMs  map[Percentile]float64 `mapstructure:"e2e_ms" json:"e2e_ms,omitempty" yaml:"e2e_ms,omitempty"`
	// Goodput is AIPerf's --goodput syntax, space-separated metric:value pairs in ms
	// ("time_to_first_token:500 inter_token_latency:50"; metrics: GoodputMetrics).
	// Load turns each pair into the metric's p95 bound (GoodputStat) and clears it, so
	// a resolved plan holds "" here.
	Goodput string `mapstructure:"goodput" json:"goodput,omitempty" yaml:"goodput,omitempty"`
	// MaxErrorRate is the largest acceptable failed fraction (0..1; default 0.01).
	MaxErrorRate float64 `mapstructure:"max_error_rate" json:"max_error_rate" yaml:"max_error_rate"`
	// ThinkTime is the user's mean pause between requests, Z. A users ladder
	// (Ladder.Users) makes its users think this long on average (see
	// Ladder.ThinkTimeDist); for a concurrency or rate ladder the analysis converts the
	// capacity to users with it, an estimate: N_users = X · (R + Z).
	ThinkTime time.Duration `mapstructure:"think_time" json:"think_time_ns" yaml:"think_time"`
}

// Constraint is one SLA bound: Metric ("ttft", "ttfo", "itl", "e2e") at Stat ("p95") ≤ ThresholdMs.
type Constraint struct {
	Metric      string  `json:"metric"`
	Stat        string  `json:"stat"`
	ThresholdMs float64 `json:"threshold_ms"`
}

// Capture configures optional NVIDIA Nsight Systems captures during the sweep.
type Capture struct {
	// Enabled turns the captures on.
	Enabled bool `mapstructure:"enabled" json:"enabled" yaml:"enabled"`
	// Mode is "launch" (llmcap starts target.launch under nsys profile) or "session"
	// (the server runs under `nsys launch`; llmcap calls nsys start/stop).
	Mode string `mapstructure:"mode" json:"mode,omitempty" yaml:"mode,omitempty"`
	// Steps to capture: explicit segment+load, and/or Knee (the first step past the
	// capacity point found so far).
	Steps []CaptureStep `mapstructure:"steps" json:"steps,omitempty" yaml:"steps,omitempty"`
	Knee  bool          `mapstructure:"knee" json:"knee,omitempty" yaml:"knee,omitempty"`
	// Trace is nsys's --trace set (default "cuda,nvtx,osrt,cublas").
	Trace string `mapstructure:"trace" json:"trace,omitempty" yaml:"trace,omitempty"`
	// Duration and Delay bound the capture within the step's measurement window.
	Duration time.Duration `mapstructure:"duration" json:"duration_ns,omitempty" yaml:"duration,omitempty"`
	Delay    time.Duration `mapstructure:"delay" json:"delay_ns,omitempty" yaml:"delay,omitempty"`
	// ExtraArgs are appended to the nsys command line.
	ExtraArgs []string `mapstructure:"extra_args" json:"extra_args,omitempty" yaml:"extra_args,omitempty"`
	// NsysPath is the nsys binary (default: found on PATH).
	NsysPath string `mapstructure:"nsys_path" json:"nsys_path,omitempty" yaml:"nsys_path,omitempty"`
	// SessionName is the nsys session for "session" mode.
	SessionName string `mapstructure:"session_name" json:"session_name,omitempty" yaml:"session_name,omitempty"`
}

// CaptureStep names one step to capture: a segment (or "mix") at a load level.
type CaptureStep struct {
	// Segment is a segment name or "mix"; Concurrency or Rate its step's load level.
	Segment     string  `mapstructure:"segment" json:"segment" yaml:"segment"`
	Concurrency int     `mapstructure:"concurrency" json:"concurrency,omitempty" yaml:"concurrency,omitempty"`
	Rate        float64 `mapstructure:"rate" json:"rate,omitempty" yaml:"rate,omitempty"`
}

// Report configures the report stage.
type Report struct {
	// Formats are any of pdf, html, xlsx, charts, json, md, csv (default all), each
	// written into the run directory: pdf report.pdf, html report.html, xlsx
	// report.xlsx and records.csv (every request's row), charts charts/, json
	// report.json, md summary.md, csv steps.csv (one row per step) and, without xlsx,
	// records.csv.
	Formats []string `mapstructure:"formats" json:"formats" yaml:"formats"`
	// Title heads the report (default: "Capacity report: " and the plan's name).
	Title string `mapstructure:"title" json:"title,omitempty" yaml:"title,omitempty"`
	// Notes is free text for the audience, shown on the PDF's first page.
	Notes string `mapstructure:"notes" json:"notes,omitempty" yaml:"notes,omitempty"`
	// GPUHourUSD is the price of one GPU-hour for cost projections.
	GPUHourUSD float64 `mapstructure:"gpu_hour_usd" json:"gpu_hour_usd,omitempty" yaml:"gpu_hour_usd,omitempty"`
	// PowerUSDPerKWh is the price of electricity (USD per kWh) for the measured GPU's
	// what-if rows: with GPU telemetry (DCGM) scraped, they add the GPUs' energy cost
	// per month and per million output tokens (0: no energy cost).
	PowerUSDPerKWh float64 `mapstructure:"power_usd_per_kwh" json:"power_usd_per_kwh,omitempty" yaml:"power_usd_per_kwh,omitempty"`
	// TargetUsers are the user counts to size replicas and GPUs for.
	TargetUsers []int `mapstructure:"target_users" json:"target_users,omitempty" yaml:"target_users,omitempty"`
	// Headroom is the spare capacity fraction kept per replica (default 0.2).
	Headroom float64 `mapstructure:"headroom" json:"headroom" yaml:"headroom"`
	// GPUsPerReplica for cost and GPU counts (default: simulator tensor_parallel, else 1).
	GPUsPerReplica int `mapstructure:"gpus_per_replica" json:"gpus_per_replica,omitempty" yaml:"gpus_per_replica,omitempty"`
	// GPU names the deployment's GPU type for the answer sentence (default: simulator GPU).
	GPU string `mapstructure:"gpu" json:"gpu,omitempty" yaml:"gpu,omitempty"`
	// WhatIfGPUs are catalog GPUs to project capacity to by roofline scaling.
	WhatIfGPUs []string `mapstructure:"what_if_gpus" json:"what_if_gpus,omitempty" yaml:"what_if_gpus,omitempty"`
	// XLSXMaxRows is the most request rows the workbook (report.xlsx) holds (0: the
	// default, DefaultXLSXMaxRows; at most MaxXLSXRows). A run with more requests keeps
	// every k-th request of each step there and says so; records.csv has every row.
	// Each step keeps at least its first request, so a limit below the number of
	// steps is exceeded. llmcap report reads it from the run's run.json; its
	// --xlsx-max-rows flag overrides it.
	XLSXMaxRows int `mapstructure:"xlsx_max_rows" json:"xlsx_max_rows,omitempty" yaml:"xlsx_max_rows,omitempty"`
}

// DefaultXLSXMaxRows is Report.XLSXMaxRows's default: a workbook of this many request
// rows opens in a few seconds in Excel or LibreOffice.
const DefaultXLSXMaxRows = 100_000

// MaxXLSXRows is Report.XLSXMaxRows's largest value: Excel's 1,048,576 rows per sheet
// less the Requests sheet's note and header rows.
const MaxXLSXRows = 1_048_576 - 2

// Schedules of a step.
const (
	ScheduleConcurrency = "concurrency"
	ScheduleRate        = "rate"
	ScheduleTrace       = "trace"
	// ScheduleUsers is a closed population of Step.Users users with think time
	// (Ladder.Users).
	ScheduleUsers = "users"
)

// MixSegment is the Step.Segment name of a step that drives the weighted mix.
const MixSegment = "mix"

// Step is one load level of one segment (or the mix): the unit the sweep drives.
type Step struct {
	// Index is the step's position in the run (0-based, stable across --resume).
	Index int `json:"index"`
	// Segment is a segment name or "mix".
	Segment string `json:"segment"`
	// Schedule is concurrency, rate, users or trace.
	Schedule    string  `json:"schedule"`
	Concurrency int     `json:"concurrency,omitempty"`
	Rate        float64 `json:"rate,omitempty"`
	// Users is a users step's population (ScheduleUsers).
	Users int `json:"users,omitempty"`
	// Warmup, Duration, Requests, Grace and Cooldown as in Ladder.
	Warmup   Warmup        `json:"warmup"`
	Duration time.Duration `json:"duration_ns"`
	Requests int           `json:"requests,omitempty"`
	Grace    time.Duration `json:"grace_ns"`
	Cooldown time.Duration `json:"cooldown_ns"`
	// Estimated is the step's estimated wall time (warm-up + window + grace + cool-down).
	Estimated time.Duration `json:"estimated_ns"`
	// Timeout is the step's wall-time bound (Plan.StepTimeout); 0 in steps written
	// before it existed (the sweep derives it then).
	Timeout time.Duration `json:"timeout_ns,omitempty"`
}

// Load returns the step's load level: concurrency, users, or rate in req/s.
func (s Step) Load() float64 {
	switch s.Schedule {
	case ScheduleConcurrency:
		return float64(s.Concurrency)
	case ScheduleUsers:
		return float64(s.Users)
	}
	return s.Rate
}

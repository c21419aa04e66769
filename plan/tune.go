package plan

import (
	"fmt"
	"time"
)

// Tune configures `llmcap tune`: a search over the server's own parameters (vLLM's
// max_num_seqs, max_num_batched_tokens, gpu_memory_utilization; Ollama's
// OLLAMA_NUM_PARALLEL) for the settings that serve the most users within the SLA. Each
// trial launches the server with one setting, runs a capacity search of the plan's
// workload (segments, ladder.search, sla) against it and stops it (docs/tune.md).
type Tune struct {
	// Launch is the server command each trial starts, with placeholders.
	Launch TuneLaunch `mapstructure:"launch" json:"launch" yaml:"launch"`
	// Space lists the parameters searched (at least one).
	Space []TuneParam `mapstructure:"space" json:"space" yaml:"space"`
	// Constraints are conditions every trial's parameters must meet, each "A op B" with
	// A and B a parameter name or a number and op one of >=, <=, >, <, ==, != (e.g.
	// "max_num_batched_tokens >= max_num_seqs"). Settings that break one are never
	// launched.
	Constraints []string `mapstructure:"constraints" json:"constraints,omitempty" yaml:"constraints,omitempty"`
	// Objectives are what a trial is judged on, the first the main one (default: users
	// within the SLA, maximised, and the p95 TTFT at the largest passing load, minimised).
	Objectives []TuneObjective `mapstructure:"objectives" json:"objectives" yaml:"objectives"`
	// Algorithm is nsga2 (the default: NSGA-II, a multi-objective evolutionary search),
	// grid (every setting of the space, in order) or random (budget.trials random
	// settings).
	Algorithm string `mapstructure:"algorithm" json:"algorithm" yaml:"algorithm"`
	// Population is NSGA-II's population: the settings measured in the first generation
	// and the parents kept after each (default 8).
	Population int `mapstructure:"population" json:"population" yaml:"population"`
	// Offspring is NSGA-II's children per generation after the first (pymoo's
	// n_offsprings; default 0: the population). Fewer than the population makes the
	// search steadier: each child competes at once with every parent kept, which on a
	// small budget reaches good settings in fewer trials (docs/tune.md). The trials in
	// all: population + offspring × (generations − 1).
	Offspring int `mapstructure:"offspring" json:"offspring,omitempty" yaml:"offspring,omitempty"`
	// Generations is NSGA-II's number of generations, the first the random initial
	// population (default 4).
	Generations int `mapstructure:"generations" json:"generations" yaml:"generations"`
	// Seed makes the search reproducible (default: the plan's seed).
	Seed int64 `mapstructure:"seed" json:"seed" yaml:"seed"`
	// Budget bounds the search.
	Budget TuneBudget `mapstructure:"budget" json:"budget" yaml:"budget"`
	// Baseline is the starting configuration, a value for every parameter of the space;
	// it is measured first (trial 0), and the recommendation says how much more capacity
	// it gives than this one. Left out, there is no baseline trial.
	Baseline map[string]any `mapstructure:"baseline" json:"baseline,omitempty" yaml:"baseline,omitempty"`
	// TargetLoad is the load (users, or concurrency, as the ladder) at which the
	// ttft_p95_at_target_ms objective is measured: one extra fixed step per trial after
	// its capacity search (0: no such step; required by that objective).
	TargetLoad int `mapstructure:"target_load" json:"target_load,omitempty" yaml:"target_load,omitempty"`
}

// TuneLaunch is the server command template of a tune trial. Every string of Command,
// Env and URL may hold placeholders: {port} (a free TCP port on 127.0.0.1 picked for the
// trial), {llmcap} (this llmcap executable, for `{llmcap} serve-sim`) and {NAME} for
// each parameter of the space (an int as an integer, a float as its shortest decimal, a
// categorical as its value). "{{" is a literal "{".
type TuneLaunch struct {
	// Command is the server's argv, e.g. ["vllm", "serve", "M", "--port", "{port}",
	// "--max-num-seqs", "{max_num_seqs}"].
	Command []string `mapstructure:"command" json:"command" yaml:"command"`
	// Env are extra KEY=VALUE environment entries, e.g. "OLLAMA_NUM_PARALLEL={num_parallel}".
	Env []string `mapstructure:"env" json:"env,omitempty" yaml:"env,omitempty"`
	// URL is the trial's target base URL (default "http://127.0.0.1:{port}/v1").
	URL string `mapstructure:"url" json:"url" yaml:"url"`
	// ReadyTimeout bounds the wait for GET {url}/models to answer 200 (default 5m); a
	// server not ready by then is a failed trial.
	ReadyTimeout time.Duration `mapstructure:"ready_timeout" json:"ready_timeout_ns" yaml:"ready_timeout"`
	// StopGrace is how long a trial's server has after SIGTERM before SIGKILL (default
	// 10s).
	StopGrace time.Duration `mapstructure:"stop_grace" json:"stop_grace_ns" yaml:"stop_grace"`
}

// TuneParam is one parameter of the tune space.
type TuneParam struct {
	// Name names the parameter; {Name} in the launch template is its value. Letters,
	// digits and '_'.
	Name string `mapstructure:"name" json:"name" yaml:"name"`
	// Type is int, float or categorical.
	Type string `mapstructure:"type" json:"type" yaml:"type"`
	// Min and Max bound an int or float parameter (inclusive).
	Min float64 `mapstructure:"min" json:"min,omitempty" yaml:"min,omitempty"`
	Max float64 `mapstructure:"max" json:"max,omitempty" yaml:"max,omitempty"`
	// Step is the grid of an int (default 1) or float (required for the grid algorithm)
	// parameter: values Min, Min+Step, … up to Max.
	Step float64 `mapstructure:"step" json:"step,omitempty" yaml:"step,omitempty"`
	// Log searches an int or float parameter in log space (Min > 0), for ranges over
	// orders of magnitude such as max_num_batched_tokens.
	Log bool `mapstructure:"log" json:"log,omitempty" yaml:"log,omitempty"`
	// Values are a categorical parameter's choices, or an int or float parameter's only
	// allowed values (instead of Min, Max and Step).
	Values []any `mapstructure:"values" json:"values,omitempty" yaml:"values,omitempty"`
}

// Tune parameter types (TuneParam.Type).
const (
	TuneInt         = "int"
	TuneFloat       = "float"
	TuneCategorical = "categorical"
)

// TuneParamTypes are the accepted TuneParam.Type values.
var TuneParamTypes = []string{TuneInt, TuneFloat, TuneCategorical}

// TuneObjective is one objective of the tune search.
type TuneObjective struct {
	// Metric is the trial's figure judged: users (users within the SLA, a users ladder),
	// concurrency (concurrency within the SLA), cost_per_user ($ a month per user at
	// capacity, from the catalog's GPU price), peak_rss_mib (the server's process tree),
	// gpu_memory_mib (nvidia-smi's used memory of the server's processes) or
	// ttft_p95_at_target_ms (p95 TTFT at tune.target_load).
	Metric string `mapstructure:"metric" json:"metric" yaml:"metric"`
	// Direction is maximize or minimize (default: maximize for users and concurrency,
	// minimize for the others).
	Direction string `mapstructure:"direction" json:"direction" yaml:"direction"`
}

// Tune objective metrics (TuneObjective.Metric).
const (
	TuneUsers            = "users"
	TuneConcurrency      = "concurrency"
	TuneCostPerUser      = "cost_per_user"
	TunePeakRSSMiB       = "peak_rss_mib"
	TuneGPUMemoryMiB     = "gpu_memory_mib"
	TuneTTFTAtTargetMs   = "ttft_p95_at_target_ms"
	TuneMaximize         = "maximize"
	TuneMinimize         = "minimize"
	TuneNSGA2            = "nsga2"
	TuneGrid             = "grid"
	TuneRandom           = "random"
	DefaultTunePop       = 8
	DefaultTuneGens      = 4
	DefaultTuneStopGrace = 10 * time.Second
)

// TuneMetrics are the accepted TuneObjective.Metric values.
var TuneMetrics = []string{TuneUsers, TuneConcurrency, TuneCostPerUser, TunePeakRSSMiB, TuneGPUMemoryMiB, TuneTTFTAtTargetMs}

// TuneDirections are the accepted TuneObjective.Direction values.
var TuneDirections = []string{TuneMaximize, TuneMinimize}

// TuneAlgorithms are the accepted Tune.Algorithm values.
var TuneAlgorithms = []string{TuneNSGA2, TuneGrid, TuneRandom}

// TuneBudget bounds a tune search: it stops at whichever comes first.
type TuneBudget struct {
	// Trials is the most trials measured, the baseline included (0: the algorithm's own
	// count — population + offspring × (generations − 1) for nsga2, the whole grid for
	// grid; required for random).
	Trials int `mapstructure:"trials" json:"trials,omitempty" yaml:"trials,omitempty"`
	// WallTime is the most wall time the search may take; no trial starts after it (0:
	// no bound).
	WallTime time.Duration `mapstructure:"wall_time" json:"wall_time_ns,omitempty" yaml:"wall_time,omitempty"`
}

// Maximizes reports whether the objective is maximised (its Direction, else the
// metric's default).
func (o TuneObjective) Maximizes() bool {
	if o.Direction != "" {
		return o.Direction == TuneMaximize
	}
	return o.Metric == TuneUsers || o.Metric == TuneConcurrency
}

// NSGA2Size is NSGA-II's trial count and its shape in words: "3 generations of 4
// settings", or with fewer (or more) offspring than the population "4 settings, then
// 24 generations of 1 (28 in all)". Trials: population + offspring × (generations − 1).
func (t *Tune) NSGA2Size() string {
	off := t.Offspring
	if off == 0 {
		off = t.Population
	}
	if t.Generations <= 1 {
		return fmt.Sprintf("1 generation of %d settings", t.Population)
	}
	if off == t.Population {
		return fmt.Sprintf("%d generations of %d settings", t.Generations, t.Population)
	}
	return fmt.Sprintf("%d settings, then %d generations of %d (%d in all)", t.Population, t.Generations-1,
		off, t.Population+off*(t.Generations-1))
}

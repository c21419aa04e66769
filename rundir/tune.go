package rundir

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/llmcap/llmcap/plan"
)

// File names inside a tune directory (`llmcap tune`): its own files, and one run
// directory per trial under DirTrials.
const (
	FileTune       = "tune.json"        // TuneMeta
	FileTrials     = "trials.jsonl"     // one Trial per finished trial, appended
	FileTuneResult = "tune-result.json" // TuneResult, rewritten after every trial
	FileTuneServer = "tune-server.json" // TuneServer while a trial's server runs
	DirTrials      = "trials"           // trials/0007: trial 7's run directory
)

// TrialDir is trial n's run directory inside the tune directory dir.
func TrialDir(dir string, n int) string {
	return filepath.Join(dir, DirTrials, fmt.Sprintf("%04d", n))
}

// TuneMeta is tune.json: what the tune was started with.
type TuneMeta struct {
	ToolVersion string     `json:"tool_version"`
	ToolCommit  ToolCommit `json:"tool_commit,omitzero"`
	Host        string     `json:"host"`
	StartedAt   time.Time  `json:"started_at"`
	// PlanFile is the plan file's absolute path (a resume reads it again when the plan
	// copy below had secrets masked).
	PlanFile string `json:"plan_file,omitempty"`
	// Plan is the resolved plan, secrets redacted.
	Plan plan.Plan `json:"plan"`
	// RedactedFields are the fields of Plan whose secrets are masked.
	RedactedFields []string `json:"redacted_fields,omitempty"`
}

// Trial statuses (Trial.Status).
const (
	TrialOK     = "ok"     // the server started and the capacity search finished
	TrialFailed = "failed" // the server did not start, crashed, or the search failed
)

// Trial failure classes (Trial.FailClass).
const (
	TrialFailLaunch   = "launch"    // the command could not start
	TrialFailNotReady = "not_ready" // GET /models did not answer 200 within ready_timeout
	TrialFailExited   = "exited"    // the server exited before it was ready, or during the trial
	TrialFailSweep    = "sweep"     // the capacity search stopped with an error
	TrialFailAnalysis = "analysis"  // the trial's run directory could not be analysed
)

// GPU memory sources (Trial.GPUMemorySource).
const (
	GPUMemoryNvidiaSMI = "nvidia-smi" // nvidia-smi --query-compute-apps, the server's processes
	GPUMemoryDCGM      = "dcgm"       // the DCGM exporter's DCGM_FI_DEV_FB_USED, the whole GPU
)

// Trial is one line of trials.jsonl: one server configuration, launched, measured and
// stopped.
type Trial struct {
	// Trial numbers the trials in the order they were run (0 first); its run directory
	// is TrialDir(dir, Trial).
	Trial int `json:"trial"`
	// Generation is the search's generation (NSGA-II; 0 for grid, random and the
	// baseline).
	Generation int `json:"generation"`
	// Baseline marks the starting configuration (tune.baseline).
	Baseline bool `json:"baseline,omitempty"`
	// Params are the parameters, by name: int64 for int, float64 for float, the value
	// as given for categorical (JSON numbers decode as float64).
	Params map[string]any `json:"params"`
	// Point is the search's coordinates of Params (a categorical's index), for a resume
	// to check that it replays the same trials.
	Point []float64 `json:"point"`
	// Command and Env are the launched argv and extra environment, secrets masked.
	Command []string `json:"command"`
	Env     []string `json:"env,omitempty"`
	Status  string   `json:"status"`
	// FailClass and FailReason say why a failed trial failed; ServerLogTail is the last
	// lines of its server.log.
	FailClass     string `json:"fail_class,omitempty"`
	FailReason    string `json:"fail_reason,omitempty"`
	ServerLogTail string `json:"server_log_tail,omitempty"`
	// Objectives are the objectives' values, by metric name (plan.TuneMetrics); a
	// failed trial has none.
	Objectives map[string]float64 `json:"objectives,omitempty"`
	// Capacity is the capacity search's answer: users (or concurrency) within the SLA,
	// how it was found (analysis.CapacityMethod) and its range.
	Capacity       float64 `json:"capacity"`
	CapacityMethod string  `json:"capacity_method,omitempty"`
	RangeLow       float64 `json:"range_low,omitempty"`
	RangeHigh      float64 `json:"range_high,omitempty"`
	Bottleneck     string  `json:"bottleneck,omitempty"`
	// Abandoned: the search's lowest loads already broke the SLA, so it stopped there
	// (capacity below the first step): the configuration is dominated.
	Abandoned bool `json:"abandoned,omitempty"`
	// SearchSteps is the steps the capacity search measured; SearchStop why it ended
	// (capsearch.StopReason: adjacent, tolerance, max_steps, max_load, below_min; "" for
	// a fixed ladder).
	SearchSteps int    `json:"search_steps"`
	SearchStop  string `json:"search_stop,omitempty"`
	// ColdStartS is seconds from launching the server to its first 200 on GET /models.
	ColdStartS float64 `json:"cold_start_s"`
	// PeakRSSMiB is the largest resident memory of the server's process group (every
	// process in it, summed), sampled every 250 ms from /proc, in MiB; 0 off Linux.
	PeakRSSMiB float64 `json:"peak_rss_mib"`
	// GPUMemoryMiB is the largest GPU memory in use, in MiB, from GPUMemorySource ("":
	// none found, and GPUMemoryMiB is 0).
	GPUMemoryMiB    float64 `json:"gpu_memory_mib,omitempty"`
	GPUMemorySource string  `json:"gpu_memory_source,omitempty"`
	// TTFTp95AtTargetMs is the p95 TTFT of the extra step at tune.target_load (0: none).
	TTFTp95AtTargetMs float64 `json:"ttft_p95_at_target_ms,omitempty"`
	// CostPerUserMonth is $ a month per user at capacity (0: no price or no capacity).
	CostPerUserMonth float64   `json:"cost_per_user_month,omitempty"`
	StartedAt        time.Time `json:"started_at"`
	WallS            float64   `json:"wall_s"`
}

// OK reports whether the trial measured its configuration.
func (t *Trial) OK() bool { return t.Status == TrialOK }

// TuneResult is tune-result.json: the search's outcome over the trials so far, built
// by the tune package after each trial (the report reads it; the words live there).
type TuneResult struct {
	// Objectives are the plan's objectives, in order.
	Objectives []plan.TuneObjective `json:"objectives"`
	// Trials counts the trials run, OK those that measured their configuration.
	Trials int `json:"trials"`
	OK     int `json:"ok"`
	// Front lists the trials on the Pareto front (not dominated on the objectives by
	// any other OK trial), by Trial number, best main objective first.
	Front []int `json:"front"`
	// Recommended is the recommended trial (-1: none OK): the most capacity, ties
	// broken by the other objectives in order.
	Recommended int `json:"recommended"`
	// Baseline is the baseline trial (-1: none, or it failed).
	Baseline int `json:"baseline"`
	// GainOverBaseline is Recommended's capacity ÷ Baseline's − 1 (0 without both).
	GainOverBaseline float64 `json:"gain_over_baseline,omitempty"`
	// Answer is the recommendation in one sentence; Command its exact launch command.
	Answer  string   `json:"answer"`
	Command []string `json:"command,omitempty"`
	Env     []string `json:"env,omitempty"`
	// Stop says why the search ended: budget_trials, budget_wall_time, done (the
	// algorithm's own count), interrupted, or running.
	Stop string `json:"stop"`
	// Notes are caveats, one sentence each (a capacity interpolated, failed trials…).
	Notes []string `json:"notes,omitempty"`
}

// TuneServer is tune-server.json, present while a trial's server runs: enough for a
// resume after a crash (kill -9) to stop a server the dead tune left behind.
type TuneServer struct {
	Trial int `json:"trial"`
	// PID leads the server's process group.
	PID int `json:"pid"`
	// StartTicks is the process's start time (field 22 of /proc/PID/stat, clock ticks
	// since boot), so a resume never signals a later process that reused the PID.
	StartTicks uint64 `json:"start_ticks"`
}

// WriteTuneMeta writes tune.json atomically.
func WriteTuneMeta(dir string, m *TuneMeta) error {
	return writeJSONFile(filepath.Join(dir, FileTune), m)
}

// ReadTuneMeta reads tune.json. Errors: missing (not a tune directory) or corrupt.
func ReadTuneMeta(dir string) (*TuneMeta, error) {
	var m TuneMeta
	if err := readJSON(filepath.Join(dir, FileTune), &m); err != nil {
		return nil, fmt.Errorf("read tune directory %s: %w", dir, err)
	}
	return &m, nil
}

// AppendTrial appends t to trials.jsonl as one line and fsyncs it, so a finished trial
// survives a crash right after.
func AppendTrial(dir string, t *Trial) error {
	b, err := json.Marshal(t)
	if err != nil {
		return fmt.Errorf("encode trial %d: %w", t.Trial, err)
	}
	path := filepath.Join(dir, FileTrials)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	if _, err = f.Write(append(b, '\n')); err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("append trial %d to %s: %w", t.Trial, path, err)
	}
	return nil
}

// ReadTrials reads trials.jsonl under the Damage rule (a torn last line, from a crash
// mid-append, is dropped). A missing file is no trials.
func ReadTrials(dir string) ([]Trial, Damage, error) {
	var out []Trial
	dmg, err := eachLine(filepath.Join(dir, FileTrials), func(line []byte) error {
		var t Trial
		if err := json.Unmarshal(line, &t); err != nil {
			return err
		}
		out = append(out, t)
		return nil
	})
	return out, dmg, err
}

// WriteTuneResult writes tune-result.json atomically.
func WriteTuneResult(dir string, r *TuneResult) error {
	return writeJSONFile(filepath.Join(dir, FileTuneResult), r)
}

// ReadTuneResult reads tune-result.json.
func ReadTuneResult(dir string) (*TuneResult, error) {
	var r TuneResult
	if err := readJSON(filepath.Join(dir, FileTuneResult), &r); err != nil {
		return nil, fmt.Errorf("read tune result in %s: %w", dir, err)
	}
	return &r, nil
}

// WriteTuneServer records the running trial's server (atomically).
func WriteTuneServer(dir string, s *TuneServer) error {
	return writeJSONFile(filepath.Join(dir, FileTuneServer), s)
}

// ReadTuneServer reads tune-server.json; ok is false when there is none.
func ReadTuneServer(dir string) (s TuneServer, ok bool, err error) {
	err = readJSON(filepath.Join(dir, FileTuneServer), &s)
	if errors.Is(err, fs.ErrNotExist) {
		return s, false, nil
	}
	return s, err == nil, err
}

// RemoveTuneServer removes tune-server.json (the server is stopped).
func RemoveTuneServer(dir string) error {
	err := os.Remove(filepath.Join(dir, FileTuneServer))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// writeJSONFile writes v as indented JSON to path atomically.
func writeJSONFile(path string, v any) error {
	return WriteAtomic(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	})
}

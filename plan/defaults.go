package plan

import (
	"time"
)

// Allowed values of enumerated fields (used by validation and its messages).
var (
	// APIs are the accepted Target.API values.
	APIs = []string{"chat", "completions"}
	// DistKinds are the accepted Dist.Kind values.
	DistKinds = []string{DistFixed, DistUniform, DistNormal, DistLognormal, DistEmpirical}
	// TraceFormats are the accepted Trace.Format values.
	TraceFormats = []string{TraceMooncake, TraceAzure}
	// Arrivals are the accepted Ladder.Arrival values.
	Arrivals = []string{ArrivalPoisson, ArrivalGamma, ArrivalConstant}
	// ThinkTimeDists are the accepted Ladder.ThinkTimeDist values.
	ThinkTimeDists = []string{ThinkExponential, ThinkConstant}
	// Stats are the accepted SLA statistics, in report order.
	Stats = []string{"p50", "p90", "p95", "p99", "mean"}
	// SLAMetrics are the SLA metrics, in report order ("ttft" is the sla.ttft_ms map).
	SLAMetrics = []string{"ttft", "ttfo", "itl", "e2e"}
	// ReportFormats are the accepted Report.Formats values (mirrors report.Formats).
	ReportFormats = []string{"pdf", "html", "xlsx", "charts", "json", "md", "csv"}
	// CaptureModes are the accepted Capture.Mode values.
	CaptureModes = []string{"launch", "session"}
)

// Default values of the plan, by dotted YAML key. Load registers them with viper (so an
// explicit value in the file, env or flags wins, and an explicit 0 stays 0 and fails
// validation); Default decodes the same table.
func defaultValues() map[string]any {
	return map[string]any{
		"target.url":                              TargetSimulator,
		"target.api":                              "chat",
		"target.metrics_interval":                 "1s",
		"target.first_byte_timeout":               DefaultFirstByteTimeout.String(),
		"target.idle_timeout":                     DefaultIdleTimeout.String(),
		"target.session_header":                   DefaultSessionHeader,
		"target.simulator.gpu":                    "H100-SXM",
		"target.simulator.model":                  "llama-3.1-8b",
		"target.simulator.tensor_parallel":        1,
		"target.simulator.max_num_seqs":           256,
		"target.simulator.max_num_batched_tokens": 8192,
		"target.simulator.gpu_memory_utilization": 0.9,
		"target.simulator.block_size":             16,
		"target.simulator.compute_efficiency":     0.6,
		"target.simulator.bandwidth_efficiency":   0.8,
		"target.simulator.overhead_ms":            2.0,
		"target.simulator.speed_up":               1.0,
		"ladder.grace":                            DefaultGrace.String(),
		"ladder.arrival":                          ArrivalPoisson,
		"ladder.burstiness":                       1.0,
		"ladder.think_time_dist":                  ThinkExponential,
		"ladder.per_segment":                      true,
		"ladder.early_stop.enabled":               true,
		"ladder.early_stop.factor":                2.0,
		"ladder.early_stop.consecutive":           2,
		"sla.max_error_rate":                      0.01,
		"capture.trace":                           "cuda,nvtx,osrt,cublas",
		"report.headroom":                         0.2,
		"report.formats":                          append([]string(nil), ReportFormats...),
	}
}

// Defaults applied after decoding to fields inside lists and optional sections, which
// viper's defaults cannot reach.
const (
	// DefaultReadyTimeout is Launch.ReadyTimeout's default.
	DefaultReadyTimeout = 5 * time.Minute
	// DefaultFirstByteTimeout is Target.FirstByteTimeout's default: generous, since
	// Ollama and llama.cpp may hold the response headers until the first token (after
	// loading the model), yet finite, so a server that never answers fails as
	// timeout_first_byte.
	DefaultFirstByteTimeout = 10 * time.Minute
	// DefaultIdleTimeout is Target.IdleTimeout's default: vLLM and SGLang send the
	// headers at once and then nothing until the first token, so the idle wait covers
	// the queueing and prefill (41.7 s mean TTFT at 50 users in the seed data); a stream
	// silent for 5 minutes is hung and fails as timeout_idle.
	DefaultIdleTimeout = 5 * time.Minute
	// DefaultGrace is Ladder.Grace's default: 30 s, AIPerf's default
	// --benchmark-grace-period. The grace period ends as soon as the last request in
	// flight at the window's close finishes, so a long one costs only the E2E of the
	// slowest of them (seconds for chat replies); with none, every step cuts off the
	// requests in flight as its window closes, and a short first run (a few requests
	// per step at low concurrency) warns about unfinished requests on every step. A
	// request still running 30 s after the window is counted unfinished (a lower bound).
	DefaultGrace = 30 * time.Second
	// DefaultName is the plan name when neither the file nor its name gives one.
	DefaultName = "llmcap"
)

// Default returns a plan holding only the defaults (no segments, no ladder): the
// starting point for plans built in code.
func Default() *Plan {
	p := &Plan{Name: DefaultName}
	for k, v := range defaultValues() {
		setDefault(p, k, v)
	}
	return p
}

// setDefault assigns one defaults-table entry to p (kept in step with defaultValues).
func setDefault(p *Plan, key string, v any) {
	s := &p.Target.Simulator
	f := func() float64 { return v.(float64) }
	i := func() int { return v.(int) }
	switch key {
	case "target.url":
		p.Target.URL = v.(string)
	case "target.api":
		p.Target.API = v.(string)
	case "target.metrics_interval":
		p.Target.MetricsInterval, _ = time.ParseDuration(v.(string))
	case "target.first_byte_timeout":
		p.Target.FirstByteTimeout, _ = time.ParseDuration(v.(string))
	case "target.idle_timeout":
		p.Target.IdleTimeout, _ = time.ParseDuration(v.(string))
	case "target.session_header":
		p.Target.SessionHeader = v.(string)
	case "ladder.grace":
		p.Ladder.Grace, _ = time.ParseDuration(v.(string))
	case "target.simulator.gpu":
		s.GPU = v.(string)
	case "target.simulator.model":
		s.Model = v.(string)
	case "target.simulator.tensor_parallel":
		s.TensorParallel = i()
	case "target.simulator.max_num_seqs":
		s.MaxNumSeqs = i()
	case "target.simulator.max_num_batched_tokens":
		s.MaxNumBatchedTokens = i()
	case "target.simulator.gpu_memory_utilization":
		s.GPUMemoryUtilization = f()
	case "target.simulator.block_size":
		s.BlockSize = i()
	case "target.simulator.compute_efficiency":
		s.ComputeEfficiency = f()
	case "target.simulator.bandwidth_efficiency":
		s.BandwidthEfficiency = f()
	case "target.simulator.overhead_ms":
		s.OverheadMs = f()
	case "target.simulator.speed_up":
		s.SpeedUp = f()
	case "ladder.arrival":
		p.Ladder.Arrival = v.(string)
	case "ladder.burstiness":
		p.Ladder.Burstiness = f()
	case "ladder.think_time_dist":
		p.Ladder.ThinkTimeDist = v.(string)
	case "ladder.per_segment":
		b := v.(bool)
		p.Ladder.PerSegment = &b
	case "ladder.early_stop.enabled":
		p.Ladder.EarlyStop.Enabled = v.(bool)
	case "ladder.early_stop.factor":
		p.Ladder.EarlyStop.Factor = f()
	case "ladder.early_stop.consecutive":
		p.Ladder.EarlyStop.Consecutive = i()
	case "sla.max_error_rate":
		p.SLA.MaxErrorRate = f()
	case "capture.trace":
		p.Capture.Trace = v.(string)
	case "report.headroom":
		p.Report.Headroom = f()
	case "report.formats":
		p.Report.Formats = v.([]string)
	}
}

// fillDerived sets defaults that depend on other fields or live inside lists and
// optional sections: trace scales 1, launch ready timeout, target model, capture mode.
func (p *Plan) fillDerived() {
	for i := range p.Segments {
		if t := p.Segments[i].Trace; t != nil {
			if t.TimeScale == 0 {
				t.TimeScale = 1
			}
			if t.PromptScale == 0 {
				t.PromptScale = 1
			}
			if t.OutputScale == 0 {
				t.OutputScale = 1
			}
		}
	}
	if p.Ladder.Search != nil {
		p.Ladder.Search.fillDefaults()
	}
	if l := p.Target.Launch; l != nil && l.ReadyTimeout == 0 {
		l.ReadyTimeout = DefaultReadyTimeout
	}
	if p.Tune != nil {
		p.Tune.fillDefaults(p)
	}
	if p.Drift != nil {
		p.Drift.fillDefaults()
	}
	if p.Target.URL == "" {
		p.Target.URL = TargetSimulator
	}
	if p.Target.IsSimulator() && p.Target.Model == "" && p.Tune == nil { // a tune names its server's model
		p.Target.Model = p.Target.Simulator.Model
	}
	if p.Capture.Enabled && p.Capture.Mode == "" {
		p.Capture.Mode = "session"
		if p.Target.Launch != nil {
			p.Capture.Mode = "launch"
		}
	}
	if p.Name == "" {
		p.Name = DefaultName
	}
}

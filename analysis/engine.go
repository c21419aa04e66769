package analysis

import (
	"net/url"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
)

// Engine is the inference server software behind the target (Analysis.Engine), as
// detected from the run directory by deploymentOf; the advice names its settings.
type Engine string

// Engines llmcap recognises.
const (
	EngineUnknown   Engine = ""          // not detected
	EngineSimulator Engine = "simulator" // llmcap's embedded engine (vLLM's scheduler and knobs)
	EngineVLLM      Engine = "vllm"
	EngineSGLang    Engine = "sglang"
	EngineLlamaCpp  Engine = "llama.cpp" // llama-server
	EngineOllama    Engine = "ollama"
	EngineTGI       Engine = "tgi" // Hugging Face text-generation-inference
)

// deployment is what the run directory says about the server under test, found once
// per run by deploymentOf: its engine, its configured running-batch limit and the
// simulator's speed-up.
type deployment struct {
	engine Engine
	// engineSource says how the engine was found, e.g. "target.launch.command".
	engineSource string
	// runLimit is the configured running-batch limit in requests (max_num_seqs,
	// --max-running-requests, --parallel, OLLAMA_NUM_PARALLEL, --max-batch-size); 0
	// when not recorded (the segment's running plateau then stands in for it).
	runLimit int
	// runLimitSetting names the setting ("max_num_seqs", "--parallel",
	// "OLLAMA_NUM_PARALLEL"), runLimitFrom where it was read ("simulator settings in
	// run.json", "target.launch.command").
	runLimitSetting, runLimitFrom string
	// speedUp is the simulator's speed_up (latencies are compressed by it); 1 otherwise.
	speedUp float64
	// target is the plan's target: its client timeouts (target.request_timeout …)
	// explain timeout error classes in the advice.
	target plan.Target
}

// deploymentOf detects the engine and its running limit from run.json and the scraped
// server metrics: the embedded simulator first (its settings are ground truth), then
// the target.launch command, the scraped metric families, the GET /v1/models answer's
// owned_by and, last, Ollama's default port 11434 in the target URL.
func deploymentOf(meta rundir.RunMeta, samples []rundir.MetricSample) deployment {
	t := meta.Plan.Target
	d := deployment{speedUp: 1, target: t}
	if meta.Target.Simulator || t.URL == plan.TargetSimulator {
		d.engine, d.engineSource = EngineSimulator, "the embedded simulator"
		if su := settingFloat(meta.Target.Settings, "speed_up"); su > 0 {
			d.speedUp = su
		} else if t.Simulator.SpeedUp > 0 {
			d.speedUp = t.Simulator.SpeedUp
		}
		if n := settingFloat(meta.Target.Settings, "max_num_seqs"); n > 0 {
			d.runLimit, d.runLimitSetting, d.runLimitFrom = int(n), "max_num_seqs", "the simulator settings in run.json"
		} else if n := t.Simulator.MaxNumSeqs; n > 0 {
			d.runLimit, d.runLimitSetting, d.runLimitFrom = n, "max_num_seqs", "target.simulator.max_num_seqs"
		}
		return d
	}
	var argv, env []string
	if l := t.Launch; l != nil {
		argv, env = l.Command, l.Env
	}
	switch e := engineOfCommand(argv); {
	case e != EngineUnknown:
		d.engine, d.engineSource = e, "target.launch.command"
	default:
		if e := engineOfMetrics(samples); e != EngineUnknown {
			d.engine, d.engineSource = e, "its scraped metric names"
		} else if e := engineOfModels(meta.Models); e != EngineUnknown {
			d.engine, d.engineSource = e, "owned_by in its /v1/models answer"
		} else if portOf(meta.Target.URL, t.URL) == "11434" {
			d.engine, d.engineSource = EngineOllama, "port 11434 (Ollama's default) in the target URL"
		}
	}
	if n, setting, from := launchRunLimit(d.engine, argv, env); n > 0 {
		d.runLimit, d.runLimitSetting, d.runLimitFrom = n, setting, from
	}
	return d
}

// runLimitSource is the configured running limit's setting and source, e.g.
// "max_num_seqs (the simulator settings in run.json)"; "" when none was recorded.
func (d deployment) runLimitSource() string {
	if d.runLimit <= 0 {
		return ""
	}
	return d.runLimitSetting + " (" + d.runLimitFrom + ")"
}

// settingFloat reads a number from the simulator's settings (JSON numbers are float64;
// an in-memory map may hold int); 0 when absent.
func settingFloat(m map[string]any, key string) float64 {
	switch v := m[key].(type) {
	case float64:
		return v
	case int:
		return float64(v)
	}
	return 0
}

// commandEngines maps a substring of a launch command's word (lower-cased: a program,
// a Python module or a container image) to its engine, most specific first.
var commandEngines = []struct {
	word   string
	engine Engine
}{
	{"text-generation-launcher", EngineTGI}, {"text-generation-server", EngineTGI},
	{"text-generation-inference", EngineTGI},
	{"sglang", EngineSGLang},
	{"llama-server", EngineLlamaCpp}, {"llama.cpp", EngineLlamaCpp},
	{"ollama", EngineOllama},
	{"vllm", EngineVLLM},
}

// engineOfCommand is the engine a launch command runs: the first word naming one.
func engineOfCommand(argv []string) Engine {
	for _, w := range argv {
		w = strings.ToLower(filepath.Base(w))
		if strings.HasPrefix(w, "-") {
			continue
		}
		for _, c := range commandEngines {
			if strings.Contains(w, c.word) {
				return c.engine
			}
		}
	}
	return EngineUnknown
}

// metricEngines maps a metric-name prefix (rundir's server-metric table) to its engine.
var metricEngines = []struct {
	prefix string
	engine Engine
}{{"vllm:", EngineVLLM}, {"sglang:", EngineSGLang}, {"llamacpp:", EngineLlamaCpp}, {"tgi_", EngineTGI}}

// engineOfMetrics is the engine whose metric names the scrapes hold (the first found).
func engineOfMetrics(samples []rundir.MetricSample) Engine {
	for i := range samples {
		for k := range samples[i].Values {
			for _, m := range metricEngines {
				if strings.HasPrefix(k, m.prefix) {
					return m.engine
				}
			}
		}
	}
	return EngineUnknown
}

// engineOfModels reads owned_by of the GET /v1/models answer: "vllm", "sglang",
// "llamacpp", or "library" (Ollama's namespace of its library models).
func engineOfModels(models any) Engine {
	m, _ := models.(map[string]any)
	data, _ := m["data"].([]any)
	for _, e := range data {
		o, _ := e.(map[string]any)
		switch owner, _ := o["owned_by"].(string); owner {
		case "vllm":
			return EngineVLLM
		case "sglang":
			return EngineSGLang
		case "llamacpp":
			return EngineLlamaCpp
		case "library", "ollama":
			return EngineOllama
		}
	}
	return EngineUnknown
}

// portOf is the port of the first URL that names one.
func portOf(urls ...string) string {
	for _, s := range urls {
		if u, err := url.Parse(s); err == nil && u.Port() != "" {
			return u.Port()
		}
	}
	return ""
}

// launchRunLimit reads the running-batch limit from a launch command's flags or
// environment, for the detected engine, with the setting's name and where it was
// found; 0 when not set there.
func launchRunLimit(e Engine, argv, env []string) (n int, setting, from string) {
	var flags []string
	switch e {
	case EngineVLLM:
		flags = []string{"--max-num-seqs"}
	case EngineSGLang:
		flags = []string{"--max-running-requests"}
	case EngineLlamaCpp:
		flags = []string{"--parallel", "-np"}
	case EngineTGI:
		flags = []string{"--max-batch-size"}
	case EngineOllama:
		if n := envInt(env, "OLLAMA_NUM_PARALLEL"); n > 0 {
			return n, "OLLAMA_NUM_PARALLEL", "target.launch.env"
		}
		return 0, "", ""
	}
	for _, f := range flags {
		if n := flagInt(argv, f); n > 0 {
			return n, f, "target.launch.command"
		}
	}
	if e == EngineLlamaCpp {
		if n := envInt(env, "LLAMA_ARG_N_PARALLEL"); n > 0 {
			return n, "LLAMA_ARG_N_PARALLEL", "target.launch.env"
		}
	}
	return 0, "", ""
}

// flagInt is the integer value of flag in argv ("--flag N" or "--flag=N"; vLLM's
// underscore spelling "--max_num_seqs" counts too); 0 when absent or not a number.
func flagInt(argv []string, flag string) int {
	for i, a := range argv {
		a = strings.ReplaceAll(a, "_", "-")
		v, ok := "", false
		switch {
		case a == flag && i+1 < len(argv):
			v, ok = argv[i+1], true
		case strings.HasPrefix(a, flag+"="):
			v, ok = strings.TrimPrefix(a, flag+"="), true
		}
		if n, err := strconv.Atoi(v); ok && err == nil && n > 0 {
			return n
		}
	}
	return 0
}

// envInt is the integer value of KEY in KEY=VALUE entries; 0 when absent.
func envInt(env []string, key string) int {
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && k == key {
			if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n > 0 {
				return n
			}
		}
	}
	return 0
}

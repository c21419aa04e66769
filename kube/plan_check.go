package kube

import (
	"errors"
	"fmt"
	"maps"
	"net"
	"net/url"
	"os"
	"slices"
	"strings"
	"unicode/utf8"

	"sigs.k8s.io/yaml"

	"github.com/llmcap/llmcap/plan"
)

// MaxPlanBytes bounds the plan file: a ConfigMap holds at most 1 MiB in all.
const MaxPlanBytes = 1<<20 - 4096

// Plan is a plan file the shard pods can run: its exact bytes (the ConfigMap's
// plan.yaml), the plan loaded from them, and the variable the file's
// target.api_key_env names ("" when none).
type Plan struct {
	Path      string
	Bytes     []byte
	Plan      *plan.Plan
	APIKeyEnv string
}

// LoadPlan reads and loads the plan at path (plan.Load, which validates it) and
// refuses, naming each plan field and what to do instead, what the shard pods could not
// run (refusals). target.api_key_env is not resolved here, where the key need not be
// set: the pods get it from --api-key-secret. Errors: the file's I/O error, plan.Load's
// *plan.SyntaxError or *plan.ValidationError, or the refusals joined (errors.Join)
// as a *RefusedError.
func LoadPlan(path string) (*Plan, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read the plan: %w", err)
	}
	raw := rawPlan(b)
	errs := rawRefusals(b, raw)
	keyEnv, _ := lookup(raw, "target", "api_key_env").(string)
	var ov map[string]any
	if keyEnv != "" {
		ov = map[string]any{"target.api_key_env": ""} // resolved in the pods, from the Secret
	}
	var p *plan.Plan
	if len(errs) == 0 {
		if p, err = plan.Load(path, ov); err != nil {
			return nil, err
		}
		errs = refusals(p)
	}
	if len(errs) > 0 {
		return nil, &RefusedError{File: path, Problems: errs}
	}
	return &Plan{Path: path, Bytes: b, Plan: p, APIKeyEnv: keyEnv}, nil
}

// RefusedError lists why the shard pods cannot run a plan file, one problem per
// plan field.
type RefusedError struct {
	File     string
	Problems []error
}

// Error names the file and lists the problems, one per indented line.
func (e *RefusedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: the plan cannot run as shards on Kubernetes (%d problem(s); the pods see only its plan.yaml and share one server):", e.File, len(e.Problems))
	for _, p := range e.Problems {
		b.WriteString("\n  ")
		b.WriteString(p.Error())
	}
	return b.String()
}

// Unwrap returns the problems.
func (e *RefusedError) Unwrap() []error { return e.Problems }

// rawPlan is the file as a generic map (nil when it does not parse: plan.Load says why).
func rawPlan(b []byte) map[string]any {
	var m map[string]any
	if yaml.Unmarshal(b, &m) != nil {
		return nil
	}
	return m
}

// lookup follows keys down nested maps, case-insensitively as the plan loader reads
// them; nil when a key is missing.
func lookup(m map[string]any, keys ...string) any {
	var cur any = m
	for _, k := range keys {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = nil
		for mk, v := range mm {
			if strings.EqualFold(mk, k) {
				cur = v
			}
		}
	}
	return cur
}

// rawRefusals are the problems seen in the file itself, before plan.Load (which would
// fail on the second on this machine, or pass here and fail in the pods).
func rawRefusals(b []byte, raw map[string]any) []error {
	var errs []error
	if len(b) > MaxPlanBytes {
		errs = append(errs, fmt.Errorf("the file is %d bytes: a ConfigMap holds at most %d", len(b), MaxPlanBytes))
	}
	if !utf8.Valid(b) {
		errs = append(errs, errors.New("the file is not UTF-8 text"))
	}
	if raw != nil && lookup(raw, "name") == nil {
		errs = append(errs, errors.New("name: the file gives none, and each pod would name the run after /plan/plan.yaml (\"plan\"): add a name field"))
	}
	headers, _ := lookup(raw, "target", "headers").(map[string]any)
	for _, h := range slices.Sorted(maps.Keys(headers)) {
		if v, _ := headers[h].(string); strings.Contains(strings.ReplaceAll(v, "$${", ""), "${") {
			errs = append(errs, fmt.Errorf("target.headers.%s: takes a value from the environment (${NAME}), "+
				"which the pods do not have (only the API key, from --api-key-secret): write the value in the file", h))
		}
	}
	return errs
}

// refusals are what a loaded plan needs that the shard pods do not have, or what
// cannot be split over shards, one error per plan field.
func refusals(p *plan.Plan) []error {
	var errs []error
	add := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	t := p.Target
	if t.IsSimulator() {
		add("target.url %q: the shards must share one server, and the embedded simulator would start one in each pod: "+
			"run `llmcap serve-sim --addr 0.0.0.0:8000` as a Deployment with a Service, or point target.url at the real server", t.URL)
	} else if loopback(t.URL) {
		add("target.url %q: in a pod the loopback address is the pod itself: give an address the pods reach (a Service's DNS name)", t.URL)
	}
	for i, u := range t.MetricsURLs {
		if loopback(u) {
			add("target.metrics_urls[%d] %q: in a pod the loopback address is the pod itself: give an address the pods reach", i, u)
		}
	}
	if t.Launch != nil {
		add("target.launch: every shard pod would launch its own server: start the server apart and set target.url")
	}
	if p.Ladder.Search != nil {
		add("ladder.search (the default of a plan without ladder levels): a capacity search's next load depends on every shard's results: " +
			"give a fixed ladder (ladder.concurrency, ladder.rate or ladder.users)")
	}
	if p.Drift != nil {
		add("drift: the output-drift probe is not sharded: remove the drift section and run it once, unsharded")
	}
	if p.Capture.Enabled {
		add("capture.enabled: Nsight Systems captures run beside the server, not in the client pods: turn capture off")
	}
	for _, f := range localFiles(p) {
		add("%s %q: the pods see only plan.yaml, not this file: remove it from the plan", f.field, f.path)
	}
	return errs
}

// loopback reports whether raw is a URL whose host is localhost or a loopback IP.
func loopback(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	h := u.Hostname()
	ip := net.ParseIP(h)
	return strings.EqualFold(h, "localhost") || (ip != nil && ip.IsLoopback())
}

// localFile is a plan field naming a local file.
type localFile struct{ field, path string }

// localFiles are the plan's fields that name local files, in field order: the API
// key file, the simulator's catalog and output-length file, drift prompts, and each
// segment's empirical distributions and trace.
func localFiles(p *plan.Plan) []localFile {
	var out []localFile
	add := func(field, path string) {
		if path != "" {
			out = append(out, localFile{field, path})
		}
	}
	add("target.api_key_file", p.Target.APIKeyFile)
	add("target.simulator.catalog", p.Target.Simulator.Catalog)
	if d := p.Target.Simulator.OutputTokens; d != nil {
		add("target.simulator.output_tokens.file", d.File)
	}
	if p.Drift != nil {
		add("drift.prompts", p.Drift.Prompts)
	}
	for i, s := range p.Segments {
		seg := fmt.Sprintf("segments[%d]", i)
		add(seg+".prompt_tokens.file", s.PromptTokens.File)
		add(seg+".output_tokens.file", s.OutputTokens.File)
		if s.MultiTurn != nil {
			add(seg+".multi_turn.think_time_s.file", s.MultiTurn.ThinkTimeS.File)
		}
		if s.Trace != nil {
			add(seg+".trace.file", s.Trace.File)
		}
	}
	return out
}

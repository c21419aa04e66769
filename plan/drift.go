package plan

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/llmcap/llmcap/configs"
)

// Drift configures the output-drift probe (docs/drift.md): a frozen prompt set sent at
// temperature 0 with a fixed seed and max_tokens, Repeats times before the ladder (and
// once after it with After), outside every step's statistics; each output's SHA-256 goes
// to the run directory's drift.jsonl and the analysis says whether the server answered
// the same prompt the same way. Left out, there is no probe.
type Drift struct {
	// Prompts names a prompt file replacing the embedded set of 50 prompts
	// (configs/drift-prompts.txt; relative to the config file): a .jsonl file holds
	// one JSON string or {"prompt": "..."} object a line, any other file one prompt a
	// line, blank lines and lines starting with '#' skipped. At most MaxDriftPrompts
	// prompts of at most MaxDriftPromptBytes bytes each (default: the embedded set).
	Prompts string `mapstructure:"prompts" json:"prompts,omitempty" yaml:"prompts,omitempty"`
	// Seed is sent as every probe request's seed (default DefaultDriftSeed; 0 takes
	// the default). Keep it fixed to compare runs.
	Seed int64 `mapstructure:"seed" json:"seed" yaml:"seed"`
	// MaxTokens is every probe request's max_tokens (default DefaultDriftMaxTokens; 1 to
	// MaxDriftTokens; 0 takes the default).
	MaxTokens int `mapstructure:"max_tokens" json:"max_tokens" yaml:"max_tokens"`
	// Repeats is how many times the whole set is sent before the ladder (default
	// DefaultDriftRepeats; 1 to MaxDriftRepeats; 0 takes the default): with 2 or more the run checks its own
	// repeatability, each repeat against the first.
	Repeats int `mapstructure:"repeats" json:"repeats" yaml:"repeats"`
	// After also sends the set once after the ladder (default false), to see whether
	// the outputs drifted under load.
	After bool `mapstructure:"after" json:"after" yaml:"after"`
	// Concurrency is how many probe requests are in flight at once (default 1:
	// sequential; at most MaxDriftConcurrency; 0 takes the default). Batching can change a server's
	// arithmetic, so keep it fixed to compare runs.
	Concurrency int `mapstructure:"concurrency" json:"concurrency" yaml:"concurrency"`
}

// Drift probe defaults and limits.
const (
	DefaultDriftSeed        = 1234
	DefaultDriftMaxTokens   = 64
	DefaultDriftRepeats     = 2
	DefaultDriftConcurrency = 1
	MaxDriftTokens          = 4096
	MaxDriftRepeats         = 100
	MaxDriftConcurrency     = 16
	MaxDriftPrompts         = 10_000
	MaxDriftPromptBytes     = 64 << 10
)

// fillDefaults sets the zero fields of d to their defaults.
func (d *Drift) fillDefaults() {
	if d.Seed == 0 {
		d.Seed = DefaultDriftSeed
	}
	if d.MaxTokens == 0 {
		d.MaxTokens = DefaultDriftMaxTokens
	}
	if d.Repeats == 0 {
		d.Repeats = DefaultDriftRepeats
	}
	if d.Concurrency == 0 {
		d.Concurrency = DefaultDriftConcurrency
	}
}

func (p *Plan) checkDrift(ps *problems) {
	d := p.Drift
	if d == nil {
		return
	}
	if d.MaxTokens < 1 || d.MaxTokens > MaxDriftTokens {
		ps.add("drift.max_tokens", d.MaxTokens, "must be 1 to %d (output tokens of each probe request)", MaxDriftTokens)
	}
	if d.Repeats < 1 || d.Repeats > MaxDriftRepeats {
		ps.add("drift.repeats", d.Repeats, "must be 1 to %d (times the prompt set is sent before the ladder)", MaxDriftRepeats)
	}
	if d.Concurrency < 1 || d.Concurrency > MaxDriftConcurrency {
		ps.add("drift.concurrency", d.Concurrency, "must be 1 to %d (probe requests in flight at once)", MaxDriftConcurrency)
	}
	if d.Prompts == "" {
		return
	}
	if _, err := os.Stat(d.Prompts); err != nil {
		checkFile(ps, "drift.prompts", d.Prompts)
		return
	}
	if _, err := d.LoadPrompts(); err != nil {
		ps.add("drift.prompts", d.Prompts, "%v", err)
	}
}

// LoadPrompts returns the probe's prompts in order: those of the Prompts file, or the
// embedded set (configs.DriftPrompts, 50 prompts) when Prompts is empty. Errors: the
// file is unreadable, holds no prompt or more than MaxDriftPrompts, a prompt is longer
// than MaxDriftPromptBytes or not UTF-8, or a .jsonl line is no string or {"prompt"}
// object (the error names the line).
func (d Drift) LoadPrompts() ([]string, error) {
	if d.Prompts == "" {
		return parsePrompts(configs.DriftPrompts, false)
	}
	b, err := os.ReadFile(d.Prompts)
	if err != nil {
		return nil, fmt.Errorf("read drift prompts: %w", err)
	}
	return parsePrompts(b, strings.EqualFold(filepath.Ext(d.Prompts), ".jsonl"))
}

// parsePrompts splits a prompt file: one JSON prompt a line (jsonl) or one plain line a
// prompt, blank lines and '#' lines skipped.
func parsePrompts(b []byte, jsonl bool) ([]string, error) {
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64<<10), 4*MaxDriftPromptBytes)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || (!jsonl && strings.HasPrefix(line, "#")) {
			continue
		}
		prompt := line
		if jsonl {
			var err error
			if prompt, err = jsonPrompt(line); err != nil {
				return nil, fmt.Errorf("line %d: %w", n, err)
			}
		}
		switch {
		case len(prompt) > MaxDriftPromptBytes:
			return nil, fmt.Errorf("line %d: a prompt of %d bytes is longer than %d", n, len(prompt), MaxDriftPromptBytes)
		case !utf8.ValidString(prompt):
			return nil, fmt.Errorf("line %d: the prompt is not valid UTF-8", n)
		case len(out) == MaxDriftPrompts:
			return nil, fmt.Errorf("more than %d prompts", MaxDriftPrompts)
		}
		out = append(out, prompt)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read drift prompts: %w", err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("holds no prompt (one a line; blank and '#' lines are skipped)")
	}
	return out, nil
}

// jsonPrompt decodes one .jsonl line: a JSON string or an object with a non-empty
// string "prompt".
func jsonPrompt(line string) (string, error) {
	var s string
	if err := json.Unmarshal([]byte(line), &s); err == nil {
		return s, nil
	}
	var o struct {
		Prompt *string `json:"prompt"`
	}
	if err := json.Unmarshal([]byte(line), &o); err != nil || o.Prompt == nil || *o.Prompt == "" {
		return "", fmt.Errorf(`must be a JSON string or an object {"prompt": "..."}`)
	}
	return *o.Prompt, nil
}

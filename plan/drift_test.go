package plan

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDriftSectionDefaultsAndShortForm: drift: true is the probe with its defaults; a
// plan without the section has none; drift: false none either.
func TestDriftSectionDefaultsAndShortForm(t *testing.T) {
	p, err := Load(writePlan(t, "drift: true\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := Drift{Seed: DefaultDriftSeed, MaxTokens: 64, Repeats: 2, Concurrency: 1}
	if p.Drift == nil || *p.Drift != want {
		t.Errorf("drift: true gives %+v; want %+v", p.Drift, want)
	}
	for _, y := range []string{"name: x\n", "drift: false\n"} {
		if p, err := Load(writePlan(t, y), nil); err != nil || p.Drift != nil {
			t.Errorf("%q: drift %+v, %v; want no probe", y, p.Drift, err)
		}
	}
}

// TestDriftPromptsFileIsRelativeToThePlan: drift.prompts resolves against the plan
// file's directory, a .jsonl file's strings and {"prompt"} objects are its prompts, and
// the shipped set has 50.
func TestDriftPromptsFileIsRelativeToThePlan(t *testing.T) {
	path := writePlan(t, "drift:\n  prompts: mine.jsonl\n  after: true\n")
	lines := "\"first\\nwith a line break\"\n\n{\"prompt\": \"second\"}\n"
	if err := os.WriteFile(filepath.Join(filepath.Dir(path), "mine.jsonl"), []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := Load(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := p.Drift.LoadPrompts()
	if err != nil || len(got) != 2 || got[0] != "first\nwith a line break" || got[1] != "second" || !p.Drift.After {
		t.Errorf("prompts %q, %v; want the file's two", got, err)
	}
	shipped, err := Drift{}.LoadPrompts()
	if err != nil || len(shipped) != 50 || strings.HasPrefix(shipped[0], "#") {
		t.Errorf("the shipped set: %d prompts, %v; want 50", len(shipped), err)
	}
}

// TestDriftInvalidFieldsAreNamed: every bad drift field is reported with its path and
// the allowed values.
func TestDriftInvalidFieldsAreNamed(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.txt")
	if err := os.WriteFile(empty, []byte("# only a comment\n\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	path := writePlan(t, "drift:\n  max_tokens: 5000\n  repeats: 101\n  concurrency: 17\n  prompts: "+empty+"\n"+
		"target:\n  simulator:\n    nondeterministic_fraction: 1.5\n")
	_, err := Load(path, nil)
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("err %v; want a *ValidationError", err)
	}
	msg := err.Error()
	for _, want := range []string{
		"drift.max_tokens: 5000 is not allowed: must be 1 to 4096",
		"drift.repeats: 101 is not allowed: must be 1 to 100",
		"drift.concurrency: 17 is not allowed: must be 1 to 16",
		"drift.prompts: \"" + empty + "\" is not allowed: holds no prompt",
		"target.simulator.nondeterministic_fraction: 1.5 is not allowed: must be 0 to 1",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
	if _, err := Load(writePlan(t, "drift:\n  prompts: missing.txt\n"), nil); err == nil ||
		!strings.Contains(err.Error(), "drift.prompts") || !strings.Contains(err.Error(), "must name an existing file") {
		t.Errorf("a missing prompt file: %v; want drift.prompts named", err)
	}
}

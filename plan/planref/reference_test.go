package planref

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/plan/planref/internal/godoc"
)

const root = "../.."

// TestGeneratedSourceIsCurrent: docs_gen.go is what gensource writes from the plan
// package's source now, so a new or changed doc comment fails until regenerated.
func TestGeneratedSourceIsCurrent(t *testing.T) {
	src, err := godoc.Parse("..")
	if err != nil {
		t.Fatal(err)
	}
	want, err := src.GoFile()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("docs_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("plan/planref/docs_gen.go is stale: run go generate ./plan")
	}
}

// TestReferenceFilesAreCurrent: docs/config.md and docs/plan.schema.json are what the
// generator renders now.
func TestReferenceFilesAreCurrent(t *testing.T) {
	files, err := Generate(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 {
		t.Fatalf("Generate wrote %d files, want 2", len(files))
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: run go generate ./plan", name)
		}
	}
}

// TestEveryKeyHasADescription: every plan key has a description (its doc comment in
// plan/schema.go, its group's, or its type's or section's when that names it), and
// docs/config.md has a heading for it.
func TestEveryKeyHasADescription(t *testing.T) {
	md, err := os.ReadFile(filepath.Join(root, MarkdownFile))
	if err != nil {
		t.Fatal(err)
	}
	keys := Keys()
	if len(keys) < 100 {
		t.Fatalf("%d keys, want the whole plan (over 100)", len(keys))
	}
	var missing []string
	for _, k := range keys {
		if strings.TrimSpace(k.Description) == "" {
			missing = append(missing, k.Path)
		}
		if !bytes.Contains(md, []byte("# `"+k.Path+"`\n")) {
			t.Errorf("%s: no entry for %s", MarkdownFile, k.Path)
		}
	}
	if len(missing) > 0 {
		t.Errorf("plan keys without a description (add a doc comment to the field in plan/, then run go generate ./plan): %s",
			strings.Join(missing, ", "))
	}
}

// TestKeysFollowSchema: the reference holds known keys at their paths with the types,
// defaults and allowed values of the plan package.
func TestKeysFollowSchema(t *testing.T) {
	byPath := map[string]Key{}
	for _, k := range Keys() {
		byPath[k.Path] = k
	}
	for _, c := range []struct {
		path, typ string
		def       string
		allowed   []string
	}{
		{"segments[].prompt_tokens.dist", "string", "", plan.DistKinds},
		{"target.api", "string", "chat", plan.APIs},
		{"target.idle_timeout", "duration", "5m0s", nil},
		{"target.simulator.max_num_seqs", "integer", "256", nil},
		{"ladder.search.over", "string", "concurrency", plan.SearchOvers},
		{"segments[].trace.time_scale", "number", "1", nil},
		{"target.launch.ready_timeout", "duration", "5m0s", nil},
		{"report.formats", "list of strings", "[pdf, html, xlsx, charts, json, md, csv]", plan.ReportFormats},
		{"ladder.concurrency", "list of integers", "", nil},
	} {
		k, ok := byPath[c.path]
		if !ok {
			t.Errorf("no key %s", c.path)
			continue
		}
		def := ""
		if k.HasDefault {
			def = valueText(k.Default)
		}
		if k.Type != c.typ || def != c.def || !slices.Equal(k.Allowed, c.allowed) {
			t.Errorf("%s: type %q default %q allowed %v; want %q %q %v", c.path, k.Type, def, k.Allowed, c.typ, c.def, c.allowed)
		}
	}
	if k := byPath["sla.ttft_ms"]; !slices.Equal(k.AllowedKeys, plan.Stats) || k.Type != "map of number" {
		t.Errorf("sla.ttft_ms: keys %v type %q; want %v, map of number", k.AllowedKeys, k.Type, plan.Stats)
	}
	if k := byPath["target.model"]; !k.Derived || k.Default != "llama-3.1-8b" {
		t.Errorf("target.model: derived %v default %v; want a derived default (the simulator's model)", k.Derived, k.Default)
	}
	if _, ok := byPath["target.api_key"]; ok {
		t.Error("target.api_key (mapstructure:\"-\", resolved at load time) is listed as a key")
	}
}

// TestDescriptionsWriteValuesNotGoNames: a description that names a plan constant or
// variable shows its value (a user reads "`X-Session-Id`", not "DefaultSessionHeader"),
// and the value comes from the plan package, so it cannot drift.
func TestDescriptionsWriteValuesNotGoNames(t *testing.T) {
	byPath := map[string]Key{}
	for _, k := range Keys() {
		byPath[k.Path] = k
	}
	for path, want := range map[string]string{
		"target.session_header":     "Default `" + plan.DefaultSessionHeader + "`",
		"target.first_byte_timeout": "(default `" + plan.DefaultFirstByteTimeout.String() + "`",
		"sla.goodput":               codeList(plan.GoodputMetrics),
		"ladder.think_time_dist":    "`" + plan.ThinkExponential + "` (the default",
	} {
		if d := byPath[path].Description; !strings.Contains(d, want) {
			t.Errorf("%s: description %q lacks %q", path, d, want)
		}
	}
	for _, k := range Keys() {
		for _, name := range []string{"DefaultSessionHeader", "DefaultFirstByteTimeout", "DefaultIdleTimeout",
			"GoodputMetrics", "GoodputStat", "ThinkExponential", "ScheduleUsers", "TraceWarmupFraction", "StepTimeoutFloor"} {
			if strings.Contains(k.Description, name) {
				t.Errorf("%s: description names the Go identifier %s: %q", k.Path, name, k.Description)
			}
		}
	}
}

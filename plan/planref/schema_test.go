package planref

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"
)

// compileSchema compiles the shipped docs/plan.schema.json.
func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(filepath.Join(root, SchemaFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	if err := c.AddResource(SchemaID, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(SchemaID)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// yamlDoc decodes YAML into the JSON data model the validator reads.
func yamlDoc(t *testing.T, src []byte) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal(src, &v); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestSchemaAcceptsExamplePlans: every example plan in configs/ is valid under the
// schema (the catalog is not a plan).
func TestSchemaAcceptsExamplePlans(t *testing.T) {
	s := compileSchema(t)
	files, err := filepath.Glob(filepath.Join(root, "configs", "*.yaml"))
	if err != nil || len(files) < 5 {
		t.Fatalf("example plans: %v, %v", files, err)
	}
	for _, f := range files {
		if filepath.Base(f) == "catalog.yaml" {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Validate(yamlDoc(t, b)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// TestSchemaRejectsBadPlans: the schema refuses what Load refuses: an unknown key at
// any depth, a value outside an allowed list, a duration without a unit, an unknown
// SLA statistic and a wrongly typed value.
func TestSchemaRejectsBadPlans(t *testing.T) {
	s := compileSchema(t)
	base := "target: {url: simulator}\nsegments: [{name: a, weight: 1, prompt_tokens: {dist: fixed, value: 8}, output_tokens: {dist: fixed, value: 8}}]\n"
	if err := s.Validate(yamlDoc(t, []byte(base))); err != nil {
		t.Fatalf("base plan refused: %v", err)
	}
	for _, c := range []struct{ name, yaml, want string }{
		{"unknown top-level key", "targett: {url: simulator}", "targett"},
		{"unknown nested key", "ladder: {durations: 30s}", "durations"},
		{"unknown key in a list item", "segments: [{name: a, promt_tokens: {dist: fixed, value: 8}}]", "promt_tokens"},
		{"bad dist kind", "segments: [{name: a, prompt_tokens: {dist: poisson, value: 8}}]", "dist"},
		{"bad api", "target: {api: responses}", "api"},
		{"bad report format", "report: {formats: [pdf, docx]}", "formats"},
		{"duration without a unit", "ladder: {duration: 30}", "duration"},
		{"unknown SLA statistic", "sla: {ttft_ms: {p42: 500}}", "p42"},
		{"string for a number", "sla: {max_error_rate: low}", "max_error_rate"},
	} {
		err := s.Validate(yamlDoc(t, []byte(c.yaml)))
		if err == nil {
			t.Errorf("%s: %q accepted", c.name, c.yaml)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q does not name %q", c.name, err, c.want)
		}
	}
	for _, ok := range []string{
		"ladder: {concurrency: '1,2,4', duration: 1m30s, cooldown: 0}",
		"report: {formats: 'pdf,json'}",
		"sla: {ttft_ms: {p95: 500, mean: 200}, think_time: 10s}",
	} {
		if err := s.Validate(yamlDoc(t, []byte(ok))); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
}

// TestExamplesAreValid: every example in docs/config.md, placed at its key in an
// otherwise empty plan, is valid under the schema, so the reference shows no example
// the plan refuses.
func TestExamplesAreValid(t *testing.T) {
	s := compileSchema(t)
	keys := Keys()
	ex, err := examples(keys, filepath.Join(root, "configs"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ex) < len(keys)/2 {
		t.Errorf("%d examples for %d keys", len(ex), len(keys))
	}
	for path, e := range ex {
		doc := nest(path, e.YAML)
		if err := s.Validate(yamlDoc(t, []byte(doc))); err != nil {
			t.Errorf("example of %s (%s) %q: %v", path, e.Source, e.YAML, err)
		}
	}
}

// nest writes line, "name: value", at path as a flow-style YAML document; a "[]" part
// becomes a one-item list.
func nest(path, line string) string {
	parts := strings.Split(path, ".")
	doc := "{" + line + "}"
	for i := len(parts) - 2; i >= 0; i-- {
		name, list := strings.CutSuffix(parts[i], "[]")
		if list {
			doc = "[" + doc + "]"
		}
		doc = fmt.Sprintf("{%s: %s}", name, doc)
	}
	return doc
}

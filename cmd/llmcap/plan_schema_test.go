package main

import (
	"encoding/json"
	"os"
	"testing"
)

// TestPlanSchemaFlag: `llmcap plan --schema` prints the shipped docs/plan.schema.json
// byte for byte, without reading a plan (a --config that does not exist is not read).
func TestPlanSchemaFlag(t *testing.T) {
	want, err := os.ReadFile("../../docs/plan.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	r := llmcap(t, nil, "plan", "--schema", "-c", "does-not-exist.yaml")
	if r.code != 0 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	if r.rawStdout != string(want) {
		t.Errorf("plan --schema differs from docs/plan.schema.json (run go generate ./plan)")
	}
	var s map[string]any
	if err := json.Unmarshal([]byte(r.rawStdout), &s); err != nil || s["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
		t.Errorf("not a draft 2020-12 schema: %v, $schema %v", err, s["$schema"])
	}
}

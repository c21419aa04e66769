package planref

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/llmcap/llmcap/plan"
)

// boundsBase is a valid plan; each case below adds one key to it.
const boundsBase = "target: {url: simulator}\n" +
	"segments: [{name: a, weight: 1, prompt_tokens: {dist: fixed, value: 8}, output_tokens: {dist: fixed, value: 8}}]\n"

// loadProblems loads doc and returns its problems' paths ("" when it loads).
func loadProblems(t *testing.T, doc string) []string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "plan.yaml")
	if err := os.WriteFile(f, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := plan.Load(f, nil)
	var ve *plan.ValidationError
	if err == nil {
		return nil
	}
	if !errors.As(err, &ve) {
		t.Fatalf("%q: %v", doc, err)
	}
	var paths []string
	for _, p := range ve.Problems {
		paths = append(paths, p.Path)
	}
	return paths
}

// TestSchemaRefusesWhatLoadRefuses: the tester's plans, which plan.Load refuses, are
// refused by the schema too, and their short and long forms are accepted by both.
func TestSchemaRefusesWhatLoadRefuses(t *testing.T) {
	s := compileSchema(t)
	for _, bad := range []string{
		"ladder: {concurrency: [0], duration: 5s}",
		"ladder: {concurrency: [1000001], duration: 5s}",
		"ladder: {concurrency: [1], arrival: gamma, burstiness: 0, duration: 5s}",
		"sla: {max_error_rate: 5}",
		`sla: {goodput: "ttft:5"}`,
		`sla: {goodput: "time_to_first_token:0"}`,
		"ladder: {concurrency: [1], duration: -5s}",
		"target: {url: 'http://127.0.0.1:99999/v1', model: m}",
		"target: {metrics_urls: ['http://127.0.0.1:0/metrics']}",
		"segments: [{name: a, weight: 1, prompt_tokens: {dist: fixed, value: 10000001}, output_tokens: 8}]",
		"segments: [{name: a, weight: 1, prompt_tokens: 10000001, output_tokens: 8}]",
		"segments: [{name: a, weight: 1, prompt_tokens: 8, output_tokens: 8, shared_prefix_tokens: -1}]",
		`segments: [{name: a, weight: 1, prompt_tokens: "512±x", output_tokens: 8}]`,
		"ladder: {concurrency: [1], warmup: -5}",
		"ladder: {concurrency: [1], warmup: later}",
		"report: {headroom: 1}",
	} {
		doc := withBase(t, bad)
		if loadProblems(t, doc) == nil {
			t.Errorf("plan.Load accepts %q", bad)
		}
		if err := s.Validate(yamlDoc(t, []byte(doc))); err == nil {
			t.Errorf("schema accepts %q", bad)
		}
	}
	for _, ok := range []string{
		`segments: [{name: a, weight: 1, prompt_tokens: "512±64", output_tokens: "128+-16", multi_turn: {turns: 2, think_time_s: "5±2.5"}}]`,
		`segments: [{name: a, weight: 1, prompt_tokens: 512, output_tokens: "uniform:min=16,max=48", multi_turn: {turns: 2, think_time_s: 0.5}}]`,
		"ladder: {concurrency: [1, 1000000], warmup: 10, duration: 5s}",
		"ladder: {concurrency: [1], warmup: 5s, duration: 5s}",
		"ladder: {concurrency: [1], warmup: 0, duration: 5s}",
		`sla: {goodput: "time_to_first_token:500 inter_token_latency:12.5", max_error_rate: 1}`,
		"target: {url: 'http://user:pw@[::1]:65535/v1', model: m, metrics_urls: ['https://h/metrics']}",
	} {
		doc := withBase(t, ok)
		if ps := loadProblems(t, doc); ps != nil {
			t.Errorf("plan.Load refuses %q: %v", ok, ps)
		}
		if err := s.Validate(yamlDoc(t, []byte(doc))); err != nil {
			t.Errorf("schema refuses %q: %v", ok, err)
		}
	}
}

// TestBoundsAgreeWithLoad: for every plan.KeyBounds key, a value just past a limit is
// refused by plan.Load at that key and by the schema, and the limit itself (or a value
// just inside a strict one) is accepted by the schema and not refused by Load at that
// key: the schema's bounds are the loader's.
func TestBoundsAgreeWithLoad(t *testing.T) {
	s := compileSchema(t)
	for path, b := range plan.KeyBounds() {
		item, value := itemOf(path)
		type probe struct {
			v      float64
			inside bool
		}
		var probes []probe
		if b.HasMin {
			probes = append(probes, probe{b.Min - 1, false}, probe{b.Min, !b.MinExclusive})
			if b.MinExclusive {
				probes = append(probes, probe{b.Min + 1, true})
			}
		}
		if b.HasMax {
			probes = append(probes, probe{b.Max + 1, false}, probe{b.Max, !b.MaxExclusive})
		}
		for _, pr := range probes {
			if pr.inside && crossKey[path] {
				continue
			}
			line := nest(path, value(pr.v))
			if dist, param := strings.CutSuffix(path, "think_time_s."+item[strings.LastIndex(item, ".")+1:]); param {
				line = withKind(t, dist+"think_time_s", line) // checked only with a kind
			}
			doc := withBase(t, line)
			refusedAt := false
			for _, p := range loadProblems(t, doc) {
				refusedAt = refusedAt || p == item
			}
			schemaErr := s.Validate(yamlDoc(t, []byte(doc)))
			switch {
			case pr.inside && refusedAt:
				t.Errorf("%s = %g: plan.Load refuses it inside the bound %+v", path, pr.v, b)
			case pr.inside && schemaErr != nil:
				t.Errorf("%s = %g: schema refuses it inside the bound %+v: %v", path, pr.v, b, schemaErr)
			case !pr.inside && !refusedAt:
				t.Errorf("%s = %g: plan.Load accepts it outside the bound %+v", path, pr.v, b)
			case !pr.inside && schemaErr == nil:
				t.Errorf("%s = %g: schema accepts it outside the bound %+v", path, pr.v, b)
			}
		}
	}
}

// crossKey are the keys whose upper limit another key's rule may refuse:
// shared_prefix_tokens must be below the prompt's smallest length.
var crossKey = map[string]bool{"segments[].shared_prefix_tokens": true}

// withKind adds "dist: fixed" to the distribution at distPath in the flow document doc.
func withKind(t *testing.T, distPath, doc string) string {
	t.Helper()
	var a, b map[string]any
	if err := yaml.Unmarshal([]byte(doc), &a); err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal([]byte(nest(distPath+".dist", "dist: fixed")), &b); err != nil {
		t.Fatal(err)
	}
	out, err := yaml.Marshal(merge(a, b))
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// itemOf is the problem path of a bounded key's first item ("segments[0].weight",
// "ladder.concurrency[0]", "sla.ttft_ms.p95") and the "name: value" line that sets it.
func itemOf(path string) (string, func(float64) string) {
	name := path[strings.LastIndex(path, ".")+1:]
	item := strings.ReplaceAll(path, "[]", "[0]")
	num := func(v float64) string { return string(numberText(v)) }
	switch {
	case strings.HasPrefix(path, "sla.") && strings.HasSuffix(path, "_ms"):
		return item + ".p95", func(v float64) string { return name + ": {p95: " + num(v) + "}" }
	case path == "ladder.concurrency" || path == "ladder.rate" || path == "ladder.users" || path == "report.target_users":
		return item + "[0]", func(v float64) string { return name + ": [" + num(v) + "]" }
	}
	return item, func(v float64) string { return name + ": " + num(v) }
}

// withBase is boundsBase with the YAML mapping extra merged in (mappings key by key,
// a list's first item into the base's).
func withBase(t *testing.T, extra string) string {
	t.Helper()
	var base, add map[string]any
	if err := yaml.Unmarshal([]byte(boundsBase), &base); err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal([]byte(extra), &add); err != nil {
		t.Fatalf("%q: %v", extra, err)
	}
	b, err := yaml.Marshal(merge(base, add))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func merge(base, add any) any {
	switch a := add.(type) {
	case map[string]any:
		b, ok := base.(map[string]any)
		if !ok {
			return a
		}
		out := map[string]any{}
		for k, v := range b {
			out[k] = v
		}
		for k, v := range a {
			out[k] = merge(b[k], v)
		}
		return out
	case []any:
		b, ok := base.([]any)
		if !ok || len(a) != 1 || len(b) == 0 {
			return a
		}
		if _, isMap := a[0].(map[string]any); !isMap {
			return a
		}
		return append([]any{merge(b[0], a[0])}, b[1:]...)
	}
	return add
}

package planref

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Example is one key's example: a YAML line and where it comes from.
type Example struct {
	// YAML is "key: value" in flow style, e.g. "prompt_tokens: {dist: fixed, value: 128}".
	YAML string
	// Source is the example plan it was read from ("configs/vllm.yaml"), or "" for
	// the table below.
	Source string
}

// maxExampleLen is the longest example line shown; longer values are left to the
// keys they hold.
const maxExampleLen = 100

// extraExamples are examples of keys that no plan in configs/ sets, by key path, as
// the value in YAML. A key set in an example plan takes that example instead.
var extraExamples = map[string]string{
	"target.api_key_file":                 "~/.config/llmcap/api-key",
	"target.idle_timeout":                 "2m",
	"target.max_response_bytes":           "134217728",
	"target.launch.ready_timeout":         "10m",
	"target.simulator.catalog":            "my-catalog.yaml",
	"target.simulator.prefix_caching":     "true",
	"target.simulator.compute_efficiency": "0.5",
	"target.simulator.output_tokens":      "{dist: lognormal, mean: 200, stddev: 120, max: 1024}",
	"target.simulator.speed_up":           "10",
	"segments[].trace.max_prompt_tokens":  "8192",
	"segments[].trace.max_output_tokens":  "1024",
	"segments[].trace.rows":               "500",
	"segments[].trace.start_row":          "1000",
	"ladder.rate":                         "[0.5, 1, 2, 4, 8]",
	"ladder.users":                        "[50, 100, 200, 400]",
	"ladder.think_time_dist":              "constant",
	"ladder.arrival":                      "gamma",
	"ladder.burstiness":                   "0.5",
	"ladder.max_concurrency":              "512",
	"ladder.search.over":                  "rate",
	"sla.ttfo_ms":                         "{p95: 800}",
	"sla.e2e_ms":                          "{p99: 20000}",
	"capture.trace":                       "cuda,nvtx,osrt",
	"capture.extra_args":                  "[--cuda-memory-usage=true]",
	"capture.nsys_path":                   "/opt/nvidia/nsight-systems/bin/nsys",
	"capture.session_name":                "vllm",
	"report.what_if_gpus":                 "[H200, B200]",
	"report.gpus_per_replica":             "2",
	"report.gpu":                          "H100-SXM",
}

// configExamples reads the first value of every key in the example plans of dir
// (configs/, sorted by name; shown as source/NAME), as flow-style YAML lines by key
// path ("segments[].prompt_tokens"). Files that are not plans (the catalog) add keys no
// plan has, which nothing looks up.
func configExamples(dir, source string) (map[string]Example, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, fmt.Errorf("list example plans: %w", err)
	}
	slices.Sort(files)
	out := map[string]Example{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("read example plan: %w", err)
		}
		var doc yaml.Node
		if err := yaml.Unmarshal(b, &doc); err != nil {
			return nil, fmt.Errorf("example plan %s: %w", f, err)
		}
		if len(doc.Content) == 1 {
			collect(doc.Content[0], "", source+"/"+filepath.Base(f), out)
		}
	}
	return out, nil
}

// collect walks a mapping node, storing the first example of each key.
func collect(n *yaml.Node, prefix, source string, out map[string]Example) {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			path := k.Value
			if prefix != "" {
				path = prefix + "." + k.Value
			}
			if _, ok := out[path]; !ok {
				if line, err := flowLine(k.Value, v); err == nil && len(line) <= maxExampleLen {
					out[path] = Example{YAML: line, Source: source}
				}
			}
			if v.Kind == yaml.MappingNode {
				collect(v, path, source, out)
			}
			if v.Kind == yaml.SequenceNode {
				for _, item := range v.Content {
					collect(item, path+"[]", source, out)
				}
			}
		}
	}
}

// flowLine renders "key: value" with value in flow style and without comments.
func flowLine(key string, v *yaml.Node) (string, error) {
	c := flowCopy(v)
	m := &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle,
		Content: []*yaml.Node{{Kind: yaml.ScalarNode, Value: key}, c}}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(m); err != nil {
		return "", fmt.Errorf("example %s: %w", key, err)
	}
	s := strings.TrimSpace(b.String())
	return strings.TrimSuffix(strings.TrimPrefix(s, "{"), "}"), nil
}

func flowCopy(n *yaml.Node) *yaml.Node {
	c := *n
	c.HeadComment, c.LineComment, c.FootComment = "", "", ""
	if c.Kind == yaml.MappingNode || c.Kind == yaml.SequenceNode {
		c.Style = yaml.FlowStyle
	}
	c.Content = nil
	for _, sub := range n.Content {
		c.Content = append(c.Content, flowCopy(sub))
	}
	return &c
}

// examples returns each key's example: from the example plans in configsDir, else the
// table, else none.
func examples(keys []Key, configsDir string) (map[string]Example, error) {
	fromConfigs, err := configExamples(configsDir, "configs")
	if err != nil {
		return nil, err
	}
	out := map[string]Example{}
	for _, k := range keys {
		if e, ok := fromConfigs[k.Path]; ok {
			out[k.Path] = e
			continue
		}
		if v, ok := extraExamples[k.Path]; ok {
			var n yaml.Node
			if err := yaml.Unmarshal([]byte(v), &n); err != nil || len(n.Content) != 1 {
				return nil, fmt.Errorf("example of %s: %q is not YAML", k.Path, v)
			}
			line, err := flowLine(k.Name, n.Content[0])
			if err != nil {
				return nil, err
			}
			out[k.Path] = Example{YAML: line}
		}
	}
	return out, nil
}

package sweep

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/llmcap/llmcap/plan"
)

// resumeMayChange are the plan fields (JSON paths) a resumed run may take from a new
// plan: where the target is and how to reach it (its URL, its Prometheus endpoints and
// the API key's source) and the client's timeouts. Everything else describes the
// deployment or the workload being measured and must stay the run's.
var resumeMayChange = map[string]bool{
	"target.url":                   true,
	"target.api_key_env":           true,
	"target.api_key_file":          true,
	"target.metrics_urls":          true,
	"target.metrics_interval_ns":   true,
	"target.connect_timeout_ns":    true,
	"target.first_byte_timeout_ns": true,
	"target.idle_timeout_ns":       true,
	"target.request_timeout_ns":    true,
}

// ResumeConflicts lists the fields (JSON paths such as "target.simulator.max_num_seqs",
// with both values) in which p differs from stored, the plan of the run being resumed,
// other than those a resume may change (target.url, the API key's source, the metrics
// endpoints, the timeouts). An empty result means p may drive the rest of the run; any
// conflict would mix measurements of two different deployments or workloads in one run.
func ResumeConflicts(stored, p *plan.Plan) []string {
	a, errA := planTree(stored)
	b, errB := planTree(p)
	if errA != nil || errB != nil {
		return []string{fmt.Sprintf("plan: cannot compare (%v, %v)", errA, errB)}
	}
	var out []string
	diffTree("", a, b, &out)
	sort.Strings(out)
	return out
}

// planTree is p, redacted, as generic JSON.
func planTree(p *plan.Plan) (any, error) {
	b, err := json.Marshal(p.Redacted())
	if err != nil {
		return nil, err
	}
	var v any
	return v, json.Unmarshal(b, &v)
}

// diffTree appends "path: a → b" for each differing leaf of a and b under path (a
// differing list is one leaf), skipping the paths a resume may change.
func diffTree(path string, a, b any, out *[]string) {
	if resumeMayChange[path] {
		return
	}
	ma, okA := a.(map[string]any)
	mb, okB := b.(map[string]any)
	if okA && okB {
		keys := map[string]bool{}
		for k := range ma {
			keys[k] = true
		}
		for k := range mb {
			keys[k] = true
		}
		for k := range keys {
			p := k
			if path != "" {
				p = path + "." + k
			}
			diffTree(p, ma[k], mb[k], out)
		}
		return
	}
	if !reflect.DeepEqual(a, b) {
		*out = append(*out, fmt.Sprintf("%s: %s → %s", path, jsonText(a), jsonText(b)))
	}
}

// jsonText renders a JSON value briefly ("absent" for a missing one).
func jsonText(v any) string {
	if v == nil {
		return "absent"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return truncate(strings.TrimSpace(string(b)), 80)
}

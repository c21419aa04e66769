package rundir

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"unicode/utf8"

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
	"target.max_response_bytes":    true,
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

// ResumeReason says why a plan may not drive the rest of a run.
type ResumeReason string

const (
	// ResumeStepsDiffer: the plan has other steps than the run (segment, load, schedule
	// or window); a resumed run keeps its own steps, whatever --force says.
	ResumeStepsDiffer ResumeReason = "steps_differ"
	// ResumeFieldsDiffer: the plan differs in fields a resume may not change (see
	// ResumeConflicts); --force accepts them.
	ResumeFieldsDiffer ResumeReason = "fields_differ"
)

// ResumeRefusal is CheckResume's refusal: why, the step counts, and the conflicting
// fields ("path: stored → new").
type ResumeRefusal struct {
	Reason                ResumeReason
	StoredSteps, NewSteps int
	// FirstDiff describes the first step that differs (ResumeStepsDiffer), e.g. "step 2:
	// the run's short concurrency 4, the plan's short concurrency 8".
	FirstDiff string
	Conflicts []string
}

func (r *ResumeRefusal) Error() string {
	if r.Reason == ResumeStepsDiffer {
		return fmt.Sprintf("the plan has different steps than the run (%d vs %d; %s)", r.NewSteps, r.StoredSteps, r.FirstDiff)
	}
	return fmt.Sprintf("the plan differs from the run's in %d field(s) a resume may not change "+
		"(only target.url, the API key, the metrics endpoints and the timeouts may): %s",
		len(r.Conflicts), strings.Join(r.Conflicts, "; "))
}

// CheckResume is the resume policy: plan p may drive the rest of the run whose stored
// plan is stored when it has the same steps (SameSteps) and, unless force, no
// ResumeConflicts. It returns the conflicts accepted under force; the error is a
// *ResumeRefusal.
func CheckResume(stored, p *plan.Plan, force bool) (accepted []string, err error) {
	if a, b := stored.Steps(), p.Steps(); !SameSteps(a, b) {
		return nil, &ResumeRefusal{Reason: ResumeStepsDiffer, StoredSteps: len(a), NewSteps: len(b), FirstDiff: firstStepDiff(a, b)}
	}
	c := ResumeConflicts(stored, p)
	if len(c) > 0 && !force {
		return nil, &ResumeRefusal{Reason: ResumeFieldsDiffer, Conflicts: c}
	}
	return c, nil
}

// SameSteps reports whether a and b are the same steps: index, segment, schedule, load
// and window, ignoring Estimated (the wall-time estimate depends on the target's
// settings, e.g. the simulator's max_num_seqs, not on what a step measures).
func SameSteps(a, b []plan.Step) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		x.Estimated, y.Estimated = 0, 0
		if !reflect.DeepEqual(x, y) {
			return false
		}
	}
	return true
}

// truncate shortens s to at most n bytes on a rune boundary, marking the cut with "…".
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// firstStepDiff describes the first step of stored and planned that differs (ignoring
// Estimated), or the first step one of them lacks.
func firstStepDiff(stored, planned []plan.Step) string {
	for i := 0; i < max(len(stored), len(planned)); i++ {
		switch {
		case i >= len(stored):
			return fmt.Sprintf("step %d: the run has none, the plan's %s", i, describeStep(planned[i]))
		case i >= len(planned):
			return fmt.Sprintf("step %d: the run's %s, the plan has none", i, describeStep(stored[i]))
		}
		x, y := stored[i], planned[i]
		x.Estimated, y.Estimated = 0, 0
		if !reflect.DeepEqual(x, y) {
			return fmt.Sprintf("step %d: the run's %s, the plan's %s", i, describeStep(stored[i]), describeStep(planned[i]))
		}
	}
	return "no step differs"
}

// describeStep is a step's segment, load and window: "short concurrency 4, window 1m0s,
// 50 requests".
func describeStep(s plan.Step) string {
	var load string
	switch s.Schedule {
	case plan.ScheduleConcurrency:
		load = fmt.Sprintf("concurrency %d", s.Concurrency)
	case plan.ScheduleRate:
		load = fmt.Sprintf("rate %g/s", s.Rate)
	default:
		load = s.Schedule
	}
	out := fmt.Sprintf("%s %s, window %s", s.Segment, load, s.Duration)
	if s.Requests > 0 {
		out += fmt.Sprintf(", %d requests", s.Requests)
	}
	return out
}

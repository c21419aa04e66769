package compare

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/llmcap/llmcap/plan"
)

// SLAMismatchError refuses a comparison of runs judged under different SLAs: their
// capacities would answer different questions. Fields are the SLA fields that differ
// (sla.ttft_ms.p95, sla.think_time…) with each run's value; Labels the runs.
type SLAMismatchError struct {
	Labels []string
	Fields []FieldDiff
}

func (e *SLAMismatchError) Error() string {
	parts := make([]string, len(e.Fields))
	for i, f := range e.Fields {
		vals := make([]string, len(f.Values))
		for j, v := range f.Values {
			vals[j] = e.Labels[j] + ": " + v
		}
		parts[i] = fmt.Sprintf("%s (%s)", f.Path, strings.Join(vals, ", "))
	}
	example := "sla.ttft_ms.p95=500"
	if len(e.Fields) > 0 && e.Fields[0].Values[0] != absent {
		example = e.Fields[0].Path + "=" + e.Fields[0].Values[0]
	}
	return fmt.Sprintf("runs %s were judged under different SLAs: %s differ; compare them under one SLA with --sla KEY=VALUE (e.g. --sla %s), "+
		"which re-judges every run under the baseline's SLA with those keys set",
		strings.Join(e.Labels, ", "), strings.Join(parts, "; "), example)
}

// CheckSLA returns an *SLAMismatchError naming the fields in which the runs' SLAs
// differ, or nil when they are the same. labels and slas are in run order.
func CheckSLA(labels []string, slas []plan.SLA) error {
	flat := make([]fields, len(slas))
	for i := range slas {
		flat[i] = flatten("sla", reflect.ValueOf(slas[i]))
	}
	if d := diffFields(flat); len(d) > 0 {
		return &SLAMismatchError{Labels: labels, Fields: d}
	}
	return nil
}

// ResolveSLA is base with overrides applied as --set applies them to a plan file: keys
// are SLA keys with or without the "sla." prefix (sla.ttft_ms.p95, itl_ms.p95,
// max_error_rate, think_time, goodput), values YAML values (plan.ParseSet). The SLA is
// validated as a plan's. Errors: a key outside sla.*, or a *plan.ValidationError naming
// the bad field.
func ResolveSLA(base plan.SLA, overrides map[string]any) (plan.SLA, error) {
	ov := slaKeys(base)
	for _, k := range slices.Sorted(maps.Keys(overrides)) {
		key := k
		if !strings.HasPrefix(key, "sla.") {
			key = "sla." + key
		}
		if rest := strings.TrimPrefix(key, "sla."); rest == "" || strings.HasPrefix(rest, "sla.") {
			return plan.SLA{}, fmt.Errorf("--sla %s: want an SLA key such as sla.ttft_ms.p95", k)
		}
		ov[key] = overrides[k]
	}
	p, err := plan.Load("", ov)
	if err != nil {
		return plan.SLA{}, fmt.Errorf("--sla: %w", err)
	}
	return p.SLA, nil
}

// slaKeys are spec's fields as plan overrides (sla.ttft_ms.p95 → 500, sla.think_time →
// "5s").
func slaKeys(spec plan.SLA) map[string]any {
	out := map[string]any{"sla.max_error_rate": spec.MaxErrorRate, "sla.think_time": spec.ThinkTime.String()}
	for name, m := range map[string]map[plan.Percentile]float64{"ttft_ms": spec.TTFTMs, "ttfo_ms": spec.TTFOMs,
		"itl_ms": spec.ITLMs, "e2e_ms": spec.E2EMs} {
		for stat, v := range m {
			out["sla."+name+"."+stat] = v
		}
	}
	return out
}

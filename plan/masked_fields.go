package plan

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/llmcap/llmcap/redact"
)

// MaskedFields lists the fields Redacted masks in p, as JSON paths with list indices
// ("target.url", "target.launch.command[5]", "target.extra_body.headers.Authorization"),
// sorted; none when p holds no secret outside the API key (which is never serialised
// and is resolved again on resume). run.json records them (redacted_fields) so that a
// resume knows its stored plan cannot reach the target as it is.
func (p *Plan) MaskedFields() []string {
	a, errA := jsonTree(p)
	b, errB := jsonTree(p.Redacted())
	if errA != nil || errB != nil {
		return nil
	}
	var out []string
	diffLeaves("", a, b, &out)
	sort.Strings(out)
	return out
}

// StillMasked lists the fields of p that hold the mask (redact.Mask) in place of a
// secret: of fields (a run's recorded MaskedFields) those whose value still contains
// the mask, or, for nil fields (a run.json older than redacted_fields), every string
// field that contains it. A plan with such fields would send the mask as a password or
// key; resuming needs the original plan file instead.
func (p *Plan) StillMasked(fields []string) []string {
	t, err := jsonTree(p)
	if err != nil {
		return nil
	}
	var holding []string
	eachString("", t, func(path, s string) {
		if strings.Contains(s, redact.Mask) {
			holding = append(holding, path)
		}
	})
	if fields == nil {
		sort.Strings(holding)
		return holding
	}
	var out []string
	for _, f := range fields {
		for _, h := range holding {
			if h == f || strings.HasPrefix(h, f+".") || strings.HasPrefix(h, f+"[") {
				out = append(out, f)
				break
			}
		}
	}
	return out
}

// jsonTree is p as generic JSON.
func jsonTree(p *Plan) (any, error) {
	b, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	var v any
	return v, json.Unmarshal(b, &v)
}

// diffLeaves appends the paths under path where the JSON values a and b differ, down
// to strings, numbers and lists of other lengths.
func diffLeaves(path string, a, b any, out *[]string) {
	switch x := a.(type) {
	case map[string]any:
		if y, ok := b.(map[string]any); ok {
			keys := map[string]bool{}
			for k := range x {
				keys[k] = true
			}
			for k := range y {
				keys[k] = true
			}
			for k := range keys {
				diffLeaves(joinPath(path, k), x[k], y[k], out)
			}
			return
		}
	case []any:
		if y, ok := b.([]any); ok && len(x) == len(y) {
			for i := range x {
				diffLeaves(fmt.Sprintf("%s[%d]", path, i), x[i], y[i], out)
			}
			return
		}
	}
	if !reflect.DeepEqual(a, b) {
		*out = append(*out, path)
	}
}

// eachString calls f with the path and value of every string under path in v.
func eachString(path string, v any, f func(path, s string)) {
	switch x := v.(type) {
	case string:
		f(path, x)
	case map[string]any:
		for k, e := range x {
			eachString(joinPath(path, k), e, f)
		}
	case []any:
		for i, e := range x {
			eachString(fmt.Sprintf("%s[%d]", path, i), e, f)
		}
	}
}

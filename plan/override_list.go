package plan

import (
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/spf13/viper"
	"go.yaml.in/yaml/v3"
)

// ParseSet parses one --set flag, "key=value": the key is trimmed and lower-cased (plan
// keys are), the value is YAML ("[1,2]", "30s", "true"; empty is null). Errors name the
// flag: no "=", an empty key, or a value that is not YAML.
func ParseSet(kv string) (key string, val any, err error) {
	k, v, ok := strings.Cut(kv, "=")
	if !ok || strings.TrimSpace(k) == "" {
		return "", nil, fmt.Errorf("--set %q: want key=value, e.g. ladder.duration=30s", kv)
	}
	if err := yaml.Unmarshal([]byte(v), &val); err != nil {
		return "", nil, fmt.Errorf("--set %s: value %q is not YAML: %w", k, v, err)
	}
	return strings.ToLower(strings.TrimSpace(k)), val, nil
}

// listIndexRE matches a list index in an override key: "[2]" or a ".2" path part.
var listIndexRE = regexp.MustCompile(`\[(\d+)\]|(?:^|\.)(\d+)(?:\.|$)`)

// applyOverride sets one override (a dotted key, value already decoded) on v. A key
// naming a list item, "segments[0].prompt_tokens.dist" or "segments.0.prompt_tokens.dist",
// replaces that field inside a copy of the list (viper keys cannot address list items
// themselves). It returns a problem for an index past the list's end or a key that
// descends into something that is not a map or list.
func applyOverride(v *viper.Viper, key string, val any) *FieldError {
	if slaDottedStatRE.MatchString(key) { // sla.ttft_ms.p99.9 would read as item 9 of a list
		fe := dottedStatProblem(key)
		return &fe
	}
	parts, ok := splitIndexed(key)
	if !ok {
		v.Set(key, val)
		return nil
	}
	head := parts[0].(string)
	list, err := setIn(v.Get(head), parts[1:], val, head)
	if err != nil {
		return &FieldError{Path: key, Value: formatValue(val), Allowed: err.Error()}
	}
	v.Set(head, list)
	return nil
}

// splitIndexed splits an override key with a list index into its dotted head (a
// string) followed by path parts: ints for indexes, strings for map keys. ok is false
// when the key has no index.
func splitIndexed(key string) (parts []any, ok bool) {
	loc := listIndexRE.FindStringIndex(key)
	if loc == nil || loc[0] == 0 {
		return nil, false
	}
	head := key[:loc[0]]
	parts = append(parts, head)
	rest := strings.TrimPrefix(key[loc[0]:], ".")
	for rest != "" {
		switch {
		case strings.HasPrefix(rest, "["):
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				return nil, false
			}
			n, err := strconv.Atoi(rest[1:end])
			if err != nil {
				return nil, false
			}
			parts = append(parts, n)
			rest = strings.TrimPrefix(rest[end+1:], ".")
		default:
			seg, after, _ := strings.Cut(rest, ".")
			if b := strings.IndexByte(seg, '['); b > 0 {
				seg, after = rest[:b], rest[b:]
			}
			if n, err := strconv.Atoi(seg); err == nil {
				parts = append(parts, n)
			} else {
				parts = append(parts, seg)
			}
			rest = after
		}
	}
	return parts, true
}

// setIn returns a copy of cur with val stored at path (ints index lists, strings key
// maps, missing map levels created); at names cur's path for errors.
func setIn(cur any, path []any, val any, at string) (any, error) {
	if len(path) == 0 {
		return val, nil
	}
	switch p := path[0].(type) {
	case int:
		list, ok := asList(cur)
		if !ok {
			return nil, fmt.Errorf("%s is not a list, so it has no item %d", at, p)
		}
		if p < 0 || p >= len(list) {
			return nil, fmt.Errorf("%s has %d items (indexes 0..%d); add items in the plan file, not with --set", at, len(list), len(list)-1)
		}
		out := list // a copy
		item, err := setIn(out[p], path[1:], val, fmt.Sprintf("%s[%d]", at, p))
		if err != nil {
			return nil, err
		}
		out[p] = item
		return out, nil
	default:
		key := p.(string)
		m := map[string]any{}
		if cur != nil {
			c, ok := asMap(cur)
			if !ok {
				return nil, fmt.Errorf("%s is not a map, so it has no key %q", at, key)
			}
			m = c
		}
		sub, err := setIn(m[key], path[1:], val, at+"."+key)
		if err != nil {
			return nil, err
		}
		m[key] = sub
		return m, nil
	}
}

// asList is a copy of cur as []any when it is a slice of any element type (a default
// list is typed, e.g. []string; one read from YAML is []any).
func asList(cur any) ([]any, bool) {
	if l, ok := cur.([]any); ok {
		return append([]any(nil), l...), true
	}
	rv := reflect.ValueOf(cur)
	if rv.Kind() != reflect.Slice {
		return nil, false
	}
	out := make([]any, rv.Len())
	for i := range out {
		out[i] = rv.Index(i).Interface()
	}
	return out, true
}

// asMap is a copy of cur as map[string]any when it is a map with string keys.
func asMap(cur any) (map[string]any, bool) {
	rv := reflect.ValueOf(cur)
	if rv.Kind() != reflect.Map || rv.Type().Key().Kind() != reflect.String {
		return nil, false
	}
	out := make(map[string]any, rv.Len())
	for it := rv.MapRange(); it.Next(); {
		out[it.Key().String()] = it.Value().Interface()
	}
	return out, true
}

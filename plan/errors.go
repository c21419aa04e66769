package plan

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-viper/mapstructure/v2"
)

// FieldError is one problem with one field of a plan.
type FieldError struct {
	// Path is the field's dotted path as written in YAML, with list indexes:
	// "segments[2].prompt_tokens.mean". Empty for the whole plan.
	Path string
	// Value is the offending value as shown to the user (already formatted), e.g. "-5".
	Value string
	// Allowed says what is allowed instead, e.g. "must be > 0".
	Allowed string
}

// Error formats the problem as "path: value is not allowed: allowed", or "path:
// allowed" when Value is empty (Allowed then says it all).
func (e FieldError) Error() string {
	path := e.Path
	if path == "" {
		path = "(plan)"
	}
	if e.Value == "" {
		return fmt.Sprintf("%s: %s", path, e.Allowed)
	}
	return fmt.Sprintf("%s: %s is not allowed: %s", path, e.Value, e.Allowed)
}

// ValidationError lists every problem found in a plan, in field order.
type ValidationError struct {
	// File is the config file the plan came from ("" when built in code).
	File string
	// Problems are the individual field problems (at least one).
	Problems []FieldError
}

// Error lists every problem, one per line.
func (e *ValidationError) Error() string {
	var b strings.Builder
	if e.File != "" {
		fmt.Fprintf(&b, "%s: ", e.File)
	}
	fmt.Fprintf(&b, "invalid plan (%d problem", len(e.Problems))
	if len(e.Problems) != 1 {
		b.WriteString("s")
	}
	b.WriteString("):")
	for _, p := range e.Problems {
		b.WriteString("\n  ")
		b.WriteString(p.Error())
	}
	return b.String()
}

// Has reports whether some problem is about exactly path.
func (e *ValidationError) Has(path string) bool {
	for _, p := range e.Problems {
		if p.Path == path {
			return true
		}
	}
	return false
}

// SyntaxError is a config file that is not valid YAML; Line is 1-based (0 when unknown).
type SyntaxError struct {
	File string
	Line int
	Msg  string
}

// Error formats the error as "file:line: msg".
func (e *SyntaxError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: YAML syntax error: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: YAML syntax error: %s", e.File, e.Msg)
}

var yamlLineRE = regexp.MustCompile(`line (\d+)(?::\s*)?`)

// newSyntaxError extracts the line number from a go.yaml.in/yaml/v3 message
// ("yaml: line 3: mapping values are not allowed in this context").
func newSyntaxError(file string, err error) *SyntaxError {
	msg := err.Error()
	if i := strings.Index(msg, "yaml: "); i >= 0 {
		msg = msg[i+len("yaml: "):]
	}
	se := &SyntaxError{File: file, Msg: msg}
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		se.Line, _ = strconv.Atoi(m[1])
		se.Msg = strings.TrimSpace(strings.Replace(msg, m[0], "", 1))
	}
	return se
}

// problems collects FieldErrors.
type problems []FieldError

func (ps *problems) add(path string, value any, allowed string, args ...any) {
	*ps = append(*ps, FieldError{Path: path, Value: formatValue(value), Allowed: fmt.Sprintf(allowed, args...)})
}

// raw is a value description shown as is (not quoted) in a FieldError.
type raw string

// formatValue renders a bad value for a message: strings quoted, raw as is, others
// with %v.
func formatValue(v any) string {
	switch x := v.(type) {
	case raw:
		return string(x)
	case string:
		return strconv.Quote(x)
	case nil:
		return "null"
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	default:
		return fmt.Sprintf("%v", v)
	}
}

// decodeProblems maps a mapstructure decode error tree (unknown keys, wrong types) into
// field-path problems. Errors it cannot map are returned as plan-level problems.
func decodeProblems(err error) problems {
	var out problems
	var walk func(error)
	walk = func(e error) {
		if e == nil {
			return
		}
		switch x := e.(type) {
		case *mapstructure.DecodeError:
			out = append(out, decodeProblem(x)...)
		case interface{ Unwrap() []error }: // errors.Join
			for _, c := range x.Unwrap() {
				walk(c)
			}
		case interface{ Unwrap() error }: // fmt.Errorf("...%w")
			walk(x.Unwrap())
		default:
			out.add("", e.Error(), "the config must decode into the plan schema")
		}
	}
	walk(err)
	return out
}

// decodeProblem turns one DecodeError into problems.
func decodeProblem(de *mapstructure.DecodeError) problems {
	var out problems
	name := de.Name()
	if name == reflect.TypeOf(Plan{}).String() { // mapstructure names the root by its type
		name = ""
	}
	name = yamlPath(name)
	inner := de.Unwrap()
	msg := inner.Error()
	if keys, ok := strings.CutPrefix(msg, "has invalid keys: "); ok {
		known := knownKeys(name)
		for _, k := range strings.Split(keys, ", ") {
			hint := ""
			if m := nearest(k, strings.Split(known, ", ")); m != "" {
				hint = "did you mean " + m + "? "
			}
			out.add(joinPath(name, k), raw("unknown key "+strconv.Quote(k)), "%sknown keys here are %s", hint, known)
		}
		return out
	}
	var pe *mapstructure.ParseError
	var ue *mapstructure.UnconvertibleTypeError
	var se *ShortFormError
	switch {
	case errors.As(inner, &se):
		if se.Key != "" {
			name = joinPath(name, se.Key)
		}
		out.add(name, se.Value, "%v", se.Err)
	case errors.As(inner, &ue) && dottedStat(name, ue.Value) != "":
		out = append(out, dottedStatProblem(name[:strings.LastIndex(name, ".")+1]+dottedStat(name, ue.Value)))
	case errors.As(inner, &pe):
		out.add(name, pe.Value, "must be %s", typeWord(pe.Expected.Type()))
	case errors.As(inner, &ue):
		out.add(name, ue.Value, "must be %s", typeWord(ue.Expected.Type()))
	case strings.Contains(msg, errNotInteger):
		out.add(name, raw(msg[strings.Index(msg, errNotInteger)+len(errNotInteger):]), "must be an integer")
	case strings.Contains(msg, errTooLarge):
		out.add(name, raw(msg[strings.Index(msg, errTooLarge)+len(errTooLarge):]),
			"must be an integer far below %d (a 64-bit integer; the field's own limit is lower)", int64(math.MaxInt64))
	case notMappingRE.MatchString(msg):
		got := notMappingRE.FindStringSubmatch(msg)[1]
		out.add(name, raw("a "+got), "must be a mapping (key: value) with the keys %s", knownKeys(name))
	case strings.Contains(msg, "time: no unit: "):
		n := msg[strings.Index(msg, "time: no unit: ")+len("time: no unit: "):]
		out.add(name, raw(""), "%s has no unit: write e.g. %q (units: ms, s, m, h)", n, n+"s")
	case strings.Contains(msg, "time: "):
		out.add(name, raw(strings.TrimPrefix(msg, "time: ")), "must be a duration such as 500ms, 30s or 2m")
	default:
		out.add(name, msg, "must match the plan schema")
	}
	return out
}

func joinPath(base, key string) string {
	if base == "" {
		return key
	}
	return base + "." + key
}

// typeWord names a Go type the way a YAML author thinks of it.
func typeWord(t reflect.Type) string {
	if t == reflect.TypeOf(time.Duration(0)) {
		return "a duration such as 500ms, 30s or 2m"
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "a string"
	case reflect.Slice:
		return "a list of " + strings.TrimPrefix(typeWord(t.Elem()), "a ")
	case reflect.Map:
		if t == reflect.TypeOf(map[Percentile]float64(nil)) { // an SLA metric's thresholds
			return "a mapping of statistic to ms, e.g. {p95: 500}"
		}
		return "a mapping"
	case reflect.Struct, reflect.Pointer:
		return "a mapping (key: value)"
	}
	return t.String()
}

var indexRE = regexp.MustCompile(`\[\d+\]`)

// knownKeys lists the YAML keys of the struct at the dotted path (indexes ignored).
func knownKeys(path string) string {
	t := reflect.TypeOf(Plan{})
	if path != "" {
		for _, part := range strings.Split(indexRE.ReplaceAllString(path, ""), ".") {
			t = fieldType(t, part)
			if t == nil {
				return "(see plan/schema.go)"
			}
		}
	}
	t = derefElem(t)
	if t.Kind() != reflect.Struct {
		return "(see plan/schema.go)"
	}
	var keys []string
	for i := 0; i < t.NumField(); i++ {
		tag := strings.Split(t.Field(i).Tag.Get("mapstructure"), ",")[0]
		if tag != "" && tag != "-" {
			keys = append(keys, tag)
		}
	}
	sort.Strings(keys)
	return strings.Join(keys, ", ")
}

// derefElem strips pointers and slices down to the element type.
func derefElem(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	return t
}

// fieldType returns the type of the field tagged key in struct t (through pointers/slices).
func fieldType(t reflect.Type, key string) reflect.Type {
	t = derefElem(t)
	if t.Kind() != reflect.Struct {
		return nil
	}
	for i := 0; i < t.NumField(); i++ {
		if strings.Split(t.Field(i).Tag.Get("mapstructure"), ",")[0] == key {
			return t.Field(i).Type
		}
	}
	return nil
}

// slaStatRE matches an SLA latency map's statistic key path, e.g. sla.ttft_ms.p99.
var slaStatRE = regexp.MustCompile(`^sla\.(ttft|ttfo|itl|e2e)_ms\.p\d+$`)

// dottedStat is the percentile key a plan gave with a dot, such as "p99.9", which the
// loader split at the dot into p99: {9: …} (a mapping where the threshold should be):
// name is the statistic's path and v its decoded value. "" when it is not one.
func dottedStat(name string, v any) string {
	if !slaStatRE.MatchString(name) {
		return ""
	}
	key, split := name[strings.LastIndex(name, ".")+1:], false
	for m, ok := v.(map[string]any); ok && len(m) == 1; m, ok = v.(map[string]any) {
		for k, inner := range m {
			if k == "" || strings.Trim(k, "0123456789") != "" {
				return ""
			}
			key, v, split = key+"."+k, inner, true
		}
	}
	if !split {
		return ""
	}
	return key
}

// slaDottedStatRE matches an SLA statistic path whose key holds a dot, e.g.
// sla.ttft_ms.p99.9 (an override key; in a file the loader splits it: dottedStat).
var slaDottedStatRE = regexp.MustCompile(`^sla\.(ttft|ttfo|itl|e2e)_ms\.(p\d+(?:\.\d+)+)$`)

// dottedStatProblem is the problem of the SLA statistic path (sla.ttft_ms.p99.9) whose
// key holds a dot: no statistic does, and the loader splits keys at dots.
func dottedStatProblem(path string) FieldError {
	key := slaDottedStatRE.ReplaceAllString(path, "$2")
	return FieldError{Path: path, Allowed: fmt.Sprintf("%s is not a statistic: use one of %s (keys with dots are split by the loader)",
		key, strings.Join(Stats, ", "))}
}

package compare

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/llmcap/llmcap/plan"
)

// absent is how a field a run's plan does not set is shown.
const absent = "–"

// planDiff lists the fields whose values differ between plans, in the baseline's field
// order (then the fields only later plans set): each field's path as the plan file
// writes it (target.simulator.max_num_seqs, segments[0].output_tokens.value,
// target.launch.command) and each plan's value as text. A plan's fields that do not
// apply to it are left out (shown "–"): target.simulator.* when its target is not the
// simulator (an imported or HTTP run carries the default simulator block), and a
// distribution's parameters that its kind does not use (distFields).
func planDiff(plans []*plan.Plan) []FieldDiff {
	flat := make([]fields, len(plans))
	for i, p := range plans {
		flat[i] = fields{vals: map[string]string{}, simulator: p.Target.IsSimulator()}
		flat[i].walk("", reflect.ValueOf(p).Elem())
	}
	return diffFields(flat)
}

// simulatorPath is the plan's simulator block, which applies only to simulator runs.
const simulatorPath = "target.simulator"

var distType = reflect.TypeOf(plan.Dist{})

// distFields are the fields (YAML names) a distribution of kind uses, as plan's
// validation reads them; nil for an unknown kind (every field is shown).
func distFields(kind string) []string {
	switch kind {
	case plan.DistFixed:
		return []string{"dist", "value"}
	case plan.DistUniform:
		return []string{"dist", "min", "max"}
	case plan.DistNormal, plan.DistLognormal:
		return []string{"dist", "mean", "stddev", "min", "max"}
	case plan.DistEmpirical:
		return []string{"dist", "file", "column"}
	}
	return nil
}

// diffFields compares flattened plans field by field.
func diffFields(flat []fields) []FieldDiff {
	var order []string
	seen := map[string]bool{}
	for _, f := range flat {
		for _, k := range f.keys {
			if !seen[k] {
				seen[k] = true
				order = append(order, k)
			}
		}
	}
	out := []FieldDiff{}
	for _, k := range order {
		vals := make([]string, len(flat))
		same := true
		for i, f := range flat {
			v, ok := f.vals[k]
			if !ok {
				v = absent
			}
			vals[i] = v
			same = same && v == vals[0]
		}
		if !same {
			out = append(out, FieldDiff{Path: k, Values: vals})
		}
	}
	return out
}

// fields is a flattened plan: each leaf's path in order and its value as text;
// simulator says the plan's target is the simulator (else target.simulator.* is left
// out).
type fields struct {
	keys      []string
	vals      map[string]string
	simulator bool
}

// flatten turns v (a plan or a part of it at prefix) into its leaves.
func flatten(prefix string, v reflect.Value) fields {
	f := fields{vals: map[string]string{}, simulator: true}
	f.walk(prefix, v)
	return f
}

func (f *fields) put(path, val string) {
	if _, ok := f.vals[path]; !ok {
		f.keys = append(f.keys, path)
	}
	f.vals[path] = val
}

var durationType = reflect.TypeOf(time.Duration(0))

// walk adds v's leaves under path: a struct's fields by their YAML names, a map's
// entries by key (sorted), a list of scalars as one value, a list of structures item
// by item (path[i]); an empty string and a nil pointer are not set.
func (f *fields) walk(path string, v reflect.Value) {
	if path == simulatorPath && !f.simulator {
		return
	}
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return
		}
		v = v.Elem()
	}
	if s, ok := scalarText(v); ok {
		if s != "" {
			f.put(path, s)
		}
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		f.walkStruct(path, v)
	case reflect.Map:
		keys := v.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
		for _, k := range keys {
			f.walk(join(path, fmt.Sprint(k)), v.MapIndex(k))
		}
	case reflect.Slice, reflect.Array:
		f.walkList(path, v)
	}
}

func (f *fields) walkStruct(path string, v reflect.Value) {
	t := v.Type()
	var only []string // a distribution's own fields
	if t == distType {
		only = distFields(v.Interface().(plan.Dist).Kind)
	}
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		name := fieldName(sf)
		switch {
		case only != nil && !slices.Contains(only, name):
			continue
		case name == "-":
			continue
		case sf.Anonymous && name == "":
			f.walk(path, v.Field(i))
		default:
			f.walk(join(path, name), v.Field(i))
		}
	}
}

// walkList adds a list: scalars as one value ("[1, 16, 32, 64]"; a command as its words
// joined by spaces), structures item by item.
func (f *fields) walkList(path string, v reflect.Value) {
	if v.Len() == 0 {
		return
	}
	var words []string
	for i := 0; i < v.Len(); i++ {
		e := v.Index(i)
		for (e.Kind() == reflect.Interface || e.Kind() == reflect.Pointer) && !e.IsNil() {
			e = e.Elem()
		}
		s, ok := scalarText(e)
		if !ok {
			for j := 0; j < v.Len(); j++ {
				f.walk(fmt.Sprintf("%s[%d]", path, j), v.Index(j))
			}
			return
		}
		words = append(words, s)
	}
	if strings.HasSuffix(path, "command") {
		f.put(path, strings.Join(words, " "))
		return
	}
	f.put(path, "["+strings.Join(words, ", ")+"]")
}

// scalarText is a scalar's text (a duration as "30s"); ok is false for a structure.
func scalarText(v reflect.Value) (string, bool) {
	if v.Type() == durationType {
		return time.Duration(v.Int()).String(), true
	}
	switch v.Kind() {
	case reflect.String:
		return v.String(), true
	case reflect.Bool:
		return strconv.FormatBool(v.Bool()), true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.FormatUint(v.Uint(), 10), true
	case reflect.Float32, reflect.Float64:
		return strconv.FormatFloat(v.Float(), 'g', -1, 64), true
	}
	return "", false
}

// fieldName is a struct field's key in the plan file: its yaml (else mapstructure)
// tag's name; "-" for a field that is never written (the API key); "" for an embedded
// struct without a name (its fields are inlined).
func fieldName(sf reflect.StructField) string {
	if j := sf.Tag.Get("json"); j == "-" {
		return "-"
	}
	for _, key := range []string{"yaml", "mapstructure"} {
		if tag, ok := sf.Tag.Lookup(key); ok {
			name, _, _ := strings.Cut(tag, ",")
			if name != "" || sf.Anonymous {
				return name
			}
		}
	}
	if sf.Anonymous {
		return ""
	}
	return strings.ToLower(sf.Name)
}

func join(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}

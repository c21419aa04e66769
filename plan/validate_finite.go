package plan

import (
	"fmt"
	"math"
	"net/url"
	"reflect"
	"sort"
	"strings"
)

// checkFinite reports every NaN or ±Inf number of the plan (YAML's .nan and .inf):
// weights, distribution parameters, rates, SLA thresholds, scales, fractions and the
// numbers inside target.extra_body. No rule can judge such a value (every comparison
// with NaN is false) and the run directory's JSON cannot hold it, so each is a problem
// at its field path, and the other checks' problems at the same path are dropped.
func (p *Plan) checkFinite(ps *problems) {
	finiteWalk(ps, "", reflect.ValueOf(p).Elem())
}

// finiteWalk visits v (a struct, slice, map, pointer, interface or number) at path.
func finiteWalk(ps *problems, path string, v reflect.Value) {
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		if f := v.Float(); math.IsNaN(f) || math.IsInf(f, 0) {
			ps.add(path, f, "must be a finite number")
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			finiteWalk(ps, path, v.Elem())
		}
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			tag := strings.Split(t.Field(i).Tag.Get("mapstructure"), ",")[0]
			if tag == "" || tag == "-" || !t.Field(i).IsExported() {
				continue
			}
			finiteWalk(ps, joinPath(path, tag), v.Field(i))
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			finiteWalk(ps, fmt.Sprintf("%s[%d]", path, i), v.Index(i))
		}
	case reflect.Map:
		keys := make([]string, 0, v.Len())
		byKey := map[string]reflect.Value{}
		for it := v.MapRange(); it.Next(); {
			k := fmt.Sprint(it.Key().Interface())
			keys = append(keys, k)
			byKey[k] = it.Value()
		}
		sort.Strings(keys)
		for _, k := range keys {
			finiteWalk(ps, joinPath(path, k), byKey[k])
		}
	}
}

// checkPort refuses a URL whose explicit port is not 1..65535 (PortPattern; url.Parse
// accepts any digits there).
func checkPort(ps *problems, path, raw string) {
	u, err := url.Parse(raw)
	if err != nil || u.Port() == "" {
		return
	}
	if !portRE.MatchString(u.Port()) {
		ps.add(path, redactURL(raw), "must have a port between 1 and 65535 (not %s)", u.Port())
	}
}

package analysis

import (
	"math"
	"reflect"
)

// sanitizeFloats replaces NaN and ±Inf in every float field reachable from v (a
// pointer) with 0, so analysis.json always encodes: encoding/json rejects them.
// It returns how many values it replaced.
func sanitizeFloats(v any) int {
	return sanitizeValue(reflect.ValueOf(v))
}

func sanitizeValue(v reflect.Value) int {
	n := 0
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			n += sanitizeValue(v.Elem())
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				n += sanitizeValue(v.Field(i))
			}
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			n += sanitizeValue(v.Index(i))
		}
	case reflect.Map:
		if v.Type().Elem().Kind() == reflect.Float64 {
			for _, k := range v.MapKeys() {
				if f := v.MapIndex(k).Float(); math.IsNaN(f) || math.IsInf(f, 0) {
					v.SetMapIndex(k, reflect.ValueOf(0.0))
					n++
				}
			}
		}
	case reflect.Float64, reflect.Float32:
		if f := v.Float(); (math.IsNaN(f) || math.IsInf(f, 0)) && v.CanSet() {
			v.SetFloat(0)
			n++
		}
	}
	return n
}

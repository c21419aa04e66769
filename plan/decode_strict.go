package plan

import (
	"fmt"
	"math"
	"reflect"
	"regexp"
	"time"
)

// errNotInteger is the message prefix of integralHook's error, read by decodeProblem.
const errNotInteger = "not an integer: "

// integralHook refuses a number with a fraction (or NaN/Inf) for an integer field:
// mapstructure would truncate concurrency: [1.5] to 1 without a word.
func integralHook(_ reflect.Type, t reflect.Type, data any) (any, error) {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
	default:
		return data, nil
	}
	if t == reflect.TypeOf(time.Duration(0)) {
		return data, nil
	}
	var f float64
	switch x := data.(type) {
	case float64:
		f = x
	case float32:
		f = float64(x)
	default:
		return data, nil
	}
	if math.IsNaN(f) || math.IsInf(f, 0) || f != math.Trunc(f) {
		return nil, fmt.Errorf("%s%g", errNotInteger, f)
	}
	return data, nil
}

// mapKeyRE matches mapstructure's name of a map element, "sla.e2e_ms[p99]", whose key
// is not a list index; the plan writes it as a dotted path, "sla.e2e_ms.p99".
var mapKeyRE = regexp.MustCompile(`\[([^\]0-9][^\]]*)\]`)

// yamlPath turns a mapstructure field name into the plan's dotted path.
func yamlPath(name string) string { return mapKeyRE.ReplaceAllString(name, ".$1") }

// notMappingRE matches mapstructure's error for a scalar or list where a section is due.
var notMappingRE = regexp.MustCompile(`expected a map or struct, got "(\w+)"`)

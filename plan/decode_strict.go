package plan

import (
	"fmt"
	"math"
	"reflect"
	"regexp"
	"strconv"
	"time"
)

// errNotInteger and errTooLarge are the message prefixes of integralHook's errors,
// read by decodeProblem.
const (
	errNotInteger = "not an integer: "
	errTooLarge   = "too large for an integer: "
)

// integralHook refuses a number with a fraction (or NaN/Inf) for an integer field:
// mapstructure would truncate concurrency: [1.5] to 1 without a word. It also refuses
// a number past the int64 range (9223372036854775808, 1e30), which mapstructure would
// wrap to a negative one; the message shows it as written.
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
	case uint64:
		if x > math.MaxInt64 && t.Kind() != reflect.Uint64 && t.Kind() != reflect.Uint {
			return nil, fmt.Errorf("%s%d", errTooLarge, x)
		}
		return data, nil
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
	if f >= math.MaxInt64 || f < math.MinInt64 { // float64(MaxInt64) is 2^63, already past it
		return nil, fmt.Errorf("%s%s", errTooLarge, strconv.FormatFloat(f, 'g', -1, 64))
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

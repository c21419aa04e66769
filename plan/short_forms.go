package plan

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// The short forms a plan file may write for a distribution and a warm-up, as the
// one-off flags take them (--isl/--osl, --warmup); shortFormHook turns each into the
// mapping form before decoding.

// ShortFormError is a short form that does not parse: Key is the key under the
// decoded field that holds it ("" for the field itself), Value the text as written.
type ShortFormError struct {
	Key, Value string
	Err        error
}

func (e *ShortFormError) Error() string { return e.Err.Error() }
func (e *ShortFormError) Unwrap() error { return e.Err }

var (
	distType      = reflect.TypeOf(Dist{})
	warmupType    = reflect.TypeOf(Warmup{})
	multiTurnType = reflect.TypeOf(MultiTurn{})
	driftType     = reflect.TypeOf(Drift{})
)

// shortFormHook is the decode hook of the short forms: a token-count Dist written as
// a number or a ParseLengthSpec string, a think_time_s (seconds) as a number or
// "mean±sd", a Warmup as a request count or a duration, the drift section as true (the
// probe with its defaults) or false (none). Other data passes unchanged.
func shortFormHook(_ reflect.Type, t reflect.Type, data any) (any, error) {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t {
	case distType:
		return tokenDistForm(data)
	case multiTurnType:
		return thinkTimeForm(data)
	case warmupType:
		return warmupForm(data)
	case driftType:
		return driftForm(data)
	}
	return data, nil
}

// driftForm maps drift: true to the section with its defaults and drift: false to none.
// (also the strings "true" and "false", as the environment writes them).
func driftForm(data any) (any, error) {
	b, ok := data.(bool)
	if s, isStr := data.(string); isStr {
		var err error
		b, err = strconv.ParseBool(s)
		ok = err == nil
	}
	switch {
	case !ok:
		return data, nil
	case b:
		return map[string]any{}, nil
	}
	return (*Drift)(nil), nil
}

// tokenDistForm maps 512 and "512", "512±64", "512+-64", "uniform:min=1,max=9" to a
// Dist mapping, as ParseLengthSpec reads them.
func tokenDistForm(data any) (any, error) {
	if n, ok := number(data); ok {
		return Dist{Kind: DistFixed, Value: n}.OverrideValue(), nil
	}
	s, ok := data.(string)
	if !ok {
		return data, nil
	}
	d, err := ParseLengthSpec(s)
	if err != nil {
		reason := strings.TrimPrefix(err.Error(), strconv.Quote(strings.TrimSpace(s))+": ")
		return nil, &ShortFormError{Value: s, Err: fmt.Errorf("%s (want %s, or a mapping such as {dist: fixed, value: 512})", reason, LengthSpecForm)}
	}
	return d.OverrideValue(), nil
}

// thinkTimeForm rewrites a multi_turn mapping's think_time_s short form (seconds: 5,
// "5", "5±2", "5+-2") as a Dist mapping; "5±2" is normal with mean 5 s and standard
// deviation 2 s, unclamped (sd 0 is fixed).
func thinkTimeForm(data any) (any, error) {
	m, ok := data.(map[string]any)
	if !ok {
		return data, nil
	}
	v, ok := m["think_time_s"]
	if !ok {
		return data, nil
	}
	var d Dist
	if n, isNum := number(v); isNum {
		d = Dist{Kind: DistFixed, Value: n}
	} else if s, isStr := v.(string); isStr {
		var err error
		if d, err = parseSeconds(s); err != nil {
			reason := strings.TrimPrefix(err.Error(), strconv.Quote(strings.TrimSpace(s))+": ")
			return nil, &ShortFormError{Key: "think_time_s", Value: s, Err: errors.New(reason)}
		}
	} else {
		return data, nil
	}
	out := make(map[string]any, len(m))
	for k, x := range m {
		out[k] = x
	}
	out["think_time_s"] = d.OverrideValue()
	return out, nil
}

// parseSeconds parses a seconds distribution's short form: "5" fixed, "5±2" or "5+-2"
// normal, a ParseDist spec when it holds ":".
func parseSeconds(s string) (Dist, error) {
	const want = "want seconds (5), mean±sd (5±2: normal) or a distribution such as uniform:min=1,max=9"
	s = strings.TrimSpace(s)
	if strings.Contains(s, ":") {
		return ParseDist(s)
	}
	meanText, sdText, spread := cutSpread(s)
	mean, err := strconv.ParseFloat(strings.TrimSpace(meanText), 64)
	if err != nil || mean < 0 || math.IsInf(mean, 0) {
		return Dist{}, fmt.Errorf("%q: %s", s, want)
	}
	if !spread {
		return Dist{Kind: DistFixed, Value: mean}, nil
	}
	sd, err := strconv.ParseFloat(strings.TrimSpace(sdText), 64)
	if err != nil || sd < 0 || math.IsInf(sd, 0) {
		return Dist{}, fmt.Errorf("%q: the standard deviation after ± must be a number of seconds >= 0", s)
	}
	if sd == 0 {
		return Dist{Kind: DistFixed, Value: mean}, nil
	}
	return Dist{Kind: DistNormal, Mean: mean, StdDev: sd}, nil
}

// WarmupForm says what a warm-up's short form is (for error messages).
const WarmupForm = `a request count (10), a duration (5s), 0 for none, or a mapping such as {requests: 10, duration: 5s}`

// warmupForm maps a warm-up written as a whole number (requests) or a duration string
// to its mapping, as --warmup reads them: 10 and "10" are {requests: 10}, "5s" is
// {duration: 5s}.
func warmupForm(data any) (any, error) {
	if n, ok := number(data); ok {
		if n < 0 || n != math.Trunc(n) {
			return nil, &ShortFormError{Value: strconv.FormatFloat(n, 'g', -1, 64), Err: fmt.Errorf("want %s", WarmupForm)}
		}
		return map[string]any{"requests": data}, nil
	}
	s, ok := data.(string)
	if !ok {
		return data, nil
	}
	w := strings.TrimSpace(s)
	if n, err := strconv.Atoi(w); err == nil && n >= 0 {
		return map[string]any{"requests": n}, nil
	}
	if d, err := time.ParseDuration(w); err == nil && d >= 0 {
		return map[string]any{"duration": w}, nil
	}
	return nil, &ShortFormError{Value: s, Err: fmt.Errorf("want %s", WarmupForm)}
}

// number is data as a float64 when it is a YAML number.
func number(data any) (float64, bool) {
	switch rv := reflect.ValueOf(data); rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return float64(rv.Int()), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return float64(rv.Uint()), true
	case reflect.Float32, reflect.Float64:
		return rv.Float(), true
	}
	return 0, false
}

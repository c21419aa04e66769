package plan

import (
	"maps"
	"reflect"
	"strings"
)

// KeyDefaults returns the default of every plan key that has one, by dotted key with
// list items written "[]" ("segments[].trace.time_scale"), as Load applies it: the
// defaults table (defaultValues) and the defaults filled after decoding into lists and
// optional sections (fillDerived), read off plans that hold every optional section.
// Values are Go values (time.Duration, float64, []string, …). derived names the keys
// whose default depends on other keys (target.model follows the simulator's model
// only for the simulator; capture.mode is launch with target.launch, else session);
// their value is the one of a simulator plan with target.launch set. For the config
// reference (plan/planref); Load does not use it.
func KeyDefaults() (values map[string]any, derived map[string]bool) {
	withAll := skeleton()
	withAll.fillDerived()
	other := skeleton()
	other.Target.URL = "http://127.0.0.1:8000/v1"
	other.Target.Launch = nil
	other.fillDerived()
	plain := Default()

	a, b, base := map[string]any{}, map[string]any{}, map[string]any{}
	walkKeys(reflect.ValueOf(*withAll), "", a)
	// The tune section's defaults, from a plan with one (a tune plan's target.model has
	// no default: the skeleton above leaves tune out).
	withTune := skeleton()
	withTune.Tune = &Tune{Space: []TuneParam{{}}, Objectives: []TuneObjective{{}}}
	withTune.fillDerived()
	tuneKeys := map[string]any{}
	walkKeys(reflect.ValueOf(*withTune.Tune), "tune", tuneKeys)
	maps.Copy(a, tuneKeys)
	walkKeys(reflect.ValueOf(*other), "", b)
	walkKeys(reflect.ValueOf(*plain), "", base)
	values, derived = map[string]any{}, map[string]bool{}
	for k, v := range a {
		if in, ok := base[k]; ok && skeletonInput[k] {
			v = in
		}
		if _, table := defaultValues()[k]; !table && reflect.ValueOf(v).IsZero() {
			continue
		}
		values[k] = v
		if w, ok := b[k]; ok && !reflect.DeepEqual(v, w) && !skeletonInput[k] {
			derived[k] = true
		}
	}
	// The window's default applies only when neither ladder.duration nor
	// ladder.requests is given (fillLadderDefaults).
	values["ladder.duration"], derived["ladder.duration"] = DefaultStepDuration, true
	return values, derived
}

// skeletonInput are the keys skeleton sets to reach the defaults behind them; their
// own defaults are Default()'s.
var skeletonInput = map[string]bool{"capture.enabled": true, "target.url": true}

// skeleton is the defaults plus one segment and every optional section, present and
// empty, so fillDerived fills the defaults inside them.
func skeleton() *Plan {
	p := Default()
	p.Segments = []Segment{{MultiTurn: &MultiTurn{}, Trace: &Trace{}}}
	p.Target.Launch = &Launch{}
	p.Target.Simulator.OutputTokens = &Dist{}
	p.Ladder.Search = &Search{}
	p.Capture.Enabled = true
	p.Capture.Steps = []CaptureStep{{}}
	p.Drift = &Drift{}
	return p
}

// walkKeys stores the value of every leaf key under v (a struct) in out; a list of
// structs contributes its first item as "key[]", a nil pointer nothing.
func walkKeys(v reflect.Value, prefix string, out map[string]any) {
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		tag, _, _ := strings.Cut(t.Field(i).Tag.Get("mapstructure"), ",")
		if tag == "" || tag == "-" {
			continue
		}
		key := joinPath(prefix, tag)
		f := v.Field(i)
		if f.Kind() == reflect.Pointer {
			if f.IsNil() {
				continue
			}
			f = f.Elem()
		}
		switch {
		case f.Kind() == reflect.Struct:
			walkKeys(f, key, out)
		case f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.Struct:
			if f.Len() > 0 {
				walkKeys(f.Index(0), key+"[]", out)
			}
		default:
			out[key] = f.Interface()
		}
	}
}

package plan

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ExpectedMean is the distribution's expected value, used for wall-time estimates.
// Empirical distributions (whose values are in a file) return fallback; clamping to
// [min, max] is approximated by clamping the mean.
func (d Dist) ExpectedMean(fallback float64) float64 {
	var m float64
	switch d.Kind {
	case DistFixed:
		return d.Value
	case DistUniform:
		return (d.Min + d.Max) / 2
	case DistNormal, DistLognormal:
		m = d.Mean
	default:
		return fallback
	}
	if d.Min > 0 {
		m = math.Max(m, d.Min)
	}
	if d.Max > 0 {
		m = math.Min(m, d.Max)
	}
	return m
}

// String renders the distribution compactly, e.g. "lognormal(mean=200,stddev=80)".
func (d Dist) String() string {
	switch d.Kind {
	case DistFixed:
		return fmt.Sprintf("fixed(%g)", d.Value)
	case DistUniform:
		return fmt.Sprintf("uniform(%g..%g)", d.Min, d.Max)
	case DistNormal, DistLognormal:
		return fmt.Sprintf("%s(mean=%g,stddev=%g)", d.Kind, d.Mean, d.StdDev)
	case DistEmpirical:
		return fmt.Sprintf("empirical(%s:%s)", d.File, d.Column)
	}
	return d.Kind
}

// ParseDist parses a compact distribution spec as used on the command line:
// "128" or "fixed:128", "uniform:min=10,max=100", "normal:mean=200,stddev=50,min=1",
// "lognormal:mean=200,stddev=80", "empirical:file=lengths.csv,column=output".
// The result is not validated; call Validate on the plan holding it.
func ParseDist(spec string) (Dist, error) {
	spec = strings.TrimSpace(spec)
	if v, err := strconv.ParseFloat(spec, 64); err == nil {
		return Dist{Kind: DistFixed, Value: v}, nil
	}
	kind, args, _ := strings.Cut(spec, ":")
	d := Dist{Kind: kind}
	if kind == DistFixed {
		v, err := strconv.ParseFloat(args, 64)
		if err != nil {
			return Dist{}, fmt.Errorf("distribution %q: fixed needs a number: %w", spec, err)
		}
		d.Value = v
		return d, nil
	}
	if args == "" {
		return Dist{}, fmt.Errorf("distribution %q: want KIND:key=value,... (kinds: %s)", spec, strings.Join(DistKinds, ", "))
	}
	for _, kv := range strings.Split(args, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return Dist{}, fmt.Errorf("distribution %q: %q is not key=value", spec, kv)
		}
		if err := d.set(strings.TrimSpace(k), strings.TrimSpace(v)); err != nil {
			return Dist{}, fmt.Errorf("distribution %q: %w", spec, err)
		}
	}
	return d, nil
}

func (d *Dist) set(k, v string) error {
	switch k {
	case "file":
		d.File = v
		return nil
	case "column":
		d.Column = v
		return nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return fmt.Errorf("%s: %w", k, err)
	}
	switch k {
	case "value":
		d.Value = f
	case "mean":
		d.Mean = f
	case "stddev":
		d.StdDev = f
	case "min":
		d.Min = f
	case "max":
		d.Max = f
	default:
		return fmt.Errorf("unknown key %q (want value, mean, stddev, min, max, file, column)", k)
	}
	return nil
}

package plan

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// LengthSpecForm says what ParseLengthSpec accepts (for error messages).
const LengthSpecForm = `a whole number of tokens (512: fixed), mean±sd or mean+-sd (512±64: normal, at least 1), ` +
	`or a distribution such as uniform:min=16,max=48`

// ParseLengthSpec parses a token-length spec as --isl and --osl take it: "512" is
// fixed at 512 tokens; "512±64" (or "512+-64") is normal with mean 512 and standard
// deviation 64, clamped below at 1 token (sd 0 is fixed); anything else with a ":"
// goes to ParseDist ("uniform:min=16,max=48"). Means and fixed values must be whole
// numbers ≥ 1, the sd a number ≥ 0; the error says what was wrong. The result of the
// ParseDist form is validated with the plan.
func ParseLengthSpec(s string) (Dist, error) {
	s = strings.TrimSpace(s)
	if strings.Contains(s, ":") {
		return ParseDist(s)
	}
	meanText, sdText, spread := cutSpread(s)
	mean, err := strconv.ParseFloat(strings.TrimSpace(meanText), 64)
	if err != nil || mean < 1 || mean != math.Trunc(mean) || mean > MaxTokens {
		return Dist{}, fmt.Errorf("%q: the mean must be a whole number of tokens from 1 to %d", s, int(MaxTokens))
	}
	if !spread {
		return Dist{Kind: DistFixed, Value: mean}, nil
	}
	sd, err := strconv.ParseFloat(strings.TrimSpace(sdText), 64)
	if err != nil || sd < 0 || math.IsInf(sd, 0) {
		return Dist{}, fmt.Errorf("%q: the standard deviation after ± must be a number of tokens >= 0", s)
	}
	if sd == 0 {
		return Dist{Kind: DistFixed, Value: mean}, nil
	}
	return Dist{Kind: DistNormal, Mean: mean, StdDev: sd, Min: 1}, nil
}

// OverrideValue is d as a plan override value (Load's overrides): the map a plan file
// would hold for it, with only the fields its kind uses, so an override replaces the
// whole distribution it is set on.
func (d Dist) OverrideValue() map[string]any {
	m := map[string]any{"dist": d.Kind}
	for k, v := range map[string]float64{"value": d.Value, "mean": d.Mean, "stddev": d.StdDev, "min": d.Min, "max": d.Max} {
		if v != 0 {
			m[k] = v
		}
	}
	for k, v := range map[string]string{"file": d.File, "column": d.Column} {
		if v != "" {
			m[k] = v
		}
	}
	return m
}

// cutSpread splits a short form "mean±sd" (or "mean+-sd") into its mean and sd texts;
// spread is false when s has neither separator (s is then the mean).
func cutSpread(s string) (meanText, sdText string, spread bool) {
	meanText, sdText, spread = strings.Cut(s, "±")
	if !spread {
		meanText, sdText, spread = strings.Cut(s, "+-")
	}
	return meanText, sdText, spread
}

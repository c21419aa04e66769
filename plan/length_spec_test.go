package plan

import "testing"

func TestParseLengthSpec(t *testing.T) {
	for in, want := range map[string]Dist{
		"512":                   {Kind: DistFixed, Value: 512},
		" 512±64 ":              {Kind: DistNormal, Mean: 512, StdDev: 64, Min: 1},
		"512+-64":               {Kind: DistNormal, Mean: 512, StdDev: 64, Min: 1},
		"512 ± 6.5":             {Kind: DistNormal, Mean: 512, StdDev: 6.5, Min: 1},
		"128±0":                 {Kind: DistFixed, Value: 128},
		"uniform:min=16,max=48": {Kind: DistUniform, Min: 16, Max: 48},
	} {
		if got, err := ParseLengthSpec(in); err != nil || got != want {
			t.Errorf("ParseLengthSpec(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for in, msg := range map[string]string{
		"abc":     `"abc": the mean must be a whole number of tokens from 1 to 10000000`,
		"0":       `"0": the mean must be a whole number of tokens from 1 to 10000000`,
		"12.5":    `"12.5": the mean must be a whole number of tokens from 1 to 10000000`,
		"512±":    `"512±": the standard deviation after ± must be a number of tokens >= 0`,
		"512+-x":  `"512+-x": the standard deviation after ± must be a number of tokens >= 0`,
		"512±-3":  `"512±-3": the standard deviation after ± must be a number of tokens >= 0`,
		"±64":     `"±64": the mean must be a whole number of tokens from 1 to 10000000`,
		"fixed:x": `distribution "fixed:x": fixed needs a number: strconv.ParseFloat: parsing "x": invalid syntax`,
	} {
		if _, err := ParseLengthSpec(in); err == nil || err.Error() != msg {
			t.Errorf("ParseLengthSpec(%q) error %v, want %q", in, err, msg)
		}
	}
}

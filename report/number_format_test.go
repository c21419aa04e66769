package report

import (
	"math"
	"testing"
)

// TestNumbersReadShort: num and auto write a huge value (a failed fit's R² of
// −7.27e153) with 3 significant digits, not a row of 150 digits with separators;
// ordinary values keep their decimals and thousands separators.
func TestNumbersReadShort(t *testing.T) {
	cases := []struct {
		got, want string
	}{
		{num(-7.2738542e153, 3), "-7.27e+153"},
		{auto(-7.2738542e153), "-7.27e+153"},
		{num(3.2e18, 0), "3.2e+18"},
		{num(-0.4213, 3), "-0.421"},
		{num(1234567.891, 1), "1,234,567.9"},
		{num(math.Inf(-1), 2), "–"},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

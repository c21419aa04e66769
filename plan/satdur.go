package plan

import (
	"math"
	"time"
)

// satDur converts a float count of nanoseconds to a Duration, saturating at
// math.MaxInt64 (about 292 years) and 0 below (NaN is 0): Go's float→int conversion
// of an out-of-range value is implementation-defined (a negative number on amd64).
func satDur(ns float64) time.Duration {
	switch {
	case !(ns > 0):
		return 0
	case ns >= math.MaxInt64:
		return math.MaxInt64
	}
	return time.Duration(ns)
}

// addDur sums non-negative durations, saturating at math.MaxInt64.
func addDur(ds ...time.Duration) time.Duration {
	var sum time.Duration
	for _, d := range ds {
		if d > math.MaxInt64-sum {
			return math.MaxInt64
		}
		sum += max(d, 0)
	}
	return sum
}

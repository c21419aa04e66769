// Package proctime reads the process's own CPU time, for the benchmarks that state CPU
// per unit of work (per token, per report) rather than wall time, which other load on a
// shared machine moves.
package proctime

import "time"

// CPU returns this process's user plus system CPU time so far (getrusage(2) RUSAGE_SELF
// on Unix, GetProcessTimes on Windows); 0 where the platform cannot say or the call
// fails.
func CPU() time.Duration { return cpu() }

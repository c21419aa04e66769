//go:build race

package analysis

// raceEnabled: the race detector slows every goroutine several-fold, which distorts the
// real-time simulator's latencies (timing checks are then skipped).
const raceEnabled = true

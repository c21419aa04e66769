//go:build race

package sweep

// raceEnabled reports whether the race detector is on (it allocates on its own).
const raceEnabled = true

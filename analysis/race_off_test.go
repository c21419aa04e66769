//go:build !race

package analysis

// raceEnabled: see race_on_test.go.
const raceEnabled = false

//go:build !race

package nsga2

// raceEnabled: see race_on_test.go.
const raceEnabled = false

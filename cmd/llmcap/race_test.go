//go:build race

package main

// raceEnabled builds the tested binary with -race when the tests run with -race.
const raceEnabled = true

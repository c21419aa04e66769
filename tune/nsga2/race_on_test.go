//go:build race

package nsga2

// raceEnabled: the race detector slows the search about eight-fold, so the ZDT test
// runs one seed per problem under it.
const raceEnabled = true

//go:build !unix

package sweep

// raiseNOFILE returns want: off Unix no open-files limit applies to the benchmarks'
// sockets (Windows bounds them by memory).
func raiseNOFILE(want uint64) uint64 { return want }

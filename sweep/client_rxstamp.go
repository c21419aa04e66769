package sweep

import (
	"sync/atomic"
	"time"
)

// rxStampsOn selects kernel receive timestamps for the raw HTTP/1.1 path's reads, the
// response head's and the epoll reader's (on; a test turns it off to show what a
// reader's own lateness does to TTFT; client_rxstamp_linux.go).
var rxStampsOn atomic.Bool

func init() { rxStampsOn.Store(true) }

// maxRxLag bounds a kernel stamp's age at the read: an older one (or one in the
// future) means the wall clock stepped between the two readings, and the read's
// time.Now stands.
const maxRxLag = 10 * time.Second

// rxTime returns the instant a read at now received its bytes: now moved back by the
// kernel stamp's age (keeping now's monotonic reading), or now itself without a stamp
// or with one outside [0, maxRxLag] of now.
func rxTime(now time.Time, rxNs int64) time.Time {
	if rxNs <= 0 || !rxStampsOn.Load() {
		return now
	}
	lag := time.Duration(now.UnixNano() - rxNs)
	if lag < 0 || lag > maxRxLag {
		return now
	}
	return now.Add(-lag)
}

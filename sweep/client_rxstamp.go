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
// kernel stamp's age (keeping now's monotonic reading), and true; or now itself and
// false without a stamp or with one outside [0, maxRxLag] of now.
func rxTime(now time.Time, rxNs int64) (time.Time, bool) {
	if rxNs <= 0 || !rxStampsOn.Load() {
		return now, false
	}
	lag := time.Duration(now.UnixNano() - rxNs)
	if lag < 0 || lag > maxRxLag {
		return now, false
	}
	return now.Add(-lag), true
}

// stampRead sets the time of the events of a read made at now (s.now): when its
// bytes arrived (rxTime), noting how late the client read them (s.readLag, the
// request's largest).
//
// A stamped time is never before the request was sent nor before an earlier read of
// the stream: a stamp can be early, when a wall-clock step came between the arrival and
// the read, or after a lost segment's retransmission, whose data the kernel merges with
// segments that arrived before it (the read carries the last segment's time).
func (s *stream) stampRead(now time.Time, rxNs int64) {
	t, ok := rxTime(now, rxNs)
	if ok {
		if t.Before(s.sent) {
			t = s.sent
		}
		if t.Before(s.now) {
			t = s.now
		}
		s.haveLag = true
		s.readLag = max(s.readLag, now.Sub(t))
	}
	s.now = t
}

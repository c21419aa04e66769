package sweep

import (
	"context"
	"net/http"
	"time"

	"github.com/llmcap/llmcap/launch"
	"github.com/llmcap/llmcap/rundir"
)

// Server-Date clock measurement (dateOffset).
const (
	// dateClockPoll is the gap between the GETs that watch the Date header's second
	// change; dateClockSpan bounds the watch (a change comes within 1 s; two are read).
	dateClockPoll = 5 * time.Millisecond
	dateClockSpan = 2500 * time.Millisecond
)

// dateOffset measures this host's clock against the target server's HTTP Date header
// (RFC 7231, 1 s resolution) at base's GET /models (any status: only the header is
// read). It polls every dateClockPoll until the header's second changes: the server
// crossed that second between the previous response's request and this response, so
// offset = the middle of that span − the second, ± half the span (a few ms on a LAN,
// not the header's 1 s). It keeps the tightest of the changes seen in dateClockSpan.
// No Date header, or no change seen: ClockUnmeasured (offset 0, uncertainty −1).
func dateOffset(ctx context.Context, hc *http.Client, base string) rundir.ClockSync {
	best := rundir.ClockSync{Reference: rundir.ClockUnmeasured, UncertaintyNs: -1, MeasuredAt: time.Now().UTC()}
	url := launch.ModelsURL(base)
	var prevSent time.Time
	var prevDate time.Time
	end := time.Now().Add(dateClockSpan)
	for time.Now().Before(end) && ctx.Err() == nil {
		sent := time.Now()
		date, ok := serverDate(ctx, hc, url)
		got := time.Now()
		if !ok {
			return best
		}
		if !prevDate.IsZero() && date.After(prevDate) {
			mid := prevSent.Add(got.Sub(prevSent) / 2)
			half := got.Sub(prevSent) / 2
			if best.UncertaintyNs < 0 || int64(half) < best.UncertaintyNs {
				best = rundir.ClockSync{Reference: rundir.ClockServerDate, OffsetNs: mid.Sub(date).Nanoseconds(),
					UncertaintyNs: half.Nanoseconds(), MeasuredAt: mid.UTC()}
			}
		}
		prevSent, prevDate = sent, date
		time.Sleep(dateClockPoll)
	}
	return best
}

// serverDate is the Date header of a GET of url; false when the request fails or the
// response has none.
func serverDate(ctx context.Context, hc *http.Client, url string) (time.Time, bool) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return time.Time{}, false
	}
	resp, err := hc.Do(req)
	if err != nil {
		return time.Time{}, false
	}
	resp.Body.Close()
	d, err := http.ParseTime(resp.Header.Get("Date"))
	return d, err == nil
}

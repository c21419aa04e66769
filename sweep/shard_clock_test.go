package sweep

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmcap/llmcap/rundir"
)

// skewedDateServer serves any path with a Date header from a clock skew ahead of this
// host's (no Date header at all when omit).
func skewedDateServer(t *testing.T, skew time.Duration, omit bool) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if omit {
			w.Header()["Date"] = nil // net/http then sends none
		} else {
			w.Header().Set("Date", time.Now().Add(skew).UTC().Format(http.TimeFormat))
		}
		w.WriteHeader(http.StatusNotFound) // only the header is read
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestDateClockFindsTheServersOffset: a server whose clock runs 1.3 s ahead gives an
// offset of −1.3 s (local − reference) within the measured uncertainty, which is far
// below the Date header's 1 s resolution.
func TestDateClockFindsTheServersOffset(t *testing.T) {
	const skew = 1300 * time.Millisecond
	srv := skewedDateServer(t, skew, false)
	c := dateOffset(context.Background(), srv.Client(), srv.URL+"/v1")
	if c.Reference != rundir.ClockServerDate {
		t.Fatalf("reference %q, want %q", c.Reference, rundir.ClockServerDate)
	}
	unc := time.Duration(c.UncertaintyNs)
	if unc <= 0 || unc > 100*time.Millisecond {
		t.Fatalf("uncertainty %v: want a few ms on loopback (at most 100 ms)", unc)
	}
	if err := time.Duration(c.OffsetNs) + skew; err.Abs() > unc+5*time.Millisecond {
		t.Errorf("offset %v, want −%v ± %v", time.Duration(c.OffsetNs), skew, unc)
	}
}

// TestDateClockWithoutADateHeaderIsUnmeasured: no Date header gives ClockUnmeasured
// (offset 0, uncertainty −1), which merge turns into a warning.
func TestDateClockWithoutADateHeaderIsUnmeasured(t *testing.T) {
	srv := skewedDateServer(t, 0, true)
	c := dateOffset(context.Background(), srv.Client(), srv.URL+"/v1")
	if c.Reference != rundir.ClockUnmeasured || c.OffsetNs != 0 || c.UncertaintyNs != -1 {
		t.Errorf("clock %+v, want unmeasured (offset 0, uncertainty −1)", c)
	}
}

// TestRendezvousStartsEveryShardTogether: shard 0's endpoint fixes one start once all
// three shards checked in; the others get it with shard 0's clock (same host: offset
// within its uncertainty of 0); a shard of another count or plan is refused (409) with
// the reason.
func TestRendezvousStartsEveryShardTogether(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	r, err := startRendezvous("127.0.0.1:0", 3, "hash-a", log)
	if err != nil {
		t.Fatal(err)
	}
	defer r.stop()
	_, port, _ := net.SplitHostPort(r.addr.String())
	addr := net.JoinHostPort("127.0.0.1", port)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	for _, c := range []struct {
		sh   *Shard
		hash string
		want string
	}{
		{&Shard{Index: 1, Count: 4}, "hash-a", "shard 0 runs 3 shards, this one was started with 4"},
		{&Shard{Index: 1, Count: 3}, "hash-b", "shard 0 runs another plan"},
	} {
		_, _, err := joinRendezvous(ctx, addr, c.sh, c.hash, log)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("join as %d/%d with plan %s: %v, want a refusal with %q", c.sh.Index, c.sh.Count, c.hash, err, c.want)
		}
	}

	before := time.Now()
	type joined struct {
		start time.Time
		clock rundir.ClockSync
		err   error
	}
	got := make([]joined, 3)
	var wg sync.WaitGroup
	for i := 1; i < 3; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i].start, got[i].clock, got[i].err = joinRendezvous(ctx, addr, &Shard{Index: i, Count: 3}, "hash-a", log)
		}()
	}
	got[0].start, got[0].err = r.wait(ctx)
	wg.Wait()
	for i, j := range got {
		if j.err != nil {
			t.Fatalf("shard %d: %v", i, j.err)
		}
		if !j.start.Equal(got[0].start) {
			t.Errorf("shard %d starts at %v, shard 0 at %v", i, j.start, got[0].start)
		}
		if i == 0 {
			continue
		}
		unc := time.Duration(j.clock.UncertaintyNs)
		if j.clock.Reference != rundir.ClockRendezvous || unc <= 0 || unc > 100*time.Millisecond {
			t.Errorf("shard %d's clock %+v: want the rendezvous's, within a few ms", i, j.clock)
		}
		if off := time.Duration(j.clock.OffsetNs); off.Abs() > unc+5*time.Millisecond {
			t.Errorf("shard %d's offset %v on the same host, want 0 ± %v", i, off, unc)
		}
	}
	if lead := got[0].start.Sub(before); lead < rendezvousLead-time.Second || lead > rendezvousLead+5*time.Second {
		t.Errorf("the start is %v after the shards began checking in, want about %v", lead, rendezvousLead)
	}
}

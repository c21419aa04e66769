package sweep

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/llmcap/llmcap/rundir"
)

// The rendezvous (docs/distributed.md): shard 0 serves GET RendezvousPath on the port
// of --rendezvous; every other shard polls it with its index, count and plan hash. Once
// all Count shards have checked in with shard 0's count and plan hash, shard 0 fixes
// the common start, rendezvousLead from then, and every answer carries it; each answer
// also carries shard 0's clock (now_ns), which the others read for their clock offset.
const (
	RendezvousPath = "/llmcap/rendezvous"
	// rendezvousLead is how long after the last check-in the first step starts: enough
	// for every shard's next poll and its clock samples.
	rendezvousLead = 3 * time.Second
	// rendezvousPoll is the others' polling gap; rendezvousClockSamples the round trips
	// read for the clock offset (the fastest is kept).
	rendezvousPoll         = 250 * time.Millisecond
	rendezvousClockSamples = 8
	// DefaultRendezvousTimeout bounds the wait for every shard.
	DefaultRendezvousTimeout = 10 * time.Minute
)

// rendezvousAnswer is the rendezvous endpoint's JSON answer.
type rendezvousAnswer struct {
	Count     int    `json:"count"`
	PlanHash  string `json:"plan_hash"`
	Seen      []int  `json:"seen"`
	StartAtNs int64  `json:"start_at_ns,omitempty"` // 0 until every shard checked in
	NowNs     int64  `json:"now_ns"`
	Error     string `json:"error,omitempty"`
}

// rendezvousServer is shard 0's side.
type rendezvousServer struct {
	count    int
	planHash string
	mu       sync.Mutex
	seen     map[int]bool
	startAt  time.Time
	ready    chan struct{} // closed once startAt is set
	srv      *http.Server
	addr     net.Addr // where it listens
}

// startRendezvous listens on addr's port (all interfaces) and serves the rendezvous
// until stop; shard 0 has checked in.
func startRendezvous(addr string, count int, planHash string, log *slog.Logger) (*rendezvousServer, error) {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("--rendezvous %s: want HOST:PORT: %w", addr, err)
	}
	ln, err := net.Listen("tcp", ":"+port)
	if err != nil {
		return nil, fmt.Errorf("--rendezvous %s: shard 0 listens on port %s: %w", addr, port, err)
	}
	r := &rendezvousServer{count: count, planHash: planHash, seen: map[int]bool{0: true}, ready: make(chan struct{}), addr: ln.Addr()}
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+RendezvousPath, r.serve)
	r.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	r.checkIn(0)
	go func() {
		if err := r.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Warn("rendezvous endpoint stopped", "err", err)
		}
	}()
	log.Info("rendezvous: waiting for the other shards", "listen", ln.Addr().String(), "shards", count)
	return r, nil
}

// checkIn records shard i and fixes the start once every shard is in; r.mu held or not
// started yet.
func (r *rendezvousServer) checkIn(i int) {
	r.seen[i] = true
	if len(r.seen) == r.count && r.startAt.IsZero() {
		r.startAt = time.Now().Add(rendezvousLead)
		close(r.ready)
	}
}

func (r *rendezvousServer) serve(w http.ResponseWriter, req *http.Request) {
	q := req.URL.Query()
	i, err1 := strconv.Atoi(q.Get("shard"))
	n, err2 := strconv.Atoi(q.Get("count"))
	r.mu.Lock()
	a := rendezvousAnswer{Count: r.count, PlanHash: r.planHash}
	status := http.StatusOK
	switch {
	case err1 != nil || err2 != nil:
		status, a.Error = http.StatusBadRequest, "want ?shard=I&count=N&plan=HASH"
	case n != r.count:
		status, a.Error = http.StatusConflict, fmt.Sprintf("shard 0 runs %d shards, this one was started with %d", r.count, n)
	case q.Get("plan") != r.planHash:
		status, a.Error = http.StatusConflict, "shard 0 runs another plan (plan hashes differ): every shard needs the same plan file and --set overrides"
	case i <= 0 || i >= r.count:
		status, a.Error = http.StatusBadRequest, fmt.Sprintf("shard index %d: want 1 to %d (0 is this one)", i, r.count-1)
	default:
		r.checkIn(i)
	}
	for k := range r.count {
		if r.seen[k] {
			a.Seen = append(a.Seen, k)
		}
	}
	if !r.startAt.IsZero() {
		a.StartAtNs = r.startAt.UnixNano()
	}
	r.mu.Unlock()
	a.NowNs = time.Now().UnixNano()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(a)
}

// wait returns the start once every shard checked in; ctx ends it.
func (r *rendezvousServer) wait(ctx context.Context) (time.Time, error) {
	select {
	case <-r.ready:
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.startAt, nil
	case <-ctx.Done():
		r.mu.Lock()
		defer r.mu.Unlock()
		return time.Time{}, fmt.Errorf("rendezvous: %d of %d shards checked in (%v): %w", len(r.seen), r.count, sortedKeys(r.seen), ctx.Err())
	}
}

func (r *rendezvousServer) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	r.srv.Shutdown(ctx)
}

func sortedKeys(m map[int]bool) []int { return slices.Sorted(maps.Keys(m)) }

// joinRendezvous is shard i's side: it polls addr until shard 0 gives the start (or
// refuses this shard), then reads shard 0's clock rendezvousClockSamples times and
// keeps the fastest round trip: offset = the middle of it − shard 0's now_ns, ± half
// of it.
func joinRendezvous(ctx context.Context, addr string, sh *Shard, planHash string, log *slog.Logger) (time.Time, rundir.ClockSync, error) {
	u := url.URL{Scheme: "http", Host: addr, Path: RendezvousPath,
		RawQuery: url.Values{"shard": {strconv.Itoa(sh.Index)}, "count": {strconv.Itoa(sh.Count)}, "plan": {planHash}}.Encode()}
	hc := &http.Client{Timeout: 5 * time.Second}
	defer hc.CloseIdleConnections()
	log.Info("rendezvous: checking in with shard 0", "addr", addr, "shard", sh.Index, "shards", sh.Count)
	var lastErr error
	for {
		a, _, _, err := askRendezvous(ctx, hc, u.String())
		var refused *rendezvousRefusal
		switch {
		case errors.As(err, &refused):
			return time.Time{}, rundir.ClockSync{}, fmt.Errorf("rendezvous %s: shard 0 refused shard %d: %s", addr, sh.Index, refused.msg)
		case err == nil && a.StartAtNs != 0:
			return time.Unix(0, a.StartAtNs), clockFrom(ctx, hc, u.String()), nil
		case err != nil:
			lastErr = err
		}
		select {
		case <-ctx.Done():
			if lastErr != nil {
				return time.Time{}, rundir.ClockSync{}, fmt.Errorf("rendezvous %s: %w (last: %v)", addr, ctx.Err(), lastErr)
			}
			return time.Time{}, rundir.ClockSync{}, fmt.Errorf("rendezvous %s: waiting for every shard: %w", addr, ctx.Err())
		case <-time.After(rendezvousPoll):
		}
	}
}

// rendezvousRefusal is shard 0's refusal of a shard (a 4xx answer).
type rendezvousRefusal struct{ msg string }

func (e *rendezvousRefusal) Error() string { return e.msg }

// askRendezvous is one GET of the endpoint: the answer and the local send and receive
// times.
func askRendezvous(ctx context.Context, hc *http.Client, u string) (rendezvousAnswer, time.Time, time.Time, error) {
	var a rendezvousAnswer
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return a, time.Time{}, time.Time{}, err
	}
	sent := time.Now()
	resp, err := hc.Do(req)
	if err != nil {
		return a, sent, time.Time{}, err
	}
	defer resp.Body.Close()
	err = json.NewDecoder(io.LimitReader(resp.Body, 1<<16)).Decode(&a)
	got := time.Now()
	switch {
	case resp.StatusCode >= 400 && resp.StatusCode < 500:
		return a, sent, got, &rendezvousRefusal{msg: a.Error}
	case resp.StatusCode != http.StatusOK:
		return a, sent, got, fmt.Errorf("status %d", resp.StatusCode)
	case err != nil:
		return a, sent, got, fmt.Errorf("answer: %w", err)
	}
	return a, sent, got, nil
}

// clockFrom reads shard 0's clock over the fastest of rendezvousClockSamples round
// trips (ClockUnmeasured when none succeeds).
func clockFrom(ctx context.Context, hc *http.Client, u string) rundir.ClockSync {
	best := rundir.ClockSync{Reference: rundir.ClockUnmeasured, UncertaintyNs: -1, MeasuredAt: time.Now().UTC()}
	for range rendezvousClockSamples {
		a, sent, got, err := askRendezvous(ctx, hc, u)
		if err != nil {
			continue
		}
		half := got.Sub(sent) / 2
		if best.UncertaintyNs >= 0 && int64(half) >= best.UncertaintyNs {
			continue
		}
		mid := sent.Add(half)
		best = rundir.ClockSync{Reference: rundir.ClockRendezvous, OffsetNs: mid.UnixNano() - a.NowNs,
			UncertaintyNs: half.Nanoseconds(), MeasuredAt: mid.UTC()}
	}
	return best
}

package sweep

import (
	"bytes"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
	"github.com/llmcap/llmcap/sweep/ssetest"
)

// timeoutServer answers /v1/models and the preflight probe (max_tokens 4) at once, and
// the n-th load request with load(n).
func timeoutServer(t *testing.T, load func(n int) ssetest.Script) *ssetest.Server {
	t.Helper()
	var loads atomic.Int64
	srv, err := ssetest.New(func(_ int, r *http.Request, body []byte) ssetest.Script {
		switch {
		case strings.HasSuffix(r.URL.Path, "/models"):
			return ssetest.Script{ContentType: "application/json",
				Steps: []ssetest.Step{{Data: []byte(`{"object":"list","data":[{"id":"fault","object":"model"}]}`)}}}
		case bytes.Contains(body, []byte(`"max_tokens":4`)):
			return ssetest.Script{Steps: slowStream(4, 0, 0)}
		}
		return load(int(loads.Add(1) - 1))
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return srv
}

// TestHungServerTimesOut: with small explicit timeouts (first byte and idle 300 ms), a
// server that holds every other request's headers for 20 s and leaves the others silent
// after the headers fails them as timeout_first_byte and timeout_idle (the last few,
// sent under 300 ms before the window closed, may be unfinished instead) — none
// succeeds, none waits for the 20 s — and the step fails the SLA.
func TestHungServerTimesOut(t *testing.T) {
	srv := timeoutServer(t, func(n int) ssetest.Script {
		if n%2 == 0 {
			return ssetest.Script{HeaderDelay: 20 * time.Second}
		}
		return ssetest.Script{End: ssetest.EndHang}
	})
	p := loadPlan(t, verdictSegments+`
ladder: {concurrency: [2], duration: 1500ms, cooldown: 0s, early_stop: {enabled: false}}
sla: {ttft_ms: {p95: 5000}, max_error_rate: 0.01}
`, srv.URL, map[string]any{"target.first_byte_timeout": "300ms", "target.idle_timeout": "300ms"})
	dir, a, took := sweepAndAnalyze(t, p)
	if took > 10*time.Second {
		t.Errorf("sweep took %v: a request waited past its timeout", took)
	}
	recs, _, _ := rtRead(t, dir)
	by := map[string]int{}
	for _, r := range recs {
		c := r.ErrorClass
		if r.OK() {
			c = "ok"
		}
		by[c]++
		if c == rundir.ErrTimeoutFirstByte || c == rundir.ErrTimeoutIdle {
			if e := float64(r.EndNs-r.SentNs) / 1e6; r.EndNs != 0 && r.SentNs != 0 && (e < 250 || e > 2000) {
				t.Errorf("%s %s after %.0f ms, want about 300", r.RequestID, c, e)
			}
		}
	}
	if by[rundir.ErrTimeoutFirstByte] < 2 || by[rundir.ErrTimeoutIdle] < 2 ||
		by[rundir.ErrTimeoutFirstByte]+by[rundir.ErrTimeoutIdle]+by[rundir.ErrUnfinished] != len(recs) {
		t.Errorf("records by class %v: want only timeout_first_byte and timeout_idle (and a few unfinished)", by)
	}
	if s := a.Segments[0].Steps[0]; s.MeetsSLA || s.ErrorRate < 0.99 {
		t.Errorf("step meets SLA %v at error rate %g", s.MeetsSLA, s.ErrorRate)
	}
}

// TestSlowServerPassesWithDefaultTimeouts: a slow but alive server — 3 s to the first
// token, half the answers holding the headers that long (Ollama, llama.cpp), half
// sending them at once and then nothing until the token (vLLM, SGLang) — meets the
// default timeouts (first byte 10m, idle 5m): every request succeeds with its 3 s
// TTFT, and the step meets an SLA of TTFT p95 ≤ 5 s.
func TestSlowServerPassesWithDefaultTimeouts(t *testing.T) {
	const ttft = 3 * time.Second
	srv := timeoutServer(t, func(n int) ssetest.Script {
		if n%2 == 0 {
			return ssetest.Script{HeaderDelay: ttft, Steps: slowStream(8, 0, 5*time.Millisecond)[1:]}
		}
		steps := slowStream(8, ttft, 5*time.Millisecond)
		steps[1].Delay = ttft // the role chunk at once is no token; the first token 3 s later
		return ssetest.Script{Steps: steps}
	})
	p := loadPlan(t, verdictSegments+`
ladder: {concurrency: [2], requests: 4, cooldown: 0s, early_stop: {enabled: false}}
sla: {ttft_ms: {p95: 5000}, max_error_rate: 0.01}
`, srv.URL, nil)
	if p.Target.FirstByteTimeout != plan.DefaultFirstByteTimeout || p.Target.IdleTimeout != plan.DefaultIdleTimeout {
		t.Fatalf("timeouts %v / %v: not the defaults", p.Target.FirstByteTimeout, p.Target.IdleTimeout)
	}
	dir, a, _ := sweepAndAnalyze(t, p)
	recs, _, _ := rtRead(t, dir)
	ok := 0
	for _, r := range recs {
		if !r.OK() {
			t.Errorf("%s failed: %s (%s)", r.RequestID, r.ErrorClass, r.Error)
			continue
		}
		ok++
		if r.TTFTMs == nil || *r.TTFTMs < 2900 || *r.TTFTMs > 4500 {
			t.Errorf("%s TTFT %v ms, want about 3000", r.RequestID, r.TTFTMs)
		}
	}
	s := a.Segments[0].Steps[0]
	if ok < 4 || !s.MeetsSLA || s.Unfinished != 0 {
		t.Errorf("%d ok records; step meets SLA %v (%q), unfinished %d", ok, s.MeetsSLA, s.SLAViolations, s.Unfinished)
	}
}

package sweep

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llmcap/llmcap/rundir"
	"github.com/llmcap/llmcap/sweep/ssetest"
)

// wireSecret is the value of the environment variable a test header takes its value
// from; it must appear on the wire and nowhere in the run directory or the logs.
const wireSecret = "gw-secret-7d1f3a"

// wirePlan is a multi-turn plan (3 turns a session, no think time) with custom headers,
// one from the environment (LLMCAP_TEST_WIRE_KEY).
const wirePlan = `
name: wire
seed: 7
target:
  api: chat
  model: fault
  headers:
    X-Gw-Key: "${LLMCAP_TEST_WIRE_KEY}"
    x-tenant: acme
    user-agent: wire-test/1
segments:
  - {name: chat, weight: 1, prompt_tokens: {dist: fixed, value: 16}, output_tokens: {dist: fixed, value: 8},
     multi_turn: {turns: 3, think_time_s: {dist: fixed, value: 0}}}
ladder: {concurrency: [2], duration: 800ms, cooldown: 0s, early_stop: {enabled: false}}
sla: {ttft_ms: {p95: 5000}, max_error_rate: 1}
report: {formats: [json]}
`

// wireServer is a scripted server that answers /models and the preflight probe, and
// the load: a short stream, except the 4th load request, answered HTTP 400 with an
// error message that echoes the X-Gw-Key header it got (as a gateway may).
func wireServer(t *testing.T) *ssetest.Server {
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
		if loads.Add(1) == 4 {
			return ssetest.Script{Status: 400, ContentType: "application/json", Steps: []ssetest.Step{{
				Data: []byte(`{"error":{"message":"key ` + r.Header.Get("X-Gw-Key") + ` is not allowed here"}}`)}}}
		}
		return ssetest.Script{Steps: slowStream(3, 2*time.Millisecond, time.Millisecond)}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return srv
}

var requestIDRE = regexp.MustCompile(`^[0-9a-f]{8}-s0000-r\d{6}$`)

// TestServerLogsEachRecordsRequestID (issue #16): on both transports, every load
// request the scripted server logged carries X-Request-Id equal to one record's
// request_id and every record's id was logged once; the turns of a multi-turn session
// carry the same X-Session-Id (its session_id), other sessions other ones; the custom
// headers arrive (the environment's value expanded) on the load and the preflight; and
// that value, echoed by the server in an error, appears in no file of the run
// directory nor in the log.
func TestServerLogsEachRecordsRequestID(t *testing.T) {
	t.Setenv("LLMCAP_TEST_WIRE_KEY", wireSecret)
	for _, raw := range []bool{true, false} {
		name := map[bool]string{true: "raw", false: "net-http"}[raw]
		t.Run(name, func(t *testing.T) {
			useRawHTTP = raw
			defer func() { useRawHTTP = true }()
			srv := wireServer(t)
			p := loadPlan(t, wirePlan, srv.URL, nil)
			var logs syncBuffer
			dir := filepath.Join(t.TempDir(), "run")
			if err := Run(context.Background(), p, Options{OutDir: dir,
				Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))}); err != nil {
				t.Fatal(err)
			}
			recs, _, _ := rtRead(t, dir)
			checkRequestIDs(t, srv.WaitWritten(len(recs)+2, 5*time.Second), recs)
			checkNoSecret(t, dir, logs.String())
		})
	}
}

// checkRequestIDs asserts the server's log of requests against the records: ids,
// session headers and custom headers.
func checkRequestIDs(t *testing.T, sent []ssetest.Sent, recs []rundir.Record) {
	t.Helper()
	byID := map[string]ssetest.Sent{}
	preflights := 0
	for _, s := range sent {
		if got := s.Header.Get("X-Gw-Key") + "|" + s.Header.Get("X-Tenant") + "|" + s.Header.Get("User-Agent"); got != wireSecret+"|acme|wire-test/1" {
			t.Errorf("request %s %q: custom headers %q", s.Path, s.RequestID, got)
		}
		if strings.HasPrefix(s.RequestID, "preflight-") {
			preflights++
			continue
		}
		if _, dup := byID[s.RequestID]; dup || !requestIDRE.MatchString(s.RequestID) {
			t.Errorf("server logged X-Request-Id %q (again: %v), want <tag>-s0000-rNNNNNN once", s.RequestID, dup)
		}
		byID[s.RequestID] = s
	}
	if preflights != 2 || len(byID) != len(recs) || len(recs) < 6 {
		t.Fatalf("server logged %d preflight and %d load requests; %d records (want 2, as many, ≥ 6)", preflights, len(byID), len(recs))
	}
	sessionOf := map[string]string{} // X-Session-Id → the session_id it was sent for
	turns := map[string]int{}
	for _, r := range recs {
		s, ok := byID[r.RequestID]
		if !ok {
			t.Errorf("record %s: the server logged no request with that X-Request-Id", r.RequestID)
			continue
		}
		sid := s.Header.Get("X-Session-Id")
		if sid != r.SessionID || sid == "" {
			t.Errorf("record %s (session %s, turn %d): X-Session-Id %q", r.RequestID, r.SessionID, r.Turn, sid)
		}
		if prev, seen := sessionOf[sid]; seen && prev != r.SessionID {
			t.Errorf("X-Session-Id %q sent for sessions %s and %s", sid, prev, r.SessionID)
		}
		sessionOf[sid] = r.SessionID
		turns[sid]++
	}
	multi := 0
	for _, n := range turns {
		if n > 1 {
			multi++
		}
	}
	if multi < 2 {
		t.Errorf("turns per X-Session-Id %v: want at least 2 sessions of several turns", turns)
	}
}

// checkNoSecret asserts that no file of the run directory and not the log hold
// wireSecret, and that the echoed error was recorded masked.
func checkNoSecret(t *testing.T, dir, logs string) {
	t.Helper()
	masked := false
	_ = filepath.Walk(dir, func(path string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		b, _ := os.ReadFile(path)
		if bytes.Contains(b, []byte(wireSecret)) {
			t.Errorf("%s holds the header's secret value", filepath.Base(path))
		}
		if filepath.Base(path) == rundir.FileRecords {
			masked = bytes.Contains(b, []byte("key REDACTED is not allowed"))
		}
		if filepath.Base(path) == rundir.FileRun && !bytes.Contains(b, []byte(`"x-gw-key": "${LLMCAP_TEST_WIRE_KEY}"`)) {
			t.Errorf("run.json's plan lacks the header's ${NAME} reference:\n%s", b)
		}
		return nil
	})
	if !masked {
		t.Errorf("records.jsonl lacks the server's echoed error with the key masked")
	}
	if strings.Contains(logs, wireSecret) || logs == "" {
		t.Errorf("the log holds the header's secret value (or is empty):\n%s", logs)
	}
}

// syncBuffer is a bytes.Buffer safe for concurrent writers (a log handler's).
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

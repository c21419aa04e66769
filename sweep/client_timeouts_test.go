package sweep

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/llmcap/llmcap/rundir"

	"github.com/llmcap/llmcap/sweep/ssetest"
)

// slowStream is a role chunk then n content chunks gap apart, then finish/usage/[DONE].
func slowStream(n int, first, gap time.Duration) []ssetest.Step {
	steps := []ssetest.Step{{Data: []byte("data: " + chatRole() + "\n\n")}}
	for i := 0; i < n; i++ {
		d := gap
		if i == 0 {
			d = first
		}
		steps = append(steps, ssetest.Step{Delay: d, Data: []byte("data: " + chatContent("t") + "\n\n")})
	}
	steps = append(steps, ssetest.Step{Data: ssetest.Events(chatFinish("stop"), usageChunk(1, n), "[DONE]")})
	return steps
}

// doScripted sends one request for 8 tokens to a server playing script, through a
// client with cfg, cancelled at cancelAt when that is above 0; it returns the record
// and how long Do took. A Do still running after 5 s fails the test: a hung server
// escaped every timeout and the cancel.
func doScripted(t *testing.T, script ssetest.Script, cfg ClientConfig, cancelAt time.Duration) (rundir.Record, time.Duration) {
	t.Helper()
	srv, err := ssetest.NewScripts(script)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	cfg.BaseURL = srv.URL
	c := NewClient(cfg)
	defer c.CloseIdleConnections()
	ctx := context.Background()
	if cancelAt > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		time.AfterFunc(cancelAt, cancel)
	}
	var rec rundir.Record
	start := time.Now()
	done := make(chan struct{})
	go func() { c.Do(ctx, &Request{MaxTokens: 8}, &rec); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Do still running 5 s after the request: a hung server escaped the timeouts and the cancel")
	}
	return rec, time.Since(start)
}

// TestClientTimeoutsAndCancel: each timeout ends its request with its class, within
// margins wide enough for a loaded machine under -race (a gap of 40 ms never trips a
// 300 ms idle timeout).
func TestClientTimeoutsAndCancel(t *testing.T) {
	cases := []struct {
		name     string
		script   ssetest.Script
		cfg      ClientConfig
		cancelAt time.Duration
		class    string
		minDur   time.Duration
		maxDur   time.Duration
		ttft     bool
	}{
		{"first byte", ssetest.Script{HeaderDelay: 400 * time.Millisecond, Steps: slowStream(2, 0, 0)},
			ClientConfig{FirstByteTimeout: 80 * time.Millisecond}, 0, rundir.ErrTimeoutFirstByte, 80 * time.Millisecond, 350 * time.Millisecond, false},
		{"idle", ssetest.Script{Steps: slowStream(1, 20*time.Millisecond, 0)[:2], End: ssetest.EndHang},
			ClientConfig{IdleTimeout: 80 * time.Millisecond}, 0, rundir.ErrTimeoutIdle, 100 * time.Millisecond, 350 * time.Millisecond, true},
		{"idle before first event", ssetest.Script{Steps: slowStream(1, 500*time.Millisecond, 0)},
			ClientConfig{IdleTimeout: 80 * time.Millisecond, FirstByteTimeout: time.Second}, 0, rundir.ErrTimeoutIdle, 80 * time.Millisecond, 350 * time.Millisecond, false},
		{"request", ssetest.Script{Steps: slowStream(20, 10*time.Millisecond, 20*time.Millisecond)},
			ClientConfig{RequestTimeout: 250 * time.Millisecond, IdleTimeout: time.Second}, 0, rundir.ErrTimeoutRequest, 250 * time.Millisecond, 700 * time.Millisecond, true},
		{"cancelled", ssetest.Script{Steps: slowStream(1, 10*time.Millisecond, 0)[:2], End: ssetest.EndHang},
			ClientConfig{}, 100 * time.Millisecond, rundir.ErrCancelled, 100 * time.Millisecond, 350 * time.Millisecond, true},
		{"long stream survives idle timeout", ssetest.Script{Steps: slowStream(8, 10*time.Millisecond, 40*time.Millisecond)},
			ClientConfig{IdleTimeout: 300 * time.Millisecond, FirstByteTimeout: 300 * time.Millisecond}, 0, "", 290 * time.Millisecond, 2 * time.Second, true},
		{"response left open after [DONE]", ssetest.Script{Steps: slowStream(8, 10*time.Millisecond, 5*time.Millisecond), End: ssetest.EndHang},
			ClientConfig{}, 0, "", 40 * time.Millisecond, drainAfterDone / 2, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec, took := doScripted(t, tc.script, tc.cfg, tc.cancelAt)
			if tc.class == "" {
				if !rec.OK() || rec.OutputTokens != 8 || rec.ITLMs == nil {
					t.Fatalf("record %+v, want ok with 8 tokens", rec)
				}
			} else if rec.Status != rundir.StatusError || rec.ErrorClass != tc.class {
				t.Fatalf("status %q class %q (%s), want error %q", rec.Status, rec.ErrorClass, rec.Error, tc.class)
			}
			if took < tc.minDur || took > tc.maxDur {
				t.Errorf("Do took %v, want within [%v, %v]", took, tc.minDur, tc.maxDur)
			}
			if (rec.TTFTMs != nil) != tc.ttft {
				t.Errorf("TTFT defined = %v, want %v", rec.TTFTMs != nil, tc.ttft)
			}
			if tc.class != "" && (rec.E2EMs != nil || rec.ITLMs != nil) {
				t.Errorf("failed record has E2E/ITL: %v %v", rec.E2EMs, rec.ITLMs)
			}
		})
	}
}

func TestClientConnectRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	c := NewClient(ClientConfig{BaseURL: "http://" + addr + "/v1"})
	var rec rundir.Record
	c.Do(context.Background(), &Request{}, &rec)
	if rec.ErrorClass != rundir.ErrConnect || rec.SentNs == 0 || rec.TTFTMs != nil {
		t.Fatalf("record %+v, want connect error", rec)
	}
}

// fullBacklogListener returns the address of a loopback socket that listens with a
// zero backlog and never accepts, filled until new connection attempts hang.
func fullBacklogListener(t *testing.T) string {
	if runtime.GOOS != "linux" {
		t.Skip("needs Linux accept-queue behaviour")
	}
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Skip(err)
	}
	if err := syscall.Listen(fd, 0); err != nil {
		t.Skip(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Skip(err)
	}
	addr := net.JoinHostPort("127.0.0.1", itoa(sa.(*syscall.SockaddrInet4).Port))
	for i := 0; i < 16; i++ {
		conn, err := net.DialTimeout("tcp", addr, 100*time.Millisecond)
		if err != nil {
			return addr // the queue is full: SYNs are now dropped
		}
		t.Cleanup(func() { conn.Close() })
	}
	t.Skip("accept queue never filled")
	return ""
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func TestClientConnectTimeout(t *testing.T) {
	addr := fullBacklogListener(t)
	c := NewClient(ClientConfig{BaseURL: "http://" + addr + "/v1", ConnectTimeout: 150 * time.Millisecond})
	var rec rundir.Record
	start := time.Now()
	c.Do(context.Background(), &Request{}, &rec)
	if took := time.Since(start); rec.ErrorClass != rundir.ErrTimeoutConnect || took < 150*time.Millisecond {
		t.Fatalf("class %q (%s) after %v, want timeout_connect after ≥150ms", rec.ErrorClass, rec.Error, took)
	}
}

func TestClientRequestBody(t *testing.T) {
	for _, api := range []string{"chat", "completions"} {
		srv, err := ssetest.NewScripts(ssetest.Script{Steps: slowStream(1, 0, 0)})
		if err != nil {
			t.Fatal(err)
		}
		c := NewClient(ClientConfig{BaseURL: srv.URL + "/", API: api, Model: "tiny", APIKey: "sk-secret",
			Temperature: 0.5, ExtraBody: map[string]any{"ignore_eos": true, "stream": false, "top_k": 3}})
		var rec rundir.Record
		c.Do(context.Background(), &Request{Messages: []ChatMessage{{Role: "user", Content: "q"}},
			Prompt: "p", MaxTokens: 7, Seed: 42}, &rec)
		srv.Close()
		if !rec.OK() {
			t.Fatalf("%s: %s %s", api, rec.ErrorClass, rec.Error)
		}
		got := srv.Sent()[0]
		var body map[string]any
		if err := json.Unmarshal(got.Body, &body); err != nil {
			t.Fatal(err)
		}
		wantPath, key, val := "/v1/chat/completions", "messages", any([]any{map[string]any{"role": "user", "content": "q"}})
		if api == "completions" {
			wantPath, key, val = "/v1/completions", "prompt", "p"
		}
		so, _ := body["stream_options"].(map[string]any)
		if got.Path != wantPath || body["stream"] != true || so["include_usage"] != true ||
			body["max_tokens"] != 7.0 || body["seed"] != 42.0 || body["model"] != "tiny" ||
			body["temperature"] != 0.5 || body["ignore_eos"] != true || body["top_k"] != 3.0 ||
			!jsonEqual(body[key], val) {
			t.Errorf("%s: path %s body %s", api, got.Path, got.Body)
		}
		if got.Header.Get("Authorization") != "Bearer sk-secret" || got.Header.Get("Accept-Encoding") != "" {
			t.Errorf("%s: headers %v", api, got.Header)
		}
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func TestClientRedactsAPIKey(t *testing.T) {
	srv, err := ssetest.NewScripts(ssetest.Script{Status: 401, ContentType: "application/json",
		Steps: []ssetest.Step{{Data: []byte(`{"error":{"message":"invalid key sk-secret-123"}}`)}}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	c := NewClient(ClientConfig{BaseURL: srv.URL, APIKey: "sk-secret-123"})
	var rec rundir.Record
	c.Do(context.Background(), &Request{}, &rec)
	line, _ := json.Marshal(rec)
	if rec.ErrorClass != rundir.ErrHTTP4xx || rec.HTTPStatus != 401 || strings.Contains(string(line), "sk-secret") ||
		!strings.Contains(rec.Error, "invalid key REDACTED") {
		t.Fatalf("record %s", line)
	}
}

func TestClientNonStreamedJSON(t *testing.T) {
	body := `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"Hi there"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":2}}`
	srv, err := ssetest.NewScripts(ssetest.Script{ContentType: "application/json; charset=utf-8",
		Steps: []ssetest.Step{{Delay: 30 * time.Millisecond, Data: []byte(body)}}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	var rec rundir.Record
	answer := NewClient(ClientConfig{BaseURL: srv.URL}).Do(context.Background(), &Request{}, &rec)
	if !rec.OK() || answer != "Hi there" || rec.OutputTokens != 2 || rec.TTFTMs == nil || *rec.TTFTMs < 30 ||
		rec.ITLMs != nil || rec.FinishReason != "stop" {
		t.Fatalf("answer %q record %+v", answer, rec)
	}
}

func TestClientSaveICLAndScheduleLag(t *testing.T) {
	srv, err := ssetest.NewScripts(ssetest.Script{Steps: slowStream(4, 20*time.Millisecond, 15*time.Millisecond)})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	c := NewClient(ClientConfig{BaseURL: srv.URL, SaveICL: true})
	rec := rundir.Record{ScheduledNs: unixNs(time.Now()) - 3e6}
	c.Do(context.Background(), &Request{}, &rec)
	if !rec.OK() || len(rec.ICLMs) != 3 || rec.ScheduleLagMs == nil || *rec.ScheduleLagMs < 3 {
		t.Fatalf("record %+v", rec)
	}
	// Event k reached the client while the server wrote and flushed it, between its
	// Writing[k] and Steps[k] (a goroutine descheduled after its flush makes Steps[k]
	// late), so a gap lies between the earliest and the latest the two windows allow.
	w := srv.WaitWritten(1, 5*time.Second)[0]
	for i, gap := range rec.ICLMs {
		lo := float64(w.Writing[i+2].Sub(w.Steps[i+1])) / 1e6
		hi := float64(w.Steps[i+2].Sub(w.Writing[i+1])) / 1e6
		if gap < 0 || gap < lo-0.5 || gap > hi+2 {
			t.Errorf("ICL[%d] = %.3f ms, server wrote the two events [%.3f, %.3f] ms apart", i, gap, lo, hi)
		}
	}
}

// TestClientHugeEvent streams one 1 MiB content event (read in many pieces) followed by
// a normal request on the same client, whose pooled buffers must be sane again.
func TestClientHugeEvent(t *testing.T) {
	big := strings.Repeat("é", 1<<19)
	srv, err := ssetest.NewScripts(
		ssetest.Script{Steps: []ssetest.Step{{Data: ssetest.Events(chatContent(big), chatFinish("stop"), "[DONE]")}}},
		ssetest.Script{Steps: slowStream(3, 0, 0)})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	c := NewClient(ClientConfig{BaseURL: srv.URL})
	var rec rundir.Record
	if answer := c.Do(context.Background(), &Request{KeepAnswer: true}, &rec); answer != big || !rec.OK() || rec.Chunks != 1 {
		t.Fatalf("huge event: %d bytes, record %+v", len(answer), rec)
	}
	if want := fmt.Sprintf("%016x", fnv64a(big)); rec.OutputHash != want {
		t.Errorf("output hash %s, want %s", rec.OutputHash, want)
	}
	rec = rundir.Record{}
	if answer := c.Do(context.Background(), &Request{}, &rec); answer != "ttt" || !rec.OK() || rec.OutputTokens != 3 {
		t.Fatalf("after huge event: %q, record %+v", answer, rec)
	}
}

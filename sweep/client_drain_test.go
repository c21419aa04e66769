package sweep

import (
	"context"
	"testing"
	"time"

	"github.com/llmcap/llmcap/rundir"

	"github.com/llmcap/llmcap/sweep/ssetest"
)

// TestClientDrainAfterDone: Do returns at [DONE] whatever the server does next. A
// response whose end follows [DONE] later is drained in the background and its
// connection reused; one left open is closed after drainAfterDone and counted.
func TestClientDrainAfterDone(t *testing.T) {
	stream := slowStream(4, 10*time.Millisecond, 5*time.Millisecond)
	late := append(append([]ssetest.Step(nil), stream...), ssetest.Step{Delay: 150 * time.Millisecond})
	srv, err := ssetest.NewScripts(
		ssetest.Script{Steps: late},
		ssetest.Script{Steps: stream},
		ssetest.Script{Steps: stream, End: ssetest.EndHang})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	c := NewClient(ClientConfig{BaseURL: srv.URL, IdleTimeout: 5 * time.Second})
	defer c.CloseIdleConnections()
	do := func(what string) time.Duration {
		t.Helper()
		var rec rundir.Record
		start := time.Now()
		c.Do(context.Background(), &Request{MaxTokens: 4}, &rec)
		took := time.Since(start)
		if !rec.OK() || rec.OutputTokens != 4 || rec.E2EMs == nil {
			t.Fatalf("%s: record %s %s %q tokens %d, want ok with 4 tokens", what, rec.Status, rec.ErrorClass, rec.Error, rec.OutputTokens)
		}
		return took
	}
	// The body's end comes 150 ms after [DONE]: Do does not wait for it.
	if took := do("late end"); took > 140*time.Millisecond {
		t.Errorf("late end: Do took %v, want it to return at [DONE] (~25 ms)", took)
	}
	time.Sleep(300 * time.Millisecond) // the background drain ends the body
	do("after the late end")
	sent := srv.Sent()
	if len(sent) != 2 || sent[0].RemoteAddr != sent[1].RemoteAddr {
		t.Errorf("connection not reused after a background drain: %+v", remoteAddrs(sent))
	}
	// Left open after [DONE]: Do returns at once; the drain gives up after drainAfterDone.
	if took := do("left open"); took > drainAfterDone/2 {
		t.Errorf("left open: Do took %v, want it to return at [DONE]", took)
	}
	if n := c.OpenAfterDone(); n != 0 {
		t.Errorf("OpenAfterDone = %d before drainAfterDone passed, want 0", n)
	}
	deadline := time.Now().Add(drainAfterDone + 2*time.Second)
	for c.OpenAfterDone() == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := c.OpenAfterDone(); n != 1 {
		t.Errorf("OpenAfterDone = %d, want 1 (one response left open)", n)
	}
}

func remoteAddrs(sent []ssetest.Sent) []string {
	var out []string
	for _, s := range sent {
		out = append(out, s.RemoteAddr)
	}
	return out
}

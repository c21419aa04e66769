//go:build linux

package sweep

import (
	"testing"
	"time"

	"github.com/llmcap/llmcap/rundir"
	"github.com/llmcap/llmcap/sweep/ssetest"
)

// TestClientEpollRefusedKeepsTimeoutsAndCancel: when the epoll reader's set refuses a
// socket (epoll_ctl ENOSPC, the user's watches spent) after it was taken out of the
// netpoller, the request reads its body itself on the new conn, and a hung server
// still ends it by the idle timeout, a cancel by its class, within the same margins
// as on the other paths; a whole stream still measures every token.
func TestClientEpollRefusedKeepsTimeoutsAndCancel(t *testing.T) {
	epollAddFails.Store(true)
	defer epollAddFails.Store(false)
	hang := ssetest.Script{Steps: slowStream(1, 20*time.Millisecond, 0)[:2], End: ssetest.EndHang}
	cases := []struct {
		name     string
		script   ssetest.Script
		cfg      ClientConfig
		cancelAt time.Duration
		class    string
	}{
		{"idle", hang, ClientConfig{IdleTimeout: 80 * time.Millisecond}, 0, rundir.ErrTimeoutIdle},
		{"cancelled", hang, ClientConfig{}, 100 * time.Millisecond, rundir.ErrCancelled},
		{"whole stream", ssetest.Script{Steps: slowStream(8, 10*time.Millisecond, 5*time.Millisecond)}, ClientConfig{}, 0, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			watched := epollWatched.Load()
			rec, took := doScripted(t, tc.script, tc.cfg, tc.cancelAt)
			if n := epollWatched.Load() - watched; n != 0 {
				t.Fatalf("%d bodies went to the epoll reader, want 0 (its set refused them)", n)
			}
			if tc.class == "" {
				if !rec.OK() || rec.OutputTokens != 8 || rec.ITLMs == nil {
					t.Fatalf("record %+v, want ok with 8 tokens", rec)
				}
				return
			}
			if rec.Status != rundir.StatusError || rec.ErrorClass != tc.class {
				t.Fatalf("status %q class %q (%s), want error %q", rec.Status, rec.ErrorClass, rec.Error, tc.class)
			}
			if took < 80*time.Millisecond || took > 350*time.Millisecond {
				t.Errorf("Do took %v, want within [80 ms, 350 ms]", took)
			}
		})
	}
}

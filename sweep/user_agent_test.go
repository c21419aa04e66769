package sweep

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmcap/llmcap/rundir"
	"github.com/llmcap/llmcap/sweep/ssetest"
)

// TestClientUserAgentOnBothTransports: on the raw path and on net/http, a request
// carries ClientConfig.UserAgent, and "llmcap" when it is empty (not Go's
// Go-http-client/1.1).
func TestClientUserAgentOnBothTransports(t *testing.T) {
	srv, err := ssetest.NewScripts(ssetest.Script{Steps: slowStream(1, 0, 0)})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	defer func() { useRawHTTP = true }()
	for _, raw := range []bool{true, false} {
		useRawHTTP = raw
		for ua, want := range map[string]string{"llmcap/v1.2.3": "llmcap/v1.2.3", "": "llmcap"} {
			c := NewClient(ClientConfig{BaseURL: srv.URL, UserAgent: ua})
			var rec rundir.Record
			c.Do(context.Background(), &Request{}, &rec)
			c.CloseIdleConnections()
			sent := srv.Sent()
			if !rec.OK() || len(sent) == 0 {
				t.Fatalf("raw %v: %s %s", raw, rec.ErrorClass, rec.Error)
			}
			if got := sent[len(sent)-1].Header.Values("User-Agent"); len(got) != 1 || got[0] != want {
				t.Errorf("raw %v, UserAgent %q: server saw User-Agent %q, want %q", raw, ua, got, want)
			}
		}
	}
}

// TestSweepSendsLlmcapUserAgent: a sweep's requests (the preflight's and the load's)
// carry User-Agent llmcap/<Options.Version> on both transports when the plan sets none
// (a plan's target.headers User-Agent wins: TestServerLogsEachRecordsRequestID).
func TestSweepSendsLlmcapUserAgent(t *testing.T) {
	plan := strings.Replace(wirePlan, "    user-agent: wire-test/1\n", "", 1)
	t.Setenv("LLMCAP_TEST_WIRE_KEY", wireSecret)
	defer func() { useRawHTTP = true }()
	for _, raw := range []bool{true, false} {
		useRawHTTP = raw
		srv := wireServer(t)
		p := loadPlan(t, plan, srv.URL, nil)
		dir := filepath.Join(t.TempDir(), "run")
		if err := Run(context.Background(), p, Options{OutDir: dir, Version: "v0.9.1"}); err != nil {
			t.Fatal(err)
		}
		recs, _, _ := rtRead(t, dir)
		load := 0
		for _, s := range srv.WaitWritten(len(recs)+2, 5*time.Second) {
			if !strings.HasPrefix(s.RequestID, "preflight-") {
				load++
			}
			if got := s.Header.Get("User-Agent"); got != "llmcap/v0.9.1" {
				t.Errorf("raw %v: request %s: User-Agent %q, want llmcap/v0.9.1", raw, s.RequestID, got)
			}
		}
		if load == 0 || load < len(recs)-1 {
			t.Errorf("raw %v: %d load requests seen for %d records", raw, load, len(recs))
		}
	}
}

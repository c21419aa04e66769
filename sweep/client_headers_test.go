package sweep

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/llmcap/llmcap/rundir"
	"github.com/llmcap/llmcap/sweep/ssetest"
)

// TestClientHeadersOnBothTransports: on the raw path and on net/http, a request
// carries the extra headers, llmcap's own headers win over extra ones of the same name
// (Content-Type, Accept, X-Request-Id, the session header, Authorization with an API
// key), an extra User-Agent replaces the default, the session header is sent only
// with a SessionID, and a record without a request id gets one that the server sees.
func TestClientHeadersOnBothTransports(t *testing.T) {
	srv, err := ssetest.NewScripts(ssetest.Script{Steps: slowStream(1, 0, 0)})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	extra := http.Header{"X-Tenant": {"acme"}, "Content-Type": {"text/plain"}, "Accept": {"*/*"},
		"X-Request-Id": {"theirs"}, "X-Session-Id": {"theirs"}, "User-Agent": {"ua-test/2"}, "Authorization": {"Basic theirs"}}
	for _, raw := range []bool{true, false} {
		useRawHTTP = raw
		c := NewClient(ClientConfig{BaseURL: srv.URL, APIKey: "sk-hdr", Headers: extra, SessionHeader: "x-session-id"})
		recA := rundir.Record{RequestID: "run-s0001-r000001"}
		c.Do(context.Background(), &Request{SessionID: "sess-1"}, &recA)
		var recB rundir.Record
		c.Do(context.Background(), &Request{}, &recB)
		c.CloseIdleConnections()
		if !recA.OK() || !recB.OK() {
			t.Fatalf("raw %v: %s %s / %s %s", raw, recA.ErrorClass, recA.Error, recB.ErrorClass, recB.Error)
		}
		sent := srv.Sent()
		a, b := sent[len(sent)-2], sent[len(sent)-1]
		for k, want := range map[string]string{"X-Tenant": "acme", "Content-Type": "application/json", "Accept": "text/event-stream",
			"X-Request-Id": "run-s0001-r000001", "X-Session-Id": "sess-1", "User-Agent": "ua-test/2", "Authorization": "Bearer sk-hdr"} {
			if got := a.Header.Values(k); len(got) != 1 || got[0] != want {
				t.Errorf("raw %v: %s %q, want %q", raw, k, got, want)
			}
		}
		if got := b.Header.Values("X-Session-Id"); len(got) != 0 {
			t.Errorf("raw %v: a request without a session carried X-Session-Id %q", raw, got)
		}
		if !regexp.MustCompile(`^[0-9a-f]{8}-c\d{6}$`).MatchString(recB.RequestID) || b.RequestID != recB.RequestID {
			t.Errorf("raw %v: generated request id %q, server saw %q", raw, recB.RequestID, b.RequestID)
		}
	}
	useRawHTTP = true
}

// TestClientRefusesABadHeader: an extra header value with CR LF (header injection)
// fails the request as connect with "build request", on both transports, and nothing
// reaches the server.
func TestClientRefusesABadHeader(t *testing.T) {
	srv, err := ssetest.NewScripts(ssetest.Script{Steps: slowStream(1, 0, 0)})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	for _, raw := range []bool{true, false} {
		useRawHTTP = raw
		c := NewClient(ClientConfig{BaseURL: srv.URL, Headers: http.Header{"X-Evil": {"a\r\nX-Injected: 1"}}})
		var rec rundir.Record
		c.Do(context.Background(), &Request{}, &rec)
		if rec.ErrorClass != rundir.ErrConnect || !strings.Contains(rec.Error, "build request: header X-Evil") {
			t.Errorf("raw %v: %s %q, want connect / build request: header X-Evil…", raw, rec.ErrorClass, rec.Error)
		}
	}
	useRawHTTP = true
	if n := len(srv.Sent()); n != 0 {
		t.Errorf("the server got %d requests", n)
	}
}

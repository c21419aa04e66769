package sweep

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/llmcap/llmcap/rundir"
)

// forwardProxy is a real HTTP forward proxy on 127.0.0.1: it takes absolute-URI
// requests ("POST http://model.test/v1/chat/completions"), counts them by the host they
// name, and relays each, streaming, to backend (whatever host they name: the host
// exists only for the proxy).
type forwardProxy struct {
	*httptest.Server
	mu    sync.Mutex
	hosts map[string]int
	ids   []string // the X-Request-Id of each relayed request
}

func newForwardProxy(t *testing.T, backend string) *forwardProxy {
	t.Helper()
	to, err := url.Parse(backend)
	if err != nil {
		t.Fatal(err)
	}
	fp := &forwardProxy{hosts: map[string]int{}}
	relay := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.Out.URL.Scheme, r.Out.URL.Host = to.Scheme, to.Host
			r.Out.Host = r.In.Host
		},
		FlushInterval: -1,
	}
	fp.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !r.URL.IsAbs() {
			http.Error(w, "not a proxy request: "+r.RequestURI, http.StatusBadRequest)
			return
		}
		fp.mu.Lock()
		fp.hosts[r.URL.Host]++
		fp.ids = append(fp.ids, r.Header.Get("X-Request-Id"))
		fp.mu.Unlock()
		relay.ServeHTTP(w, r)
	}))
	t.Cleanup(fp.Close)
	return fp
}

// setProxyEnv sets HTTP_PROXY to proxy and clears the other proxy variables (both
// cases), for the test.
func setProxyEnv(t *testing.T, proxy, noProxy string) {
	for _, k := range []string{"HTTPS_PROXY", "https_proxy", "http_proxy", "no_proxy"} {
		t.Setenv(k, "")
	}
	t.Setenv("HTTP_PROXY", proxy)
	t.Setenv("NO_PROXY", noProxy)
}

// TestSweepGoesThroughHTTPProxy: with HTTP_PROXY set, the preflight and every load
// request go through the proxy (the target's host, model.test, resolves nowhere but
// there), on net/http although the raw path is on, the log says so, and every request
// succeeds; each relayed X-Request-Id is a record's request_id.
func TestSweepGoesThroughHTTPProxy(t *testing.T) {
	srv := newRTServer(t, 0, 0)
	fp := newForwardProxy(t, srv.URL)
	setProxyEnv(t, fp.URL, "")
	p := rtPlan("http://model.test/v1")
	var logs syncBuffer
	dir := filepath.Join(t.TempDir(), "run")
	if err := Run(context.Background(), p, Options{OutDir: dir, Logger: slog.New(slog.NewTextHandler(&logs, nil))}); err != nil {
		t.Fatalf("sweep through the proxy: %v\n%s", err, logs.String())
	}
	recs, _, _ := rtRead(t, dir)
	fp.mu.Lock()
	defer fp.mu.Unlock()
	ids := map[string]bool{}
	for _, id := range fp.ids {
		ids[id] = true
	}
	for _, r := range recs {
		if !r.OK() || !ids[r.RequestID] {
			t.Errorf("record %s: status %s %s; relayed by the proxy: %v", r.RequestID, r.Status, r.Error, ids[r.RequestID])
		}
	}
	srv.mu.Lock()
	served := srv.total
	srv.mu.Unlock()
	if len(recs) == 0 || fp.hosts["model.test"] < len(recs)+2 || served < len(recs) || len(fp.hosts) != 1 {
		t.Errorf("proxy relayed %v for %d records (server answered %d completions); want every request, preflight's 2 too, for model.test",
			fp.hosts, len(recs), served)
	}
	if !strings.Contains(logs.String(), "requests go through a proxy") || !strings.Contains(logs.String(), fp.URL) {
		t.Errorf("the log does not say the requests go through %s:\n%s", fp.URL, logs.String())
	}
}

// TestClientProxyChoice: the client's Proxy follows HTTP_PROXY and NO_PROXY; a proxied
// http:// target is sent through net/http (no raw pool), a direct one on the raw path;
// a loopback target never goes through a proxy.
func TestClientProxyChoice(t *testing.T) {
	for _, tc := range []struct {
		url, noProxy string
		proxied      bool
	}{
		{"http://model.test/v1", "", true},
		{"http://model.test/v1", "model.test", false},
		{"http://model.test/v1", ".test", false},
		{"http://127.0.0.1:9/v1", "", false},
	} {
		setProxyEnv(t, "http://127.0.0.1:3128", tc.noProxy)
		c := NewClient(ClientConfig{BaseURL: tc.url})
		p, err := c.Proxy()
		if err != nil || (p != nil) != tc.proxied || (p != nil && p.Host != "127.0.0.1:3128") {
			t.Errorf("%s NO_PROXY=%q: proxy %v, %v; want proxied %v", tc.url, tc.noProxy, p, err, tc.proxied)
		}
		if raw := c.rawPool() != nil; raw == tc.proxied {
			t.Errorf("%s NO_PROXY=%q: raw path %v, want %v", tc.url, tc.noProxy, raw, !tc.proxied)
		}
	}
}

// TestProxyUnreachableFailsAsConnect: a proxy that refuses connections fails each
// request as a connect error, not silently bypassed.
func TestProxyUnreachableFailsAsConnect(t *testing.T) {
	setProxyEnv(t, "http://127.0.0.1:1", "")
	c := NewClient(ClientConfig{BaseURL: "http://model.test/v1"})
	var rec rundir.Record
	c.Do(context.Background(), &Request{MaxTokens: 1}, &rec)
	if rec.ErrorClass != rundir.ErrConnect {
		t.Errorf("through a refusing proxy: %s %s, want %s", rec.ErrorClass, rec.Error, rundir.ErrConnect)
	}
}

package sweep

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/llmcap/llmcap/rundir"
)

// TestClientSendsURLCredentials: user info in the base URL is sent as Basic auth on
// every request of both transports (the raw HTTP/1.1 path and net/http), never in the
// request line; an API key wins over it.
func TestClientSendsURLCredentials(t *testing.T) {
	var mu sync.Mutex
	var auths, lines []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auths, lines = append(auths, r.Header.Get("Authorization")), append(lines, r.RequestURI)
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"x\"}}]}\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	base := strings.Replace(srv.URL, "http://", "http://al:pw-77@", 1) + "/v1"
	basic := "Basic " + base64.StdEncoding.EncodeToString([]byte("al:pw-77"))
	for _, tc := range []struct {
		raw       bool
		key, want string
	}{{true, "", basic}, {false, "", basic}, {true, "sk-1", "Bearer sk-1"}, {false, "sk-1", "Bearer sk-1"}} {
		useRawHTTP = tc.raw
		mu.Lock()
		auths, lines = nil, nil
		mu.Unlock()
		c := NewClient(ClientConfig{BaseURL: base, APIKey: tc.key})
		for range 3 {
			var rec rundir.Record
			c.Do(context.Background(), &Request{}, &rec)
			if rec.Status != rundir.StatusOK {
				t.Fatalf("raw %v key %q: %s %s", tc.raw, tc.key, rec.ErrorClass, rec.Error)
			}
		}
		c.CloseIdleConnections()
		mu.Lock()
		if len(auths) != 3 || auths[0] != tc.want || auths[2] != tc.want || lines[0] != "/v1/chat/completions" {
			t.Errorf("raw %v key %q: Authorization %q, request lines %q; want %q", tc.raw, tc.key, auths, lines, tc.want)
		}
		mu.Unlock()
	}
	useRawHTTP = true
}

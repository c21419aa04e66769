package sweep

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/llmcap/llmcap/rundir"
)

// TestRetryAfterRecorded: on both HTTP paths (raw HTTP/1.1 and net/http) the client
// records a 429's or 503's Retry-After in retry_after_ms, in delta-seconds or as an
// HTTP-date (second resolution: within a second of the wait it names); a 500's, or a
// 429 without one, is 0.
func TestRetryAfterRecorded(t *testing.T) {
	date := func() string { return time.Now().Add(3 * time.Second).UTC().Format(http.TimeFormat) }
	cases := []struct {
		name       string
		status     int
		retryAfter func() string
		lo, hi     int64
	}{
		{"429 delta-seconds", http.StatusTooManyRequests, func() string { return "2" }, 2000, 2000},
		{"503 HTTP-date", http.StatusServiceUnavailable, date, 1900, 3000},
		{"500 ignored", http.StatusInternalServerError, func() string { return "2" }, 0, 0},
		{"429 without", http.StatusTooManyRequests, func() string { return "" }, 0, 0},
	}
	for _, raw := range []bool{true, false} {
		for _, tc := range cases {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				httpError(w, tc.status, tc.retryAfter())
			}))
			useRawHTTP = raw
			c := NewClient(ClientConfig{BaseURL: srv.URL + "/v1", Model: "m"})
			var rec rundir.Record
			rec.RetryAfterMs = 99 // a reused record starts clean
			c.Do(context.Background(), &Request{MaxTokens: 4}, &rec)
			useRawHTTP = true
			srv.Close()
			if rec.HTTPStatus != tc.status || rec.RetryAfterMs < tc.lo || rec.RetryAfterMs > tc.hi {
				t.Errorf("raw %v, %s: status %d, retry_after_ms %d, want %d in [%d, %d]",
					raw, tc.name, rec.HTTPStatus, rec.RetryAfterMs, tc.status, tc.lo, tc.hi)
			}
		}
	}
}

// TestRetryAfterParse: delta-seconds (spaces trimmed, negative as 0, capped at a day),
// HTTP-dates (a past one as 0), garbage as 0, and only for 429 and 503.
func TestRetryAfterParse(t *testing.T) {
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		code int
		v    string
		want int64
	}{
		{429, " 5 ", 5000},
		{503, "0", 0},
		{429, "-3", 0},
		{429, "99999999999999", rundir.MaxRecordedRetryAfterMs},
		{503, "Sat, 01 Mar 2025 12:00:30 GMT", 30000},
		{429, "Sat, 01 Mar 2025 11:00:00 GMT", 0},
		{429, "soon", 0},
		{400, "5", 0},
		{502, "5", 0},
	}
	for _, tc := range cases {
		if got := retryAfterMs(tc.code, tc.v, now); got != tc.want {
			t.Errorf("retryAfterMs(%d, %q) = %d, want %d", tc.code, tc.v, got, tc.want)
		}
	}
}

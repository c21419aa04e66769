package ssetest

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// post sends one chat completion request on conn and returns the raw answer read
// until the server closes the connection or timeout passes.
func post(t *testing.T, addr string, timeout time.Duration) (string, error) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return "", err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(timeout))
	body := `{"model":"fault","stream":true}`
	fmt.Fprintf(c, "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	b, _ := io.ReadAll(c)
	return string(b), nil
}

// TestFaultServerScriptAndCounts: the probe (first request) is healthy and not
// counted; later requests follow the script and are counted by fault; each fault's
// bytes are as documented.
func TestFaultServerScriptAndCounts(t *testing.T) {
	faults := []Fault{FaultTooMany, FaultHTTP10, FaultShortLength, FaultGarbage, FaultNone}
	s, err := NewFaultServer(FaultConfig{Script: func(n int, _ time.Duration) Fault { return faults[n] }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	want := []string{
		"HTTP/1.1 200 OK", // the probe
		"HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nRetry-After: 1\r\n",
		"HTTP/1.0 200 OK\r\n",
		"HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: 16\r\n\r\n{\"error\":{\"messa",
		"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: 4096\r\n",
		"HTTP/1.1 200 OK",
	}
	for i, w := range want {
		got, err := post(t, s.Addr, 5*time.Second)
		if err != nil || !strings.HasPrefix(got, w) {
			t.Fatalf("request %d: %q, %v; want prefix %q", i, got[:min(len(got), 120)], err, w)
		}
		if i == 3 && !strings.HasSuffix(got, `"type":"invalid_request_error"}}`) {
			t.Errorf("short_length: the rest of the body did not follow: %q", got)
		}
		if (i == 0 || i == 5) && !strings.Contains(got, "data: [DONE]") {
			t.Errorf("request %d: healthy answer without [DONE]: %q", i, got)
		}
	}
	if n := s.Requests(); n != len(faults) {
		t.Errorf("Requests = %d, want %d (the probe excluded)", n, len(faults))
	}
	for _, f := range faults {
		if c := s.Counts()[f]; c != 1 {
			t.Errorf("Counts[%s] = %d, want 1", f, c)
		}
	}
}

// TestFaultServerOutage: after OutageAfter answers the port refuses connections, and it
// serves again after OutageFor.
func TestFaultServerOutage(t *testing.T) {
	s, err := NewFaultServer(FaultConfig{OutageAfter: 1, OutageFor: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i := range 2 { // the probe, then the load request that starts the outage
		if got, err := post(t, s.Addr, 5*time.Second); err != nil || !strings.HasPrefix(got, "HTTP/1.1 200 OK") {
			t.Fatalf("request %d: %q, %v", i, got, err)
		}
	}
	refused := false
	for deadline := time.Now().Add(time.Second); time.Now().Before(deadline) && !refused; {
		c, err := net.Dial("tcp", s.Addr)
		refused = err != nil
		if c != nil {
			c.Close()
		}
		time.Sleep(5 * time.Millisecond)
	}
	if !refused || s.Outages() != 1 {
		t.Fatalf("no refused connect after OutageAfter (outages %d)", s.Outages())
	}
	deadline := time.Now().Add(3 * time.Second)
	for {
		resp, err := http.Get("http://" + s.Addr + "/v1/models")
		if err == nil {
			line, _ := bufio.NewReader(resp.Body).ReadString('}')
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || !strings.Contains(line, `"id":"fault"`) {
				t.Fatalf("after the outage: %d %q", resp.StatusCode, line)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the listener did not reopen: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

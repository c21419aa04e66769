package sim

import (
	"bufio"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/llmcap/llmcap/plan"
)

// TestStreamClientGone checks that a client leaving a stream mid-way frees its batch
// slot: with max_num_seqs 1 a second request completes only once the first, cut after
// its first token, is aborted, and the scheduler then holds no request.
func TestStreamClientGone(t *testing.T) {
	s := startTest(t, plan.Simulator{MaxNumSeqs: 1, SpeedUp: 5})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	body := `{"stream":true,"max_tokens":100000,"ignore_eos":true,"prompt":"` + words(8) + `"}`
	hr, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.URL()+"/completions", strings.NewReader(body))
	resp, err := http.DefaultClient.Do(hr)
	if err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil || !strings.Contains(line, `"finish_reason":null`) {
		t.Fatalf("first event %q, %v", line, err)
	}
	cancel() // ~10 ms a token at speed-up 5: 100,000 tokens would take ~17 minutes
	resp.Body.Close()

	res := postStream(t, &http.Client{Timeout: 10 * time.Second}, s.URL()+"/completions", map[string]any{
		"stream": true, "max_tokens": 5, "ignore_eos": true, "prompt": words(8)})
	if !res.done || len(res.content) != 5 {
		t.Fatalf("second request: [DONE] %v, %d tokens, want 5", res.done, len(res.content))
	}
	s.mu.Lock()
	running, waiting := s.sched.Running(), s.sched.Waiting()
	s.mu.Unlock()
	if running != 0 || waiting != 0 {
		t.Errorf("scheduler holds %d running, %d waiting after both streams", running, waiting)
	}
}

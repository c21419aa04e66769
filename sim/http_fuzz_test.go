package sim

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/llmcap/llmcap/plan"
)

// FuzzSimRequest checks the simulator's request parser on arbitrary bodies, both
// directly and through its HTTP server on 127.0.0.1. Properties: a body is either
// accepted (200) with 1 ≤ output tokens and prompt + output within max_model_len, or
// refused with a 4xx and an OpenAI error object with a message — never a 5xx, a panic
// or a dropped connection.
func FuzzSimRequest(f *testing.F) {
	s := startTest(f, plan.Simulator{SpeedUp: 1e4})
	client := &http.Client{Timeout: 30 * time.Second}
	seeds := []string{
		`{"model":"llama-3.1-8b","messages":[{"role":"user","content":"hello there"}],"max_tokens":4,"stream":true,"stream_options":{"include_usage":true}}`,
		`{"messages":[{"role":"system","content":"be brief"},{"role":"user","content":[{"type":"text","text":"hi"},"x"]}],"max_completion_tokens":3,"ignore_eos":true}`,
		`{"model":"llama-3.1-8b","prompt":"once upon a time","max_tokens":5,"seed":-7}`,
		`{"prompt":["a","b"],"max_tokens":2,"stream":true}`,
		`{"model":"gpt-4","messages":[{"role":"user","content":"x"}]}`,
		`{"messages":[],"max_tokens":1}`,
		`{"prompt":"x","max_tokens":0}`,
		`{"prompt":"x","max_tokens":9223372036854775807}`,
		`{"prompt":{"a":1}}`,
		`not json`,
	}
	for _, b := range seeds {
		f.Add([]byte(b), true)
		f.Add([]byte(b), false)
	}
	f.Fuzz(func(t *testing.T, body []byte, chat bool) {
		var req completionRequest
		if json.Unmarshal(body, &req) == nil {
			r, status, code, msg := s.parse(&req, chat)
			switch {
			case r == nil && (status < 400 || status > 499 || code == "" || msg == ""):
				t.Fatalf("refused with status %d code %q message %q", status, code, msg)
			case r != nil && (r.OutputTokens < 1 || r.PromptTokens < 1 ||
				r.OutputTokens > s.model.MaxModelLen-r.PromptTokens):
				t.Fatalf("accepted %d prompt + %d output tokens (max_model_len %d)", r.PromptTokens, r.OutputTokens, s.model.MaxModelLen)
			}
		}
		path := "/completions"
		if chat {
			path = "/chat/completions"
		}
		checkSimResponse(t, client, s.URL()+path, body)
	})
}

// checkSimResponse posts body and checks the status and, for a 4xx, the error object.
func checkSimResponse(t *testing.T, client *http.Client, url string, body []byte) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := client.Do(hr)
	if err != nil {
		t.Fatalf("POST %q: %v", body, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusOK {
		return // the stream (or answer) itself is the server tests' subject
	}
	if resp.StatusCode < 400 || resp.StatusCode > 499 {
		t.Fatalf("status %d for %q", resp.StatusCode, body)
	}
	b, _ := io.ReadAll(resp.Body)
	var e struct {
		Error struct {
			Message string `json:"message"`
			Type    string `json:"type"`
		} `json:"error"`
	}
	if err := json.Unmarshal(b, &e); err != nil || e.Error.Message == "" || e.Error.Type == "" {
		t.Fatalf("status %d body %q is not an OpenAI error object (%v)", resp.StatusCode, b, err)
	}
}

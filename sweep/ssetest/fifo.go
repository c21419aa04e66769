package ssetest

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// FIFOConfig is a queueing server with a known capacity: Slots requests are served at
// once, the others wait in arrival order (first in, first out). A served request
// answers its first token PrefillMs after it got a slot and then one token every
// ITLMs until Tokens tokens are out: its service time is
// S = PrefillMs + (Tokens − 1)·ITLMs, and with n > Slots concurrent clients each waits
// for a slot. It is the ground truth of the capacity search's tests.
type FIFOConfig struct {
	Slots     int
	PrefillMs float64
	ITLMs     float64
	Tokens    int
	// Metrics, when set, serves vLLM-named gauges at /metrics:
	// vllm:num_requests_running and vllm:num_requests_waiting.
	Metrics bool
}

// FIFO is a running FIFOConfig server on 127.0.0.1 speaking the OpenAI chat
// completions streaming API (with a usage chunk) and GET /v1/models.
type FIFO struct {
	// URL is the OpenAI-style base URL "http://127.0.0.1:PORT/v1"; MetricsURL the
	// Prometheus endpoint (served when FIFOConfig.Metrics).
	URL, MetricsURL string
	cfg             FIFOConfig
	srv             *http.Server
	done            chan struct{}

	mu      sync.Mutex
	queue   []chan struct{} // waiting requests, in arrival order
	running int
	served  int
	maxRun  int
}

// NewFIFO starts a FIFO server; it fails only when no loopback listener can be opened
// or the configuration has no slot or token.
func NewFIFO(cfg FIFOConfig) (*FIFO, error) {
	if cfg.Slots < 1 || cfg.Tokens < 1 {
		return nil, fmt.Errorf("ssetest: FIFO needs slots and tokens >= 1 (got %d, %d)", cfg.Slots, cfg.Tokens)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	f := &FIFO{cfg: cfg, done: make(chan struct{})}
	f.URL = "http://" + ln.Addr().String() + "/v1"
	f.MetricsURL = "http://" + ln.Addr().String() + "/metrics"
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/models", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"object":"list","data":[{"id":"fifo","object":"model"}]}`)
	})
	mux.HandleFunc("/v1/chat/completions", f.complete)
	if cfg.Metrics {
		mux.HandleFunc("/metrics", f.metrics)
	}
	f.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(f.done)
		_ = f.srv.Serve(ln)
	}()
	return f, nil
}

// Close stops the server.
func (f *FIFO) Close() {
	_ = f.srv.Close()
	<-f.done
}

// Served is the number of requests that got a slot; MaxRunning the most served at once.
func (f *FIFO) Served() (served, maxRunning int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.served, f.maxRun
}

// acquire waits for a slot in arrival order; false when the client went away first.
func (f *FIFO) acquire(r *http.Request) bool {
	f.mu.Lock()
	if f.running < f.cfg.Slots && len(f.queue) == 0 {
		f.take()
		f.mu.Unlock()
		return true
	}
	ch := make(chan struct{})
	f.queue = append(f.queue, ch)
	f.mu.Unlock()
	select {
	case <-ch:
		return true
	case <-r.Context().Done():
		f.mu.Lock()
		defer f.mu.Unlock()
		for i, c := range f.queue {
			if c == ch {
				f.queue = append(f.queue[:i], f.queue[i+1:]...)
				return false
			}
		}
		f.releaseLocked() // granted just as the client left: hand the slot on
		return false
	}
}

func (f *FIFO) take() {
	f.running++
	f.served++
	f.maxRun = max(f.maxRun, f.running)
}

// release frees a slot, granting it to the oldest waiting request.
func (f *FIFO) release() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.releaseLocked()
}

func (f *FIFO) releaseLocked() {
	f.running--
	if len(f.queue) > 0 {
		ch := f.queue[0]
		f.queue = f.queue[1:]
		f.take()
		close(ch)
	}
}

func (f *FIFO) complete(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Messages []struct {
			Content string `json:"content"`
		} `json:"messages"`
	}
	body, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(body, &req)
	prompt := 0
	for _, m := range req.Messages {
		prompt += len(m.Content) / 4
	}
	if !f.acquire(r) {
		return
	}
	defer f.release()
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	_ = rc.Flush()
	start := time.Now()
	ms := func(x float64) time.Duration { return time.Duration(x * float64(time.Millisecond)) }
	for i := range f.cfg.Tokens {
		sleepUntil(start.Add(ms(f.cfg.PrefillMs + float64(i)*f.cfg.ITLMs)))
		chunk := `{"id":"fifo","object":"chat.completion.chunk","model":"fifo","choices":[{"index":0,"delta":{"content":" tok"},"finish_reason":null}]}`
		if _, err := w.Write(Events(chunk)); err != nil || rc.Flush() != nil {
			return
		}
	}
	usage := fmt.Sprintf(`{"id":"fifo","object":"chat.completion.chunk","model":"fifo","choices":[],"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}}`,
		prompt, f.cfg.Tokens, prompt+f.cfg.Tokens)
	_, _ = w.Write(Events(usage, "[DONE]"))
	_ = rc.Flush()
}

func (f *FIFO) metrics(w http.ResponseWriter, _ *http.Request) {
	f.mu.Lock()
	running, waiting := f.running, len(f.queue)
	f.mu.Unlock()
	w.Header().Set("Content-Type", "text/plain; version=0.0.4")
	fmt.Fprintf(w, "# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{model_name=\"fifo\"} %d\n", running)
	fmt.Fprintf(w, "# TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting{model_name=\"fifo\"} %d\n", waiting)
}

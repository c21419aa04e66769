package sweep

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
)

// faultServer is a loopback OpenAI-compatible server whose load requests (every chat
// request but the sweep's preflight probe) are answered by load(n, w, maxTokens), n
// counting them from 0; /v1/models and the probe are answered as a healthy server
// would. It records when each load request arrived.
type faultServer struct {
	*httptest.Server
	load func(n int, w http.ResponseWriter, maxTokens int)

	mu      sync.Mutex
	arrived []time.Time
}

func newFaultServer(t testing.TB, load func(n int, w http.ResponseWriter, maxTokens int)) *faultServer {
	f := &faultServer{load: load}
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/models", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"object":"list","data":[{"id":"rt-model","object":"model"}]}`)
	})
	mux.HandleFunc("/v1/chat/completions", f.complete)
	f.Server = httptest.NewServer(mux)
	t.Cleanup(f.Close)
	return f
}

func (f *faultServer) url() string { return f.Server.URL + "/v1" }

// loads is how many load requests arrived.
func (f *faultServer) loads() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.arrived)
}

func (f *faultServer) complete(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	var body struct {
		MaxTokens int           `json:"max_tokens"`
		Messages  []ChatMessage `json:"messages"`
	}
	_ = json.Unmarshal(b, &body)
	if len(body.Messages) == 1 && strings.TrimSpace(body.Messages[0].Content) == preflightPrompt {
		streamTokens(w, 1)
		return
	}
	f.mu.Lock()
	n := len(f.arrived)
	f.arrived = append(f.arrived, time.Now())
	f.mu.Unlock()
	f.load(n, w, body.MaxTokens)
}

// streamTokens answers n one-word chunks, a usage chunk with completion_tokens n and
// [DONE].
func streamTokens(w http.ResponseWriter, n int) {
	w.Header().Set("Content-Type", "text/event-stream")
	for i := range n {
		fmt.Fprintf(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"w%d \"}}]}\n\n", i)
	}
	fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"length\"}]}\n\n")
	fmt.Fprintf(w, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":%d}}\n\n", n)
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// httpError answers status with an OpenAI error body and the given Retry-After ("" none).
func httpError(w http.ResponseWriter, status int, retryAfter string) {
	if retryAfter != "" {
		w.Header().Set("Retry-After", retryAfter)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"error":{"message":"scripted %d"}}`, status)
}

// runFault runs p into a fresh directory (with hook, if any) and returns its records,
// its one step and run.json.
func runFault(t *testing.T, p *plan.Plan, hook StepHook) (string, []rundir.Record, rundir.StepSummary, rundir.RunMeta) {
	t.Helper()
	dir := t.TempDir()
	opts := Options{OutDir: dir, Logger: slog.New(slog.DiscardHandler), Hook: hook}
	if err := Run(context.Background(), p, opts); err != nil {
		t.Fatal(err)
	}
	recs, steps, meta := rtRead(t, dir)
	if len(steps) != 1 {
		t.Fatalf("%d steps, want 1", len(steps))
	}
	return dir, recs, steps[0], meta
}

// windowS is a step's measurement window in seconds.
func windowS(s rundir.StepSummary) float64 {
	return float64(s.MeasureEndNs-s.MeasureStartNs) / 1e9
}

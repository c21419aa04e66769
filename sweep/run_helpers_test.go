package sweep

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmcap/llmcap/rundir"
	"github.com/llmcap/llmcap/sla"

	"github.com/llmcap/llmcap/plan"
)

// quantileOf is the q-quantile (0..1) of xs by sla.Percentile, on a sorted copy; NaN
// for none.
func quantileOf(xs []float64, q float64) float64 {
	v := slices.Clone(xs)
	slices.Sort(v)
	return sla.Percentile(v, q)
}

// rtServer is a real loopback OpenAI-compatible streaming server for the runner's tests:
// it answers /v1/chat/completions and /v1/completions with max_tokens one-word chunks
// (TTFT ttft, then one chunk every itl), a usage chunk counting prompt words, and
// [DONE]. It records the concurrency it sees and every prompt.
type rtServer struct {
	*httptest.Server
	ttft, itl time.Duration

	mu       sync.Mutex
	inflight int
	maxSeen  int
	total    int
	prompts  []string
	started  []time.Time
	auth     string
	probes   int // preflight probe requests seen
}

func (s *rtServer) authSeen() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.auth
}

func newRTServer(t testing.TB, ttft, itl time.Duration) *rtServer {
	return newRTServerAt(t, "", ttft, itl)
}

// newRTServerAt is newRTServer listening on addr ("" = any free loopback port).
func newRTServerAt(t testing.TB, addr string, ttft, itl time.Duration) *rtServer {
	s := &rtServer{ttft: ttft, itl: itl}
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/models", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"object":"list","data":[{"id":"rt-model","object":"model"}]}`)
	})
	mux.HandleFunc("/v1/chat/completions", s.complete)
	mux.HandleFunc("/v1/completions", s.complete)
	mux.HandleFunc("/metrics", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		fmt.Fprintf(w, "# TYPE rt_running gauge\nrt_running %d\n# TYPE rt_requests_total counter\nrt_requests_total{model=\"m\"} %d\n", s.inflight, s.total)
	})
	s.Server = httptest.NewUnstartedServer(mux)
	if addr != "" {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		s.Server.Listener.Close()
		s.Server.Listener = ln
	}
	s.Server.Start()
	t.Cleanup(s.Close)
	return s
}

func (s *rtServer) url() string { return s.Server.URL + "/v1" }

func (s *rtServer) stats() (maxSeen, total int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.maxSeen, s.total
}

func (s *rtServer) complete(w http.ResponseWriter, r *http.Request) {
	var body struct {
		MaxTokens int           `json:"max_tokens"`
		Prompt    string        `json:"prompt"`
		Messages  []ChatMessage `json:"messages"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, `{"error":{"message":"bad json"}}`, http.StatusBadRequest)
		return
	}
	prompt := body.Prompt
	for _, m := range body.Messages {
		prompt += " " + m.Content
	}
	s.mu.Lock()
	if strings.TrimSpace(prompt) == preflightPrompt {
		s.probes++ // the sweep's preflight probe is not load
		s.mu.Unlock()
		s.stream(w, r, prompt, 1, func() {})
		return
	}
	s.inflight++
	s.total++
	s.maxSeen = max(s.maxSeen, s.inflight)
	s.prompts = append(s.prompts, prompt)
	s.started = append(s.started, time.Now())
	s.auth = r.Header.Get("Authorization")
	s.mu.Unlock()
	// The request leaves the server's count as its answer is complete, before [DONE] (as
	// an engine's batch does): the client may send its next request on [DONE].
	var once sync.Once
	finished := func() {
		once.Do(func() {
			s.mu.Lock()
			s.inflight--
			s.mu.Unlock()
		})
	}
	defer finished()
	s.stream(w, r, prompt, max(body.MaxTokens, 1), finished)
}

// stream answers n one-word chunks, a usage chunk and [DONE]; finished is called just
// before [DONE] is written.
func (s *rtServer) stream(w http.ResponseWriter, r *http.Request, prompt string, n int, finished func()) {
	w.Header().Set("Content-Type", "text/event-stream")
	fl := w.(http.Flusher)
	ctx := r.Context()
	for i := 0; i < n; i++ {
		d := s.itl
		if i == 0 {
			d = s.ttft
		}
		select {
		case <-time.After(d):
		case <-ctx.Done():
			return
		}
		fmt.Fprintf(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"w%d \"}}]}\n\n", i)
		fl.Flush()
	}
	fmt.Fprintf(w, "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"length\"}]}\n\n")
	fmt.Fprintf(w, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":%d,\"completion_tokens\":%d}}\n\n",
		len(strings.Fields(prompt)), n)
	finished()
	fmt.Fprint(w, "data: [DONE]\n\n")
	fl.Flush()
}

// rtPlan is a small plan against url with one fixed-length segment.
func rtPlan(url string) *plan.Plan {
	return &plan.Plan{
		Name: "rt", Seed: 7,
		Target: plan.Target{URL: url, API: "chat", Model: "rt-model"},
		Segments: []plan.Segment{{Name: "short", Weight: 1,
			PromptTokens: plan.Dist{Kind: plan.DistUniform, Min: 20, Max: 60},
			OutputTokens: plan.Dist{Kind: plan.DistFixed, Value: 4}}},
		Ladder: plan.Ladder{Concurrency: []int{4}, Requests: 20},
		SLA:    plan.SLA{MaxErrorRate: 0.01},
	}
}

// rtRead reads a run directory's records and step summaries.
func rtRead(t testing.TB, dir string) ([]rundir.Record, []rundir.StepSummary, rundir.RunMeta) {
	t.Helper()
	var recs []rundir.Record
	var steps []rundir.StepSummary
	rtLines(t, filepath.Join(dir, rundir.FileRecords), func(b []byte) {
		var r rundir.Record
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatalf("records.jsonl: %v", err)
		}
		recs = append(recs, r)
	})
	rtLines(t, filepath.Join(dir, rundir.FileSteps), func(b []byte) {
		var s rundir.StepSummary
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatalf("steps.jsonl: %v", err)
		}
		steps = append(steps, s)
	})
	var meta rundir.RunMeta
	b, err := os.ReadFile(filepath.Join(dir, rundir.FileRun))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &meta); err != nil {
		t.Fatalf("run.json: %v", err)
	}
	return recs, steps, meta
}

func rtLines(t testing.TB, path string, fn func([]byte)) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		fn(sc.Bytes())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

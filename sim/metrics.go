package sim

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"time"
)

// Histogram bucket upper bounds in seconds, as vLLM's.
var (
	ttftBuckets     = []float64{0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80, 160, 640, 2560}
	itlBuckets      = []float64{0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80}
	latenessBuckets = []float64{0.0001, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.5, 1}
	e2eBuckets      = []float64{0.3, 0.5, 0.8, 1, 1.5, 2, 2.5, 5, 10, 15, 20, 30, 40, 50, 60, 120, 240, 480, 960, 1920, 7680}
)

type histogram struct {
	bounds []float64
	counts []uint64 // per bucket (not cumulative); last is +Inf
	sum    float64
	n      uint64
}

func newHistogram(bounds []float64) *histogram {
	return &histogram{bounds: bounds, counts: make([]uint64, len(bounds)+1)}
}

func (h *histogram) observe(v float64) {
	i := 0
	for i < len(h.bounds) && v > h.bounds[i] {
		i++
	}
	h.counts[i]++
	h.sum += v
	h.n++
}

// metrics holds the vLLM-named Prometheus series; guarded by Server.mu. Durations are
// wall-clock seconds as a client sees them (simulated time divided by speed_up).
type metrics struct {
	model                 string
	ttft, itl, e2e        *histogram
	finishedLength, stops uint64
	requestsArrived       uint64
}

func newMetrics(model string) *metrics {
	return &metrics{model: model, ttft: newHistogram(ttftBuckets), itl: newHistogram(itlBuckets), e2e: newHistogram(e2eBuckets)}
}

func (m *metrics) arrived() { m.requestsArrived++ }

func (m *metrics) observe(it *Iteration, emitted, finished []*Request, speedUp float64) {
	sec := func(d time.Duration) float64 { return d.Seconds() / speedUp }
	for _, r := range emitted {
		if r.Generated == 1 && r.LastGap == 0 {
			m.ttft.observe(sec(r.FirstToken - r.Arrival))
		} else {
			m.itl.observe(sec(r.LastGap))
		}
	}
	for _, r := range finished {
		m.e2e.observe(sec(r.LastToken - r.Arrival))
		if r.stream != nil && r.stream.length {
			m.finishedLength++
		} else {
			m.stops++
		}
	}
}

// writeMetrics writes the Prometheus text exposition (format 0.0.4) of the simulator.
func (s *Server) writeMetrics(w io.Writer) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	bw := bufio.NewWriter(w)
	m, sc := s.metrics, s.sched
	lbl := `{model_name="` + m.model + `"}`
	gauge := func(name, help string, v float64) {
		fmt.Fprintf(bw, "# HELP %s %s\n# TYPE %s gauge\n%s%s %s\n", name, help, name, name, lbl, fmtFloat(v))
	}
	counter := func(name, help string, v float64) {
		fmt.Fprintf(bw, "# HELP %s %s\n# TYPE %s counter\n%s%s %s\n", name, help, name, name, lbl, fmtFloat(v))
	}
	gauge("vllm:num_requests_running", "Number of requests in model execution batches.", float64(sc.Running()))
	gauge("vllm:num_requests_waiting", "Number of requests waiting to be processed.", float64(sc.Waiting()))
	gauge("vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", sc.KVUsage())
	counter("vllm:num_preemptions_total", "Cumulative number of preemption from the engine.", float64(sc.Preemptions))
	counter("vllm:prompt_tokens_total", "Number of prefill tokens processed.", float64(sc.PromptTokens))
	counter("vllm:generation_tokens_total", "Number of generation tokens processed.", float64(sc.GenerationTokens))
	counter("vllm:prefix_cache_queries_total", "Prefix cache queries, in terms of number of queried tokens.", float64(sc.PrefixQueries))
	counter("vllm:prefix_cache_hits_total", "Prefix cache hits, in terms of number of cached tokens.", float64(sc.PrefixHits))
	fmt.Fprintf(bw, "# HELP vllm:request_success_total Count of successfully processed requests.\n# TYPE vllm:request_success_total counter\n")
	fmt.Fprintf(bw, "vllm:request_success_total{finished_reason=\"length\",model_name=%q} %d\n", m.model, m.finishedLength)
	fmt.Fprintf(bw, "vllm:request_success_total{finished_reason=\"stop\",model_name=%q} %d\n", m.model, m.stops)
	writeHistogram(bw, "vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.", m.model, m.ttft)
	writeHistogram(bw, "vllm:inter_token_latency_seconds", "Histogram of inter-token latency in seconds.", m.model, m.itl)
	writeHistogram(bw, "vllm:e2e_request_latency_seconds", "Histogram of end to end request latency in seconds.", m.model, m.e2e)
	counter("llmcap_sim_iterations_total", "Engine iterations run by the simulator.", float64(sc.Iterations))
	if s.late.hist != nil {
		writeHistogram(bw, "llmcap_sim_iteration_lateness_seconds",
			"How late simulated iterations ended on the wall clock (driver scheduling delay).", m.model, s.late.hist)
	}
	return bw.Flush()
}

func writeHistogram(w io.Writer, name, help, model string, h *histogram) {
	fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s histogram\n", name, help, name)
	var cum uint64
	for i, b := range h.bounds {
		cum += h.counts[i]
		fmt.Fprintf(w, "%s_bucket{le=%q,model_name=%q} %d\n", name, fmtFloat(b), model, cum)
	}
	cum += h.counts[len(h.bounds)]
	fmt.Fprintf(w, "%s_bucket{le=\"+Inf\",model_name=%q} %d\n", name, model, cum)
	fmt.Fprintf(w, "%s_sum{model_name=%q} %s\n", name, model, fmtFloat(h.sum))
	fmt.Fprintf(w, "%s_count{model_name=%q} %d\n", name, model, h.n)
}

func fmtFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

package sim

import (
	"bufio"
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmcap/llmcap/plan"
)

// BenchmarkStreams5000 holds 5,000 concurrent SSE streams in real time (speed-up 1):
// Llama-3.1-8B on an H200 with max_num_seqs 5000, 32-token prompts and 128 output tokens
// (ignore_eos), the client in the same process. It reports the driver's iteration
// lateness p99 (goal < 5 ms) and the client-seen E2E p50 next to the simulated one.
//
//	go test ./sweep/sim -run '^$' -bench Streams5000 -benchtime 1x -v
func BenchmarkStreams5000(b *testing.B) {
	const streams, prompt, output = 5000, 32, 128
	cfg := plan.Simulator{GPU: "H200", Model: "llama-3.1-8b", MaxNumSeqs: streams}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: streams, DisableCompression: true}}
	body := fmt.Sprintf(`{"stream":true,"max_tokens":%d,"ignore_eos":true,"prompt":%q}`, output, words(prompt))
	for range b.N {
		s := startTest(b, cfg)
		var wg sync.WaitGroup
		e2e := make([]float64, streams)
		errs := make(chan error, streams)
		start := time.Now()
		for i := range streams {
			wg.Add(1)
			go func() {
				defer wg.Done()
				t0 := time.Now()
				n, err := readStream(client, s.URL()+"/completions", body)
				if err == nil && n != output {
					err = fmt.Errorf("stream %d: %d tokens, want %d", i, n, output)
				}
				if err != nil {
					errs <- err
				}
				e2e[i] = float64(time.Since(t0)) / 1e6
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			b.Fatal(err)
		}
		wall := time.Since(start)
		st := s.Stats()
		s.mu.Lock()
		simEnd := float64(s.sched.Iterations)
		s.mu.Unlock()
		b.ReportMetric(float64(st.LatenessP99)/1e6, "lateness-p99-ms")
		b.ReportMetric(float64(st.LatenessP50)/1e6, "lateness-p50-ms")
		b.ReportMetric(percentile(e2e, 0.5), "client-e2e-p50-ms")
		b.ReportMetric(streams*output/wall.Seconds(), "tokens/s")
		b.Logf("%d streams × %d tokens in %v: %v iterations, lateness p50 %v p99 %v max %v; client E2E p50 %.0f ms p99 %.0f ms",
			streams, output, wall.Round(time.Millisecond), simEnd, st.LatenessP50, st.LatenessP99, st.LatenessMax,
			percentile(e2e, 0.5), percentile(e2e, 0.99))
		_ = s.Close()
	}
}

// readStream posts body and counts the content events of the SSE stream.
func readStream(client *http.Client, url, body string) (int, error) {
	resp, err := client.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		return 0, fmt.Errorf("status %d", resp.StatusCode)
	}
	r := bufio.NewReader(resp.Body)
	n := 0
	for {
		line, err := r.ReadSlice('\n')
		if err != nil {
			return n, nil
		}
		if bytes.HasPrefix(line, []byte(`data: {`)) && bytes.Contains(line, []byte(`"finish_reason":null`)) {
			n++
		}
	}
}

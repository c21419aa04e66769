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
// Llama-3.1-8B with max_num_seqs 5000, 32-token prompts and 128 output tokens
// (ignore_eos), the client in the same process, on an H200 (~140 ms decode iterations at
// batch 5,000) and a B200 (~60 ms, the harder case). It reports the driver's iteration
// lateness p50/p99 (goal p99 < 5 ms), the client-seen E2E p50 and the token rate.
//
//	go test ./sim -run '^$' -bench Streams5000 -benchtime 1x -v
//
// Measured 2026-11-30 with the test binary pinned to 2 idle cores (taskset -c 0,1,
// GOMAXPROCS=2) on the session's device machine, two runs each: H200 lateness p99 1.1 and
// 2.0 ms; B200 3.6 and 5.1 ms. On the shared 2-core development machine at load average
// 17, p99 was 180–290 ms: other processes, not the simulator, held the CPUs.
func BenchmarkStreams5000(b *testing.B) {
	for _, gpu := range []string{"H200", "B200"} {
		b.Run(gpu, func(b *testing.B) {
			benchStreams(b, plan.Simulator{GPU: gpu, Model: "llama-3.1-8b", MaxNumSeqs: 5000}, 5000, 32, 128)
		})
	}
}

func benchStreams(b *testing.B, cfg plan.Simulator, streams, prompt, output int) {
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
		b.ReportMetric(float64(streams*output)/wall.Seconds(), "tokens/s")
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

package sim

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmcap/llmcap/internal/proctime"
	"github.com/llmcap/llmcap/plan"
)

// BenchmarkStreams5000 holds 5,000 concurrent SSE streams in real time (speed-up 1):
// Llama-3.1-8B with max_num_seqs 5000, 32-token prompts and 128 output tokens
// (ignore_eos), on an H200 (~140 ms decode iterations at batch 5,000) and a B200 (~60 ms,
// the harder case). The client load runs in a child process (client=process: the
// figures measure the simulator, its Go scheduler shared with nothing else) or in the
// benchmark's own process (client=inline: 5,000 client goroutines compete with the
// handlers and the driver). It reports the driver's iteration lateness p50/p99 (goal
// p99 ≤ 5 ms; docs/simulator.md defines it), the client-seen E2E p50, the token rate
// and the CPU time of this process per streamed token (with client=process, the
// simulator's alone).
//
//	go test ./sim -run '^$' -bench Streams5000 -benchtime 1x -v
//
// The figures of the ladder of designs tried are in docs/simulator.md.
func BenchmarkStreams5000(b *testing.B) {
	for _, gpu := range []string{"H200", "B200"} {
		for _, client := range []string{"process", "inline"} {
			b.Run(gpu+"/client="+client, func(b *testing.B) {
				benchStreams(b, plan.Simulator{GPU: gpu, Model: "llama-3.1-8b", MaxNumSeqs: 5000},
					streamLoad{Streams: 5000, Prompt: 32, Output: 128}, client == "process")
			})
		}
	}
}

// streamLoad is one benchmark load: Streams concurrent streaming completions of Prompt
// prompt words and Output tokens each (ignore_eos).
type streamLoad struct {
	URL                     string
	Streams, Prompt, Output int
}

// streamLoadResult is the client side's result: wall time of the whole load and the per-stream E2E
// latencies in ms.
type streamLoadResult struct {
	Wall time.Duration
	E2E  []float64
}

func benchStreams(b *testing.B, cfg plan.Simulator, load streamLoad, child bool) {
	for range b.N {
		s := startTest(b, cfg)
		load.URL = s.URL() + "/completions"
		cpu0 := proctime.CPU()
		var res streamLoadResult
		var err error
		if child {
			res, err = runLoadProcess(load)
		} else {
			res, err = runLoad(load)
		}
		if err != nil {
			b.Fatal(err)
		}
		cpu := proctime.CPU() - cpu0
		st := s.Stats()
		tokens := float64(load.Streams * load.Output)
		b.ReportMetric(float64(st.LatenessP99)/1e6, "lateness-p99-ms")
		b.ReportMetric(float64(st.LatenessP50)/1e6, "lateness-p50-ms")
		b.ReportMetric(percentile(res.E2E, 0.5), "client-e2e-p50-ms")
		b.ReportMetric(tokens/res.Wall.Seconds(), "tokens/s")
		b.ReportMetric(float64(cpu.Microseconds())/tokens, "cpu-µs/token")
		b.Logf("%d streams × %d tokens in %v: %v iterations, lateness p50 %v p99 %v max %v; client E2E p50 %.0f ms p99 %.0f ms; this process %v CPU",
			load.Streams, load.Output, res.Wall.Round(time.Millisecond), st.Iterations, st.LatenessP50, st.LatenessP99, st.LatenessMax,
			percentile(res.E2E, 0.5), percentile(res.E2E, 0.99), cpu.Round(time.Millisecond))
		_ = s.Close()
	}
}

// runLoad runs load in this process: one goroutine and one connection per stream.
func runLoad(load streamLoad) (streamLoadResult, error) {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: load.Streams, DisableCompression: true}}
	defer client.CloseIdleConnections()
	body := fmt.Sprintf(`{"stream":true,"max_tokens":%d,"ignore_eos":true,"prompt":%q}`, load.Output, words(load.Prompt))
	var wg sync.WaitGroup
	res := streamLoadResult{E2E: make([]float64, load.Streams)}
	errs := make(chan error, load.Streams)
	start := time.Now()
	for i := range load.Streams {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t0 := time.Now()
			n, err := readStream(client, load.URL, body)
			if err == nil && n != load.Output {
				err = fmt.Errorf("stream %d: %d tokens, want %d", i, n, load.Output)
			}
			if err != nil {
				errs <- err
			}
			res.E2E[i] = float64(time.Since(t0)) / 1e6
		}()
	}
	wg.Wait()
	res.Wall = time.Since(start)
	close(errs)
	return res, <-errs // nil when no stream failed
}

// loadEnv carries a streamLoad (JSON) to the child process.
const loadEnv = "LLMCAP_SIM_BENCH_LOAD"

// runLoadProcess runs load in a child process (TestStreamLoadProcess) and reads its
// result from the child's "LOAD {json}" line.
func runLoadProcess(load streamLoad) (streamLoadResult, error) {
	spec, _ := json.Marshal(load)
	cmd := exec.Command(os.Args[0], "-test.run=^TestStreamLoadProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), loadEnv+"="+string(spec))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return streamLoadResult{}, fmt.Errorf("load process: %w (output %q)", err, out)
	}
	for line := range strings.Lines(string(out)) {
		if rest, ok := strings.CutPrefix(line, "LOAD "); ok {
			var res streamLoadResult
			if err := json.Unmarshal([]byte(rest), &res); err != nil {
				return res, fmt.Errorf("load process result %q: %w", rest, err)
			}
			return res, nil
		}
	}
	return streamLoadResult{}, fmt.Errorf("load process printed no LOAD line: %q", out)
}

// TestStreamLoadProcess is the child process of runLoadProcess (skipped otherwise).
func TestStreamLoadProcess(t *testing.T) {
	spec := os.Getenv(loadEnv)
	if spec == "" {
		t.Skip("the child process of BenchmarkStreams5000's client=process load")
	}
	var load streamLoad
	if err := json.Unmarshal([]byte(spec), &load); err != nil {
		t.Fatal(err)
	}
	res, err := runLoad(load)
	if err != nil {
		t.Fatal(err)
	}
	line, _ := json.Marshal(res)
	fmt.Printf("LOAD %s\n", line)
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

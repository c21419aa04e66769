package sim

import (
	"bufio"
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/llmcap/llmcap/plan"
)

// TestSpeedUpKeepsSimulatedTime: a sped-up simulator keeps its iterations back to back
// in simulated time. One stream of 400 tokens on cpu-slow with stories-260k (each
// iteration is the 10 ms overhead) at speed_up 20 must show a median wall-clock token gap
// of 10 ms / 20 = 0.5 ms, within 5 %. Re-synchronising to the wall clock after every
// iteration added the OS's wake-up latency (≈ 0.1 ms) to each, speed_up times over in
// simulated time: a median gap of 0.60 ms (+20 %). The median leaves out the rare stalls
// of a shared host (a stall longer than maxLag is not absorbed).
func TestSpeedUpKeepsSimulatedTime(t *testing.T) {
	const speedUp, tokens = 20, 400
	s := startTest(t, plan.Simulator{GPU: "cpu-slow", Model: "stories-260k", OverheadMs: 10, SpeedUp: speedUp})
	step := s.roof.DecodeStep(32)
	body := fmt.Sprintf(`{"stream":true,"max_tokens":%d,"ignore_eos":true,"prompt":%q}`, tokens, words(16))
	at, err := tokenTimes(http.DefaultClient, s.URL()+"/completions", body)
	if err != nil {
		t.Fatal(err)
	}
	if len(at) != tokens {
		t.Fatalf("%d tokens, want %d", len(at), tokens)
	}
	gaps := make([]float64, 0, tokens-1)
	for i := 1; i < len(at); i++ {
		gaps = append(gaps, float64(at[i].Sub(at[i-1])))
	}
	gap := time.Duration(percentile(gaps, 0.5))
	want := step / speedUp
	st := s.Stats()
	t.Logf("median token gap %v (×%d = %v simulated), decode step %v; driver lateness p50 %v p99 %v max %v",
		gap, speedUp, gap*speedUp, step, st.LatenessP50, st.LatenessP99, st.LatenessMax)
	if r := float64(gap) / float64(want); r < 0.95 || r > 1.05 {
		t.Errorf("median token gap %v, want %v (the %v decode step / %d) ± 5%%", gap, want, step, speedUp)
	}
}

// tokenTimes posts a streaming completion and returns the arrival time of each content
// event.
func tokenTimes(client *http.Client, url, body string) ([]time.Time, error) {
	resp, err := client.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("status %d", resp.StatusCode)
	}
	var at []time.Time
	r := bufio.NewReader(resp.Body)
	for {
		line, err := r.ReadSlice('\n')
		if err != nil {
			return at, nil
		}
		if bytes.HasPrefix(line, []byte(`data: {`)) && bytes.Contains(line, []byte(`"finish_reason":null`)) {
			at = append(at, time.Now())
		}
	}
}

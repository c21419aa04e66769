package sim

import (
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/llmcap/llmcap/plan"
)

// driftAnswers sends each prompt once at the given temperature (nil: none sent) with
// seed 1234 and max_tokens 64 to s, returning the answers' texts in prompt order.
func driftAnswers(t *testing.T, s *Server, prompts []string, temperature *float64) []string {
	t.Helper()
	out := make([]string, len(prompts))
	var wg sync.WaitGroup
	for i, p := range prompts {
		wg.Go(func() {
			body := map[string]any{"stream": true, "max_tokens": 64, "seed": 1234,
				"messages": []map[string]any{{"role": "user", "content": p}}}
			if temperature != nil {
				body["temperature"] = *temperature
			}
			res := postStream(t, http.DefaultClient, s.URL()+"/chat/completions", body)
			if res.status != http.StatusOK || len(res.content) != 64 {
				t.Errorf("prompt %d: HTTP %d, %d tokens; want 200 and 64", i, res.status, len(res.content))
			}
			out[i] = strings.Join(res.content, "")
		})
	}
	wg.Wait()
	return out
}

// changed counts the prompts whose answers differ between a and b.
func changed(a, b []string) int {
	n := 0
	for i := range a {
		if a[i] != b[i] {
			n++
		}
	}
	return n
}

func shippedPrompts(t *testing.T) []string {
	t.Helper()
	prompts, err := plan.Drift{}.LoadPrompts()
	if err != nil || len(prompts) != 50 {
		t.Fatalf("the shipped drift prompts: %d, %v; want 50", len(prompts), err)
	}
	return prompts
}

// TestDriftSimulatorTemperatureZeroIsAFunctionOfThePrompt: at temperature 0 the
// simulator's text depends on the prompt and seed alone — the same on a second call and
// on a second server — and differs between prompts.
func TestDriftSimulatorTemperatureZeroIsAFunctionOfThePrompt(t *testing.T) {
	prompts := shippedPrompts(t)
	zero := 0.0
	cfg := plan.Simulator{SpeedUp: 1000, GPU: "H200", Model: "llama-3.2-1b"}
	a := driftAnswers(t, startTest(t, cfg), prompts, &zero)
	s := startTest(t, cfg)
	b, c := driftAnswers(t, s, prompts, &zero), driftAnswers(t, s, prompts, &zero)
	if n := changed(a, b) + changed(b, c); n != 0 {
		t.Errorf("%d answers changed at temperature 0 with nondeterministic_fraction 0; want none", n)
	}
	distinct := map[string]bool{}
	for _, x := range a {
		distinct[x] = true
	}
	if len(distinct) < 45 {
		t.Errorf("%d distinct answers to 50 prompts; want the text to depend on the prompt", len(distinct))
	}
}

// TestDriftSimulatorNondeterministicFraction: with nondeterministic_fraction 0.2 about a
// fifth of the 50 shipped prompts (10 ± 4) get another answer on a second call at
// temperature 0, the same prompts on every pair of calls, each diverging partway.
func TestDriftSimulatorNondeterministicFraction(t *testing.T) {
	prompts := shippedPrompts(t)
	zero := 0.0
	s := startTest(t, plan.Simulator{SpeedUp: 1000, GPU: "H200", Model: "llama-3.2-1b", NondeterministicFraction: 0.2})
	a, b, c := driftAnswers(t, s, prompts, &zero), driftAnswers(t, s, prompts, &zero), driftAnswers(t, s, prompts, &zero)
	n := changed(a, b)
	t.Logf("%d of 50 answers changed between two calls at nondeterministic_fraction 0.2", n)
	if n < 6 || n > 14 {
		t.Errorf("%d of 50 answers changed; want 10 ± 4", n)
	}
	for i := range prompts {
		if (a[i] != b[i]) != (b[i] != c[i]) || (a[i] != b[i]) != nondeterministic(promptHash(prompts[i]), 0.2) {
			t.Errorf("prompt %d: changed %v then %v; want the same prompts to change every time", i, a[i] != b[i], b[i] != c[i])
		}
	}
}

// TestDriftSimulatorOtherTemperaturesKeepTheRequestIDText: without temperature 0 the
// words are the request id's rotation of the vocabulary, as before greedy text existed.
func TestDriftSimulatorOtherTemperaturesKeepTheRequestIDText(t *testing.T) {
	s := startTest(t, plan.Simulator{SpeedUp: 1000, GPU: "H200", Model: "llama-3.2-1b"})
	one := 1.0
	for _, temp := range []*float64{nil, &one} {
		got := driftAnswers(t, s, []string{"hello there"}, temp)[0]
		words := strings.Fields(got)
		first := -1
		for i, v := range vocabulary {
			if v == words[0] {
				first = i
			}
		}
		for i, w := range words {
			if want := vocabulary[(first+i)%len(vocabulary)]; w != want {
				t.Fatalf("temperature %v: word %d is %q, want %q (the id's rotation)", temp, i, w, want)
			}
		}
	}
}

// promptHash is the simulator's text hash of one chat message.
func promptHash(p string) uint64 {
	h := newPromptHasher(16, false)
	h.add(p)
	return h.textHash
}

package analysis

import (
	"strings"
	"testing"
	"time"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
)

// TestErrorClassWordsNameTheClientLimit: page 1 shows error classes in plain words, a
// client timeout with the plan's own limit; unknown classes pass through unchanged.
func TestErrorClassWordsNameTheClientLimit(t *testing.T) {
	tg := plan.Target{RequestTimeout: 1500 * time.Millisecond, FirstByteTimeout: 10 * time.Minute}
	for class, want := range map[string]string{
		rundir.ErrTimeoutRequest:   "request timeout (client, 1.5 s)",
		rundir.ErrTimeoutFirstByte: "no reply in time (client, 10 min)",
		rundir.ErrTimeoutIdle:      "stream stalled (client)", // off: no limit to name
		rundir.ErrHTTP5xx:          "server error (HTTP 5xx)",
		rundir.ErrHTTP429:          "rate limited (HTTP 429)",
		"some_new_class":           "some_new_class",
	} {
		if got := ErrorClassWords(class, tg); got != want {
			t.Errorf("%s: %q, want %q", class, got, want)
		}
	}
}

// TestRequestTimeoutFailuresNameTheClientLimit: when most failures hit the client's own
// target.request_timeout, the advice and page 1's lines say so and how to raise it,
// instead of sending the reader to the server log; other failures keep the server-log
// advice.
func TestRequestTimeoutFailuresNameTheClientLimit(t *testing.T) {
	steps := []StepStats{{Load: 4}, {Load: 8, Errors: 43, ErrorClasses: map[string]int{rundir.ErrTimeoutRequest: 42, rundir.ErrHTTP5xx: 1}}}
	sa := &SegmentAnalysis{Steps: steps}
	c := Capacity{Method: MethodInterpolated, Bottleneck: RegimeErrors, BottleneckEvidence: "30% of requests failed at load 8 (timeout_request ×42)"}
	dep := deployment{target: plan.Target{RequestTimeout: 1500 * time.Millisecond}}
	advice := adviceFor(c, sa, dep, "H100-SXM")
	for _, want := range []string{"the client's own time limit per request (target.request_timeout, 1.5 s) ended them, not the server",
		"Raise target.request_timeout if the SLA allows requests that long"} {
		if !strings.Contains(advice, want) {
			t.Errorf("advice %q lacks %q", advice, want)
		}
	}
	if strings.Contains(advice, "Check the server log") {
		t.Errorf("advice %q still blames the server", advice)
	}
	a := &Analysis{Schedule: plan.ScheduleConcurrency}
	if got, want := limitWords(a, c, sa, dep), "Beyond this load too many requests fail: most run past the test's own time limit per request (1.5 s), not a server error."; got != want {
		t.Errorf("limit\n got %q\nwant %q", got, want)
	}
	if got := actionWords(a, c, sa, dep, false); !strings.HasPrefix(got, "Allow requests more than 1.5 s if the SLA accepts answers that long") {
		t.Errorf("action %q", got)
	}
	server := &SegmentAnalysis{Steps: []StepStats{{Load: 8, ErrorClasses: map[string]int{rundir.ErrHTTP5xx: 9}}}}
	if got := adviceFor(c, server, dep, "H100-SXM"); !strings.Contains(got, "Check the server log") {
		t.Errorf("server-error advice %q", got)
	}
	if got := limitWords(a, c, server, dep); got != "Beyond this load too many requests fail." {
		t.Errorf("server-error limit %q", got)
	}
}

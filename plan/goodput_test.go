package plan

import (
	"errors"
	"reflect"
	"testing"
)

func TestParseGoodput(t *testing.T) {
	got, err := ParseGoodput("  time_to_first_token:500 inter_token_latency:12.5\trequest_latency:4000 time_to_first_output_token:700 ")
	want := []GoodputBound{{"time_to_first_token", "ttft", 500}, {"inter_token_latency", "itl", 12.5},
		{"request_latency", "e2e", 4000}, {"time_to_first_output_token", "ttfo", 700}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("ParseGoodput = %v, %v; want %v", got, err, want)
	}
	for in, msg := range map[string]string{
		"":                        `no metric:value pair: want space-separated metric:value pairs, values in ms, e.g. "time_to_first_token:500 inter_token_latency:50"`,
		"time_to_first_token":     `not metric:value: want space-separated metric:value pairs, values in ms, e.g. "time_to_first_token:500 inter_token_latency:50"`,
		"ttft:500":                `unknown metric "ttft": must be one of time_to_first_token, time_to_first_output_token, inter_token_latency, request_latency`,
		"time_to_first_token:0":   `time_to_first_token's threshold "0" must be a number of ms > 0`,
		"request_latency:fast":    `request_latency's threshold "fast" must be a number of ms > 0`,
		"request_latency:+Inf":    `request_latency's threshold "+Inf" must be a number of ms > 0`,
		"inter_token_latency:NaN": `inter_token_latency's threshold "NaN" must be a number of ms > 0`,
		"time_to_first_token:1 time_to_first_token:2": `time_to_first_token is given twice: give each metric once`,
		"time_to_first_token:1 inter_token_latency":   `"inter_token_latency" is not metric:value: want space-separated metric:value pairs, values in ms, e.g. "time_to_first_token:500 inter_token_latency:50"`,
	} {
		if _, err := ParseGoodput(in); err == nil || err.Error() != msg {
			t.Errorf("ParseGoodput(%q) error %v, want %q", in, err, msg)
		}
	}
}

// TestGoodputInPlan: sla.goodput becomes p95 bounds beside the file's other bounds and
// is cleared; a bad string or a clash is a problem at sla.goodput, with the allowed
// metric names.
func TestGoodputInPlan(t *testing.T) {
	p, err := Load(writePlan(t, okSegments+okLadder+
		"sla: {goodput: 'time_to_first_token:300 inter_token_latency:40', ttft_ms: {p99: 900}, itl_ms: {p95: 40}}\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []Constraint{{"ttft", "p95", 300}, {"ttft", "p99", 900}, {"itl", "p95", 40}}
	if got := p.Constraints(); !reflect.DeepEqual(got, want) || p.SLA.Goodput != "" {
		t.Errorf("constraints %v (goodput %q), want %v", got, p.SLA.Goodput, want)
	}
	for yaml, msg := range map[string]string{
		"sla: {goodput: 'ttft:500'}\n": `sla.goodput: "ttft:500" is not allowed: unknown metric "ttft": must be one of ` +
			`time_to_first_token, time_to_first_output_token, inter_token_latency, request_latency`,
		"sla: {goodput: 'time_to_first_token=500'}\n": `sla.goodput: "time_to_first_token=500" is not allowed: ` +
			`not metric:value: want space-separated metric:value pairs, values in ms, ` +
			`e.g. "time_to_first_token:500 inter_token_latency:50"`,
		"sla: {goodput: 'time_to_first_token:500', ttft_ms: {p95: 300}}\n": `sla.goodput: "time_to_first_token:500" is not allowed: ` +
			`time_to_first_token:500 contradicts sla.ttft_ms.p95 = 300: give each bound once`,
	} {
		_, err := Load(writePlan(t, okSegments+okLadder+yaml), nil)
		var ve *ValidationError
		if !errors.As(err, &ve) || len(ve.Problems) != 1 || ve.Problems[0].Error() != msg {
			t.Errorf("%s: got %v\nwant the one problem %s", yaml, err, msg)
		}
	}
	// From an override (LLMCAP_SLA_GOODPUT, --set sla.goodput=…) it counts as a bound: no default SLA.
	p, err = Load("", map[string]any{"target.url": "http://127.0.0.1:8000/v1", "target.model": "m",
		"sla.goodput": "request_latency:2000"})
	if err != nil || !reflect.DeepEqual(p.Constraints(), []Constraint{{"e2e", "p95", 2000}}) {
		t.Errorf("goodput override: %v, %v", err, p.Constraints())
	}
}

package report

import (
	"testing"
	"time"

	"github.com/llmcap/llmcap/analysis"
	"github.com/llmcap/llmcap/plan"
)

// TestPlainNumbersSayWhatTheyAre: page 1's key numbers use short labels, whole loads
// without decimals, call the throughput a request rate ("about" where Little's law or
// the model gives it, not "answers completed") and give the SLA in plain words.
func TestPlainNumbersSayWhatTheyAre(t *testing.T) {
	c := analysis.Capacity{Method: methodInterpolated, UsersSource: analysis.UsersConverted, Users: 43, UsersWithThinkTime: 43.4,
		MaxConcurrencyWithinSLA: 5, ThinkTimeS: 10, ThroughputAtCapacity: 3.84, OutputTokensPerSAtCapacity: 711}
	a := &analysis.Analysis{Schedule: plan.ScheduleConcurrency, Overall: c,
		Constraints: []plan.Constraint{{Metric: "ttft", Stat: "p95", ThresholdMs: 500}, {Metric: "itl", Stat: "p95", ThresholdMs: 50}}}
	want := []keyValue{
		{"Users per GPU within SLA", "about 43 (who pause 10 s between requests)"},
		{"Requests in flight at once", "about 5"},
		{"Requests per second at that load", "about 3.84 req/s, 711 output tokens/s"},
		{"SLA (what counts as fast enough)", "TTFT p95 ≤ 500 ms, ITL p95 ≤ 50.0 ms: first word within 500 ms, then words every 50 ms or faster, for 95% of requests"},
	}
	got := plainNumbers(a)
	if len(got) != len(want) {
		t.Fatalf("plain numbers = %q", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("row %d = %q, want %q", i, got[i], want[i])
		}
	}
	rate := &analysis.Analysis{Schedule: plan.ScheduleRate, Overall: analysis.Capacity{Method: methodMeasured, MaxRateWithinSLA: 15,
		MaxConcurrencyWithinSLA: 11.11, ThroughputAtCapacity: 15, OutputTokensPerSAtCapacity: 1126}}
	for _, kv := range plainNumbers(rate) {
		if kv.Key == "Requests per second at that load" && kv.Value != "15.0 req/s, 1,126 output tokens/s" {
			t.Errorf("rate ladder's request rate = %q (a served rate, no \"about\")", kv.Value)
		}
	}
	if got := keyNumbers(rate)[6].Key; got != "Throughput at capacity (the rate served, at most the rate offered)" {
		t.Errorf("evidence throughput label = %q", got)
	}
	mixed := []plan.Constraint{{Metric: "ttft", Stat: "p99", ThresholdMs: 2000}, {Metric: "e2e", Stat: "mean", ThresholdMs: 30000}}
	if got, want := slaWords(mixed), "TTFT p99 ≤ 2,000 ms, E2E mean ≤ 30.0 s: first word within 2,000 ms (for 99% of requests), whole answer within 30.0 s (on average)"; got != want {
		t.Errorf("mixed SLA\n got %q\nwant %q", got, want)
	}
}

// TestBasisFollowsTheCapacityMethod: the capacity plan's basis says how the capacity
// was found and whether the users are estimated, as the "How sure" line does; a lower
// bound's replicas are "at most" only when there is more than one.
func TestBasisFollowsTheCapacityMethod(t *testing.T) {
	for _, tc := range []struct {
		method    analysis.CapacityMethod
		users     analysis.UsersSource
		replicas  int
		projected bool
		want      string
	}{
		{methodMeasured, analysis.UsersMeasured, 8, false, "measured"},
		{methodMeasured, analysis.UsersConverted, 8, false, "measured, est. users"},
		{methodInterpolated, analysis.UsersConverted, 8, false, "interpolated, est. users"},
		{methodModel, analysis.UsersMeasured, 8, false, "modelled"},
		{methodAtLeast, analysis.UsersMeasured, 34, false, "lower bound: at most 34 replicas"},
		{methodAtLeast, analysis.UsersConverted, 1, false, "lower bound, est. users"},
		{methodAtLeast, analysis.UsersMeasured, 3, true, "projected lower bound: at most 3 replicas"},
		{methodInterpolated, analysis.UsersMeasured, 3, true, "projected"},
	} {
		a := &analysis.Analysis{Overall: analysis.Capacity{Method: tc.method, UsersSource: tc.users}}
		if got := basisText(a, analysis.WhatIf{Replicas: tc.replicas, Projected: tc.projected}); got != tc.want {
			t.Errorf("%s/%s/%d/%v: basis %q, want %q", tc.method, tc.users, tc.replicas, tc.projected, got, tc.want)
		}
	}
}

// TestPageOneErrorsInPlainWords: page 1's error table names a client timeout in plain
// words with the plan's limit; the class names stay in errorRows (Evidence, workbook).
func TestPageOneErrorsInPlainWords(t *testing.T) {
	a := &analysis.Analysis{Errors: analysis.ErrorSummary{Requests: 142, Errors: 43,
		Classes: map[string]int{"timeout_request": 42, "http_5xx": 1}, Samples: map[string]string{"timeout_request": "request timeout"}}}
	a.Plan.Target.RequestTimeout = 1500 * time.Millisecond
	rows := errorPlainRows(a)
	if len(rows) != 2 || rows[0][0] != "request timeout (client, 1.5 s)" || rows[0][1] != "42" || rows[1][0] != "server error (HTTP 5xx)" {
		t.Errorf("page-1 error rows = %q", rows)
	}
	if raw := errorRows(a.Errors); raw[0][0] != "timeout_request" {
		t.Errorf("class rows = %q", raw)
	}
}

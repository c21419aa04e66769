package sweep

import (
	"bytes"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// vllmMetrics is an excerpt of a real vLLM 0.6 /metrics page: gauges, counters, a
// histogram and the process collector's metrics.
const vllmMetrics = `# HELP vllm:num_requests_running Number of requests currently running on GPU.
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{model_name="meta-llama/Llama-3.1-8B-Instruct"} 12.0
# HELP vllm:num_requests_waiting Number of requests waiting to be processed.
# TYPE vllm:num_requests_waiting gauge
vllm:num_requests_waiting{model_name="meta-llama/Llama-3.1-8B-Instruct"} 3.0
# HELP vllm:gpu_cache_usage_perc GPU KV-cache usage. 1 means 100 percent usage.
# TYPE vllm:gpu_cache_usage_perc gauge
vllm:gpu_cache_usage_perc{model_name="meta-llama/Llama-3.1-8B-Instruct"} 0.4375
# HELP vllm:prompt_tokens_total Number of prefill tokens processed.
# TYPE vllm:prompt_tokens_total counter
vllm:prompt_tokens_total{model_name="meta-llama/Llama-3.1-8B-Instruct"} 1.234567e+06
# HELP vllm:request_success_total Count of successfully processed requests.
# TYPE vllm:request_success_total counter
vllm:request_success_total{finished_reason="stop",model_name="meta-llama/Llama-3.1-8B-Instruct"} 120.0
vllm:request_success_total{finished_reason="length",model_name="meta-llama/Llama-3.1-8B-Instruct"} 7.0
# HELP vllm:time_to_first_token_seconds Histogram of time to first token in seconds.
# TYPE vllm:time_to_first_token_seconds histogram
vllm:time_to_first_token_seconds_bucket{le="0.001",model_name="meta-llama/Llama-3.1-8B-Instruct"} 0.0
vllm:time_to_first_token_seconds_bucket{le="0.04",model_name="meta-llama/Llama-3.1-8B-Instruct"} 31.0
vllm:time_to_first_token_seconds_bucket{le="1.0",model_name="meta-llama/Llama-3.1-8B-Instruct"} 120.0
vllm:time_to_first_token_seconds_bucket{le="+Inf",model_name="meta-llama/Llama-3.1-8B-Instruct"} 127.0
vllm:time_to_first_token_seconds_count{model_name="meta-llama/Llama-3.1-8B-Instruct"} 127.0
vllm:time_to_first_token_seconds_sum{model_name="meta-llama/Llama-3.1-8B-Instruct"} 9.87
# HELP process_resident_memory_bytes Resident memory size in bytes.
# TYPE process_resident_memory_bytes gauge
process_resident_memory_bytes 2.1e+09
# HELP go_gc_duration_seconds A summary of the pause duration of garbage collection cycles.
# TYPE go_gc_duration_seconds summary
go_gc_duration_seconds{quantile="0"} 2.1e-05
go_gc_duration_seconds{quantile="0.5"} 4.4e-05
go_gc_duration_seconds{quantile="1"} NaN
go_gc_duration_seconds_sum 0.0123
go_gc_duration_seconds_count 200
`

// FuzzPromFlatten checks the Prometheus flattening on arbitrary exposition text:
// values are finite (JSON holds no NaN or ±Inf), the result is deterministic, and
// each key decodes back — metric name before "{", then name="quoted value" pairs in
// sorted order (le or quantile last) — to a series of the parsed families with the
// same labels.
func FuzzPromFlatten(f *testing.F) {
	f.Add([]byte(vllmMetrics))
	f.Add([]byte("# TYPE x untyped\nx{a=\"1,b=\\\"2\\\"\",b=\"\\n\"} 1 1700000000000\n"))
	f.Add([]byte("up 1\nup{job=\"a\"} +Inf\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		vals, err := parseMetrics(bytes.NewReader(in))
		if err != nil {
			return
		}
		again, _ := parseMetrics(bytes.NewReader(in))
		if !maps.Equal(vals, again) {
			t.Fatalf("not deterministic: %v vs %v", vals, again)
		}
		series, legacy := promSeries(t, in)
		for k, v := range vals {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("%s = %g: not finite", k, v)
			}
			if !legacy {
				continue // a UTF-8 name may itself hold "{", "=" or ",": the key is then ambiguous
			}
			name, labels, err := decodeMetricKey(k)
			if err != nil {
				t.Fatalf("key %q does not decode: %v", k, err)
			}
			if !series[name+labels] {
				t.Fatalf("key %q (name %q, labels %s) is none of the input's series %v", k, name, labels, series)
			}
		}
	})
}

// promSeries parses in with expfmt and returns its series as flattened names with a
// canonical label rendering ("name" + sorted name=value list); legacy reports whether
// every metric and label name is a classic (non-UTF-8) Prometheus name.
func promSeries(t *testing.T, in []byte) (series map[string]bool, legacy bool) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(in))
	if err != nil {
		t.Fatalf("parseMetrics accepted what expfmt rejects: %v", err)
	}
	out, legacy := map[string]bool{}, true
	add := func(name string, labels map[string]string) { out[name+canonLabels(labels)] = true }
	for name, f := range fams {
		legacy = legacy && model.IsValidLegacyMetricName(name)
		for _, m := range f.GetMetric() {
			l := map[string]string{}
			for _, p := range m.GetLabel() {
				l[p.GetName()] = p.GetValue()
				legacy = legacy && model.LabelName(p.GetName()).IsValidLegacy()
			}
			add(name, l)
			add(name+"_sum", l)
			add(name+"_count", l)
			for _, b := range m.GetHistogram().GetBucket() {
				add(name+"_bucket", withLabel(l, "le", formatLe(b.GetUpperBound())))
			}
			for _, q := range m.GetSummary().GetQuantile() {
				add(name, withLabel(l, "quantile", strconv.FormatFloat(q.GetQuantile(), 'g', -1, 64)))
			}
		}
	}
	return out, legacy
}

func withLabel(l map[string]string, k, v string) map[string]string {
	c := maps.Clone(l)
	c[k] = v
	return c
}

func canonLabels(l map[string]string) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(l)) {
		fmt.Fprintf(&b, "%q=%q,", k, l[k])
	}
	return b.String()
}

// decodeMetricKey splits a flattened key name{a="x",b="y"} into its name and canonical
// labels (see canonLabels), reading each value as a Go-quoted string.
func decodeMetricKey(k string) (name, labels string, err error) {
	name, rest, ok := strings.Cut(k, "{")
	if !ok {
		return k, "", nil
	}
	l := map[string]string{}
	for {
		ln, after, ok := strings.Cut(rest, "=")
		if !ok {
			return "", "", fmt.Errorf("no = after %q", rest)
		}
		q, err := strconv.QuotedPrefix(after)
		if err != nil {
			return "", "", fmt.Errorf("label %s: %w", ln, err)
		}
		l[ln], _ = strconv.Unquote(q)
		rest = after[len(q):]
		if rest == "}" {
			return name, canonLabels(l), nil
		}
		if !strings.HasPrefix(rest, ",") {
			return "", "", fmt.Errorf("want , or } at %q", rest)
		}
		rest = rest[1:]
	}
}

package importer

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/llmcap/llmcap/plan"
)

// vllmResult is the result JSON of vllm bench serve --save-result --save-detailed
// (vllm/benchmarks/serve.py: main_async's result_json merged with benchmark()'s
// result). Per-request arrays are in file order, one entry per request of the main
// run (warm-ups are not saved); times in seconds: ttfts (send → first chunk), itls
// (per request, the gaps between consecutive chunks after the first), latencies (send
// → last chunk; newer versions), start_times (time.perf_counter() at send, a
// monotonic clock of arbitrary origin; newer versions). A failed request has a
// non-empty errors entry, ttft and latency 0 and output length 0.
type vllmResult struct {
	Date           string          `json:"date"` // %Y%m%d-%H%M%S, local time, written after the run
	Backend        string          `json:"backend"`
	EndpointType   string          `json:"endpoint_type"`
	ModelID        string          `json:"model_id"`
	RequestRate    json.RawMessage `json:"request_rate"` // a number, or "inf"
	Burstiness     *float64        `json:"burstiness"`
	MaxConcurrency *int            `json:"max_concurrency"`
	RampUpStrategy *string         `json:"ramp_up_strategy"`
	Duration       *float64        `json:"duration"` // s
	Completed      *int            `json:"completed"`

	InputLens  []int        `json:"input_lens"`
	OutputLens []int        `json:"output_lens"`
	TTFTs      []*float64   `json:"ttfts"`
	ITLs       [][]*float64 `json:"itls"`
	Latencies  []*float64   `json:"latencies"`
	StartTimes []*float64   `json:"start_times"`
	Errors     []*string    `json:"errors"`
}

// readVLLMBench reads a vllm bench serve result file.
func readVLLMBench(path string) (*source, error) {
	name := displayName(path)
	st, err := os.Stat(path)
	if err != nil {
		return nil, missingFile(path, err)
	}
	if st.IsDir() {
		if _, err := os.Stat(filepath.Join(path, AIPerfExportFile)); err == nil {
			return nil, fmt.Errorf("import %s: a directory holding AIPerf's %s, not a vllm bench serve result: use llmcap import aiperf", name, AIPerfExportFile)
		}
		return nil, fmt.Errorf("import %s: a directory: give the result JSON files of vllm bench serve --save-result", name)
	}
	if err := wrongFormat(FormatVLLMBench, path); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("import %s: %w", name, err)
	}
	var res vllmResult
	if err := json.Unmarshal(pythonJSON(b), &res); err != nil {
		return nil, fmt.Errorf("import %s: not a vllm bench serve result: %w", name, err)
	}
	s := &source{file: name, tool: "vLLM bench serve", model: res.ModelID, api: vllmAPI(res.Backend, res.EndpointType)}
	if err := vllmLoad(s, &res); err != nil {
		return nil, err
	}
	n, err := vllmCount(s, &res)
	if err != nil {
		return nil, err
	}
	start, err := runStart(s, &res, st.ModTime())
	if err != nil {
		return nil, err
	}
	sent, err := vllmSendTimes(s, &res, n, start)
	if err != nil {
		return nil, err
	}
	for i := range n {
		q, err := vllmRequest(&res, i, sent[i])
		if err != nil {
			s.skipped = append(s.skipped, Skip{File: name, Index: i, Reason: err.Error()})
			continue
		}
		s.requests = append(s.requests, q)
	}
	if len(s.requests) == 0 {
		return nil, noRecords(s)
	}
	vllmCompletedNote(s, &res)
	return s, nil
}

// vllmLoad reads the run's schedule: a finite request_rate is an open loop (capped at
// max_concurrency when set, gamma arrivals of shape burstiness, Poisson at 1); "inf"
// with max_concurrency C is a closed loop at C (every request queued at once, C in
// flight). "inf" without max_concurrency (one burst of every request) and a ramp-up
// (a load that changes during the run) have no load level and are refused.
func vllmLoad(s *source, res *vllmResult) error {
	if res.RampUpStrategy != nil && *res.RampUpStrategy != "" {
		return fmt.Errorf("import %s: ramp_up_strategy %q: the load changed during the run, so it is no one step of a ladder", s.file, *res.RampUpStrategy)
	}
	rate, err := vllmRate(res.RequestRate)
	if err != nil {
		return fmt.Errorf("import %s: request_rate %s: %w", s.file, clipRaw(res.RequestRate), err)
	}
	mc := 0
	if res.MaxConcurrency != nil {
		mc = *res.MaxConcurrency
	}
	if mc < 0 {
		return fmt.Errorf("import %s: max_concurrency %d: want ≥ 1", s.file, mc)
	}
	switch {
	case !math.IsInf(rate, 1):
		s.schedule, s.rate, s.maxConcurrency, s.arrival = plan.ScheduleRate, rate, mc, plan.ArrivalPoisson
		if b := res.Burstiness; b != nil && *b != 1 {
			s.arrival, s.burstiness = plan.ArrivalGamma, *b
		}
	case mc > 0:
		s.schedule, s.concurrency = plan.ScheduleConcurrency, mc
	default:
		return fmt.Errorf("import %s: request_rate inf with no max_concurrency sent every request at once: "+
			"one burst has no load level; run vllm bench serve with --max-concurrency N or --request-rate R", s.file)
	}
	return nil
}

// vllmRate decodes request_rate: a positive number, or "inf" (+Inf).
func vllmRate(raw json.RawMessage) (float64, error) {
	var str string
	if json.Unmarshal(raw, &str) == nil {
		if strings.EqualFold(str, "inf") {
			return math.Inf(1), nil
		}
		return 0, fmt.Errorf("want a number or \"inf\"")
	}
	var r float64
	if err := json.Unmarshal(raw, &r); err != nil || r <= 0 {
		return 0, fmt.Errorf("want a number > 0 or \"inf\"")
	}
	return r, nil
}

// vllmCount checks that the per-request arrays are there (--save-detailed) and of one
// length, and returns it.
func vllmCount(s *source, res *vllmResult) (int, error) {
	n := len(res.TTFTs)
	if res.TTFTs == nil || res.ITLs == nil || res.InputLens == nil || res.OutputLens == nil || res.Errors == nil {
		return 0, fmt.Errorf("import %s: the per-request arrays (ttfts, itls, input_lens, output_lens, errors) are missing: "+
			"save the result with vllm bench serve --save-result --save-detailed", s.file)
	}
	lens := []struct {
		name string
		n    int
		opt  bool
	}{{"itls", len(res.ITLs), false}, {"input_lens", len(res.InputLens), false}, {"output_lens", len(res.OutputLens), false},
		{"errors", len(res.Errors), false}, {"latencies", len(res.Latencies), true}, {"start_times", len(res.StartTimes), true}}
	for _, l := range lens {
		if l.n != n && !(l.opt && l.n == 0) {
			return 0, fmt.Errorf("import %s: %s has %d entries but ttfts %d: one entry per request in each", s.file, l.name, l.n, n)
		}
	}
	return n, nil
}

// vllmRequest is request i, sent at sentNs: TTFT, E2E (latencies[i], else TTFT + the
// sum of its itls) and the inter-chunk gaps in ms; ITL is derived from them and the
// output length (record). A request is failed when its errors entry is non-empty.
func vllmRequest(res *vllmResult, i int, sentNs int64) (request, error) {
	q := request{id: fmt.Sprintf("vllm-bench-%d", i), sentNs: sentNs, isl: res.InputLens[i], osl: res.OutputLens[i]}
	if e := res.Errors[i]; e != nil && strings.TrimSpace(*e) != "" {
		msg := strings.TrimSpace(*e)
		status := statusOfReason(msg)
		q.fail = &failure{class: classify(status, msg), status: status, message: clip(msg)}
		return q, q.check()
	}
	ttft := res.TTFTs[i]
	if ttft == nil {
		return request{}, fmt.Errorf("ttfts[%d] is null", i)
	}
	icl := make([]float64, len(res.ITLs[i]))
	sum := 0.0
	for j, g := range res.ITLs[i] {
		if g == nil {
			return request{}, fmt.Errorf("itls[%d][%d] is null", i, j)
		}
		icl[j], sum = *g*1e3, sum+*g
	}
	e2e := *ttft + sum
	if len(res.Latencies) > 0 {
		if res.Latencies[i] == nil {
			return request{}, fmt.Errorf("latencies[%d] is null", i)
		}
		e2e = *res.Latencies[i]
	}
	q.ttftMs, q.e2eMs, q.iclMs = ms(*ttft*1e3), ms(e2e*1e3), icl
	if err := q.check(); err != nil {
		return request{}, fmt.Errorf("ttfts/latencies/itls[%d]: %w", i, err)
	}
	return q, nil
}

// vllmCompletedNote notes when the file's completed count differs from the requests
// imported as successes (e.g. a 2xx answer without a chunk, which vLLM's chat backend
// counts as completed with no error text).
func vllmCompletedNote(s *source, res *vllmResult) {
	if res.Completed == nil {
		return
	}
	ok := 0
	for i := range s.requests {
		if s.requests[i].fail == nil {
			ok++
		}
	}
	if ok != *res.Completed {
		s.notes = append(s.notes, fmt.Sprintf("%d successes imported where the file's completed says %d", ok, *res.Completed))
	}
}

// vllmAPI is llmcap's target.api for a vLLM bench backend: chat for openai-chat (and
// the chat endpoint), else completions (the bench's default /v1/completions).
func vllmAPI(backend, endpointType string) string {
	if strings.Contains(backend, "chat") || strings.Contains(endpointType, "chat") {
		return "chat"
	}
	return "completions"
}

// VLLMDateLayout is the layout of a vllm bench serve result's date, as Go writes
// Python's "%Y%m%d-%H%M%S" (vllm/benchmarks/serve.py: datetime.now().strftime).
const VLLMDateLayout = "20060102-150405"

// runStart is the wall-clock time of the run's start: the file's date (written when
// the run ended, local time of the benchmark host, read as UTC) less its duration.
// Without a date it is the file's modification time mtime less the duration, noted
// in s; a date that is not in vLLM's layout is refused.
func runStart(s *source, res *vllmResult, mtime time.Time) (time.Time, error) {
	dur := time.Duration(0)
	if res.Duration != nil && *res.Duration > 0 && *res.Duration < 1e9 {
		dur = time.Duration(*res.Duration * float64(time.Second))
	}
	if strings.TrimSpace(res.Date) == "" {
		end := mtime.UTC().Truncate(time.Second)
		s.notes = append(s.notes, fmt.Sprintf("no date in the file: the run is placed to end at the file's modification time, %s",
			end.Format(time.RFC3339)))
		return end.Add(-dur), nil
	}
	t, err := time.Parse(VLLMDateLayout, res.Date)
	if err != nil {
		return time.Time{}, fmt.Errorf("import %s: date %q: want vllm bench serve's layout %%Y%%m%%d-%%H%%M%%S, e.g. 20250314-091500 "+
			"(the run's end, local time)", s.file, clipRaw(json.RawMessage(res.Date)))
	}
	return t.Add(-dur), nil
}

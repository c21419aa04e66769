package importer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
)

// AIPerf's file names (aiperf/common/config/config_defaults.py, OutputDefaults).
const (
	AIPerfExportFile  = "profile_export.jsonl"
	AIPerfSummaryFile = "profile_export_aiperf.json"
)

// aiperfLine is one line of profile_export.jsonl, AIPerf's MetricRecordInfo
// (aiperf/common/models/record_models.py): metadata, metrics in display units as
// {value, unit}, and the error of a failed request.
type aiperfLine struct {
	Metadata *aiperfMeta            `json:"metadata"`
	Metrics  map[string]aiperfValue `json:"metrics"`
	Error    *aiperfError           `json:"error"`
}

// aiperfMeta is MetricRecordMetadata: wall-clock times (time.time_ns()), ids, phase.
type aiperfMeta struct {
	XRequestID     *string `json:"x_request_id"`
	XCorrelationID *string `json:"x_correlation_id"`
	TurnIndex      *int    `json:"turn_index"`
	RequestStartNs *int64  `json:"request_start_ns"`
	RequestEndNs   *int64  `json:"request_end_ns"`
	BenchmarkPhase string  `json:"benchmark_phase"` // warmup | profiling
	WasCancelled   bool    `json:"was_cancelled"`
}

// aiperfValue is MetricValue: a number or a list of numbers, and its unit.
type aiperfValue struct {
	Value json.RawMessage `json:"value"`
	Unit  string          `json:"unit"`
}

// aiperfError is ErrorDetails: an HTTP status or custom code, a type (typically the
// Python exception's class) and a message.
type aiperfError struct {
	Code    *int    `json:"code"`
	Type    *string `json:"type"`
	Message string  `json:"message"`
}

// readAIPerf reads an AIPerf profile_export.jsonl (or a directory holding one) and
// the run's configuration from profile_export_aiperf.json beside it.
func readAIPerf(path string) (*source, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, missingFile(path, err)
	}
	if st.IsDir() {
		dir := path
		path = filepath.Join(path, AIPerfExportFile)
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("import %s: the directory holds no %s: give AIPerf's artifact directory or the %s itself",
				displayName(dir), AIPerfExportFile, AIPerfExportFile)
		}
	} else if err := wrongFormat(FormatAIPerf, path); err != nil {
		return nil, err
	}
	name := displayName(path)
	s := &source{file: name, tool: "AIPerf"}
	if err := readAIPerfConfig(s, filepath.Join(filepath.Dir(path), AIPerfSummaryFile)); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("import %s: %w", name, err)
	}
	defer f.Close()
	if err := readAIPerfLines(s, f); err != nil {
		return nil, fmt.Errorf("import %s: %w", name, err)
	}
	if len(s.requests) == 0 {
		return nil, noRecords(s)
	}
	uniqueIDs(s)
	return s, nil
}

// noRecords is the error for a file with no usable record.
func noRecords(s *source) error {
	if len(s.skipped) > 0 {
		return fmt.Errorf("import %s: no record could be read (%d corrupt; first: %s)", s.file, len(s.skipped), s.skipped[0])
	}
	return fmt.Errorf("import %s: no record in the file", s.file)
}

// readAIPerfLines reads every line of r into s: a line that does not decode, or
// holds an impossible value, is skipped and listed (a torn last line too).
func readAIPerfLines(s *source, r io.Reader) error {
	br := bufio.NewReaderSize(r, 1<<16)
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			q, perr := parseAIPerfLine(line, n)
			if perr != nil {
				s.skipped = append(s.skipped, Skip{File: s.file, Line: n, Reason: perr.Error()})
			} else {
				s.requests = append(s.requests, q)
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// parseAIPerfLine decodes line n into a request.
func parseAIPerfLine(line []byte, n int) (request, error) {
	var l aiperfLine
	if err := json.Unmarshal(line, &l); err != nil {
		return request{}, fmt.Errorf("not a JSON record: %w", err)
	}
	m := l.Metadata
	if m == nil {
		return request{}, errors.New("no metadata")
	}
	if m.RequestStartNs == nil {
		return request{}, errors.New("metadata.request_start_ns missing")
	}
	q := request{sentNs: *m.RequestStartNs, warmup: m.BenchmarkPhase == "warmup", id: fmt.Sprintf("aiperf-line-%d", n), line: n}
	if m.BenchmarkPhase != "" && m.BenchmarkPhase != "warmup" && m.BenchmarkPhase != "profiling" {
		return request{}, fmt.Errorf("metadata.benchmark_phase %q: want warmup or profiling", m.BenchmarkPhase)
	}
	if m.XRequestID != nil && *m.XRequestID != "" {
		q.id = *m.XRequestID
	}
	if m.XCorrelationID != nil {
		q.session = *m.XCorrelationID
	}
	if m.TurnIndex != nil {
		q.turn = *m.TurnIndex
	}
	if m.RequestEndNs != nil {
		q.endNs = *m.RequestEndNs
	}
	if err := aiperfMetrics(&q, l.Metrics); err != nil {
		return request{}, err
	}
	if l.Error != nil || m.WasCancelled {
		q.fail = aiperfFailure(l.Error, m.WasCancelled)
		q.ttftMs, q.e2eMs, q.itlMs, q.iclMs = nil, nil, nil, nil
	} else if err := aiperfSuccessLatencies(&q, l.Metrics); err != nil {
		return request{}, err
	}
	if q.endNs != 0 && q.endNs < q.sentNs {
		return request{}, fmt.Errorf("metadata.request_end_ns %d before request_start_ns %d", q.endNs, q.sentNs)
	}
	return q, q.check()
}

// aiperfSuccessLatencies refuses a successful record (no error, not cancelled) that
// lacks the latencies every success has: AIPerf computes request_latency for each
// valid record and time_to_first_token for each streamed one, so a success without
// them (or with no metrics object) is no measurement and would count as a success of
// unknown latency.
func aiperfSuccessLatencies(q *request, metrics map[string]aiperfValue) error {
	switch {
	case metrics == nil:
		return errors.New("no metrics object in a successful record (no error): no latency to import")
	case q.ttftMs == nil && q.e2eMs == nil:
		return errors.New("metrics.time_to_first_token and metrics.request_latency missing in a successful record (no error)")
	case q.e2eMs == nil:
		return errors.New("metrics.request_latency missing in a successful record (no error)")
	case q.ttftMs == nil:
		return errors.New("metrics.time_to_first_token missing in a successful record (no error); " +
			"AIPerf records it for streamed requests only: profile with --streaming")
	}
	return nil
}

// aiperfMetrics fills q from a record's metrics (ms and token counts; aiperf/metrics/
// types): time_to_first_token, request_latency, inter_token_latency, inter_chunk_latency,
// input_sequence_length (error_isl for a failed request), output_sequence_length and
// reasoning_token_count. Other metrics are AIPerf's derivations and are left out.
func aiperfMetrics(q *request, metrics map[string]aiperfValue) error {
	var err error
	scalar := func(key string, dst **float64, toMs bool) {
		v, ok := metrics[key]
		if !ok || err != nil {
			return
		}
		var x float64
		if x, err = v.number(key, toMs); err == nil {
			*dst = &x
		}
	}
	count := func(key string, dst *int) {
		var p *float64
		if scalar(key, &p, false); p != nil && err == nil {
			if *p != float64(int(*p)) {
				err = fmt.Errorf("metrics.%s %g: not a whole token count", key, *p)
				return
			}
			*dst = int(*p)
		}
	}
	scalar("time_to_first_token", &q.ttftMs, true)
	scalar("request_latency", &q.e2eMs, true)
	scalar("inter_token_latency", &q.itlMs, true)
	count("input_sequence_length", &q.isl)
	if q.isl == 0 {
		count("error_isl", &q.isl)
	}
	count("output_sequence_length", &q.osl)
	count("reasoning_token_count", &q.reasoning)
	if err != nil {
		return err
	}
	if v, ok := metrics["inter_chunk_latency"]; ok {
		q.iclMs, err = v.list("inter_chunk_latency")
	}
	return err
}

// number decodes a scalar metric, converted to ms when toMs (its unit a time unit).
func (v aiperfValue) number(key string, toMs bool) (float64, error) {
	var x float64
	if err := json.Unmarshal(v.Value, &x); err != nil {
		return 0, fmt.Errorf("metrics.%s.value %s: not a number", key, clipRaw(v.Value))
	}
	if !toMs {
		return x, nil
	}
	f, err := msPer(key, v.Unit)
	return x * f, err
}

// list decodes a list metric of times, converted to ms.
func (v aiperfValue) list(key string) ([]float64, error) {
	var xs []float64
	if err := json.Unmarshal(v.Value, &xs); err != nil {
		return nil, fmt.Errorf("metrics.%s.value %s: not a list of numbers", key, clipRaw(v.Value))
	}
	f, err := msPer(key, v.Unit)
	for i := range xs {
		xs[i] *= f
	}
	return xs, err
}

// msPer is the factor from a time unit to ms (AIPerf's MetricTimeUnit names).
func msPer(key, unit string) (float64, error) {
	switch strings.ToLower(unit) {
	case "ms":
		return 1, nil
	case "ns":
		return 1e-6, nil
	case "us", "µs":
		return 1e-3, nil
	case "s", "sec":
		return 1e3, nil
	}
	return 0, fmt.Errorf("metrics.%s.unit %q: not a time unit (ns, us, ms, s)", key, unit)
}

// clipRaw is a raw JSON value for a message, cut to 40 bytes.
func clipRaw(b json.RawMessage) string {
	if len(b) > 40 {
		return string(b[:40]) + "…"
	}
	return string(b)
}

// aiperfFailure is an AIPerf error (or a cancellation) as a failure: a cancelled
// request (was_cancelled, AIPerf's --request-cancellation-rate; code 499) is llmcap's
// cancelled, in no statistic; otherwise classify on the code and the type + message.
func aiperfFailure(e *aiperfError, cancelled bool) *failure {
	f := &failure{}
	var kind string
	if e != nil {
		if e.Code != nil {
			f.status = *e.Code
		}
		if e.Type != nil {
			kind = *e.Type
		}
		f.message = clip(strings.TrimSpace(kind + ": " + e.Message))
	}
	switch {
	case cancelled || strings.Contains(kind, "Cancel"):
		f.class = rundir.ErrCancelled
	default:
		f.class = classify(f.status, kind+" "+f.message)
	}
	if f.status < 100 || f.status > 599 || f.status == 499 {
		f.status = 0 // a custom code, not an HTTP status
	}
	return f
}

// aiperfSummary is the part of profile_export_aiperf.json (JsonExportData,
// aiperf/common/models/export_models.py) an import reads: the user configuration
// (UserConfig, dumped with exclude_unset: only what the user set is present).
type aiperfSummary struct {
	InputConfig *struct {
		Endpoint struct {
			ModelNames []string `json:"model_names"`
			Type       string   `json:"type"`
			URL        string   `json:"url"`
		} `json:"endpoint"`
		Loadgen struct {
			Concurrency     *int     `json:"concurrency"`
			RequestRate     *float64 `json:"request_rate"`
			RequestRateMode string   `json:"request_rate_mode"`
		} `json:"loadgen"`
		Input struct {
			FixedSchedule bool `json:"fixed_schedule"`
		} `json:"input"`
	} `json:"input_config"`
}

// readAIPerfConfig reads the run's model, URL, endpoint type and load from the
// summary at path into s. AIPerf's rules (UserConfig.validate_timing_mode): a
// request_rate makes an open loop (concurrency then caps it); without one the run is
// a closed loop at concurrency (1 when unset). A fixed-schedule (trace) run has no
// load level and is refused.
func readAIPerfConfig(s *source, path string) error {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("import %s: %s is missing beside it: AIPerf writes the run's configuration there "+
			"(model, URL, concurrency or request rate), which places the file on the ladder", s.file, AIPerfSummaryFile)
	}
	if err != nil {
		return fmt.Errorf("import %s: %w", s.file, err)
	}
	var sum aiperfSummary
	if err := json.Unmarshal(b, &sum); err != nil {
		return fmt.Errorf("import %s: %s: %w", s.file, displayName(path), err)
	}
	c := sum.InputConfig
	if c == nil {
		return fmt.Errorf("import %s: %s has no input_config (the run's configuration)", s.file, displayName(path))
	}
	if len(c.Endpoint.ModelNames) > 0 {
		s.model = c.Endpoint.ModelNames[0]
	}
	s.url, s.api = aiperfURL(c.Endpoint.URL), aiperfAPI(c.Endpoint.Type)
	lg := c.Loadgen
	switch {
	case c.Input.FixedSchedule:
		return fmt.Errorf("import %s: a fixed-schedule (trace replay) run has no load level to put on a ladder", s.file)
	case lg.RequestRate != nil:
		if *lg.RequestRate <= 0 {
			return fmt.Errorf("import %s: %s input_config.loadgen.request_rate %g: want > 0", s.file, displayName(path), *lg.RequestRate)
		}
		s.schedule, s.rate, s.arrival = plan.ScheduleRate, *lg.RequestRate, plan.ArrivalPoisson
		if lg.RequestRateMode == "constant" {
			s.arrival = plan.ArrivalConstant
		}
		if lg.Concurrency != nil {
			s.maxConcurrency = *lg.Concurrency
		}
	default:
		s.schedule, s.concurrency = plan.ScheduleConcurrency, 1
		if lg.Concurrency != nil {
			s.concurrency = *lg.Concurrency
		}
		if s.concurrency < 1 {
			return fmt.Errorf("import %s: %s input_config.loadgen.concurrency %d: want ≥ 1", s.file, displayName(path), s.concurrency)
		}
	}
	return nil
}

// aiperfURL is AIPerf's endpoint.url as an OpenAI base URL: http:// added when it has
// no scheme (AIPerf's default is "localhost:8000"), /v1 when it has no path; "" stays.
func aiperfURL(u string) string {
	u = strings.TrimRight(strings.TrimSpace(u), "/")
	if u == "" {
		return ""
	}
	if !strings.Contains(u, "://") {
		u = "http://" + u
	}
	if rest := u[strings.Index(u, "://")+3:]; !strings.Contains(rest, "/") {
		u += "/v1"
	}
	return u
}

// aiperfAPI is llmcap's target.api for AIPerf's endpoint type: completions for
// "completions", chat for "chat" (AIPerf's default) and anything else.
func aiperfAPI(t string) string {
	if t == "completions" {
		return "completions"
	}
	return "chat"
}

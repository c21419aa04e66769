package sweep

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/llmcap/llmcap/launch"
	"github.com/llmcap/llmcap/redact"
	"github.com/llmcap/llmcap/rundir"

	"github.com/llmcap/llmcap/plan"
)

// Preflight limits: how long GET /models and the streaming probe may take at most.
const (
	preflightModelsTimeout = 15 * time.Second
	preflightProbeTimeout  = 2 * time.Minute
	preflightProbeTokens   = 4
	// preflightPrompt is the probe request's prompt.
	preflightPrompt = "Say hello."
)

// WarnNotStreaming is the message of the run.json warning (rundir.WarnNotStreaming)
// recorded when the target answers a stream:true request with a plain JSON body.
const WarnNotStreaming = "server does not stream: TTFT = E2E and ITL are meaningless"

// PreflightError is a preflight failure: the target cannot be reached, does not serve
// the plan's model, or failed the streaming probe. The sweep sends no load after it.
type PreflightError struct {
	URL string
	Msg string
}

func (e *PreflightError) Error() string { return e.Msg }

// preflight checks a real (non-simulator) target before step 0: GET {url}/models (the
// target is reachable; target.model is among the served models when the list is
// given; a 404 only warns) and then one small streaming probe request. It returns the
// decoded /models body (nil when unavailable) and any warnings for run.json.
func preflight(ctx context.Context, t plan.Target, base, userAgent string, log *slog.Logger) (models any, warnings []rundir.Warning, err error) {
	hc := preflightClient(t)
	defer hc.CloseIdleConnections()
	models, err = preflightModels(ctx, hc, t, base, userAgent, log)
	if err != nil {
		return nil, nil, err
	}
	log.Info("preflight: probing the target with one streaming request", "url", base, "max_tokens", preflightProbeTokens)
	streams, err := preflightProbe(ctx, hc, t, base, userAgent)
	if err != nil {
		return models, nil, err
	}
	if !streams {
		log.Warn(WarnNotStreaming, "url", base)
		warnings = append(warnings, rundir.Warning{Kind: rundir.WarnNotStreaming, Step: rundir.RunWide, Message: WarnNotStreaming})
	}
	return models, warnings, nil
}

// preflightModels is GET {base}/models with the API key.
func preflightModels(ctx context.Context, hc *http.Client, t plan.Target, base, userAgent string, log *slog.Logger) (any, error) {
	ctx, cancel := context.WithTimeout(ctx, preflightModelsTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, launch.ModelsURL(base), nil)
	if err != nil {
		return nil, &PreflightError{URL: base, Msg: fmt.Sprintf("target url %s: %v", base, err)}
	}
	if err := preflightHeaders(req, t, "models", userAgent); err != nil {
		return nil, &PreflightError{URL: base, Msg: err.Error()}
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, unreachable(base, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return nil, &PreflightError{URL: base, Msg: fmt.Sprintf("target %s rejected the API key: GET %s: HTTP %d%s",
			base, launch.ModelsURL(base), resp.StatusCode, serverMessage(body))}
	case resp.StatusCode == http.StatusNotFound:
		log.Warn("the target has no /models endpoint; the model name is not checked", "url", launch.ModelsURL(base))
		return nil, nil
	case resp.StatusCode/100 != 2:
		log.Warn("GET /models failed; the model name is not checked", "url", launch.ModelsURL(base), "status", resp.StatusCode)
		return nil, nil
	}
	var v any
	if json.Unmarshal(body, &v) != nil {
		log.Warn("GET /models did not answer JSON; the model name is not checked", "url", launch.ModelsURL(base))
		return nil, nil
	}
	ids, anyName := modelIDs(v)
	if len(ids) == 0 || t.Model == "" || servesModel(ids, t.Model) {
		return v, nil
	}
	if anyName {
		log.Warn("target.model is not in the server's /models list; llama.cpp serves its one model under any name",
			"model", t.Model, "serves", strings.Join(ids, ", "))
		return v, nil
	}
	return v, &PreflightError{URL: base, Msg: fmt.Sprintf("target.model %q is not served by %s (it serves: %s)",
		t.Model, base, strings.Join(ids, ", "))}
}

// preflightClient is an HTTP client like the load client's: the environment's proxy
// (proxyFunc), the plan's connect timeout (10 s when unset).
func preflightClient(t plan.Target) *http.Client {
	dial := t.ConnectTimeout
	if dial <= 0 {
		dial = 10 * time.Second
	}
	return &http.Client{Transport: &http.Transport{DialContext: (&net.Dialer{Timeout: dial}).DialContext,
		Proxy: transportProxy(proxyFunc())}}
}

// preflightHeaders sets a preflight request's headers as the load's: userAgent as
// User-Agent (a target.headers User-Agent wins), target.headers, the API key's
// Authorization, and an X-Request-Id "preflight-<what>-<tag>" (a fresh NewIDTag) that
// server logs show.
func preflightHeaders(req *http.Request, t plan.Target, what, userAgent string) error {
	hs, err := t.RequestHeaders()
	if err != nil {
		return fmt.Errorf("preflight: %w", err)
	}
	req.Header.Set("User-Agent", userAgent)
	for _, h := range hs {
		req.Header.Set(h.Name, h.Value)
	}
	if t.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+t.APIKey)
	}
	req.Header.Set(requestIDHeader, "preflight-"+what+"-"+NewIDTag())
	return nil
}

// unreachable words a transport error of the first contact, naming the proxy (its
// password masked) when the environment routes base through one: then it is the proxy
// that refused or timed out, and the target may be up.
func unreachable(base string, err error) error {
	why := err.Error()
	var ne net.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		why = "connection refused"
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()):
		why = "timed out"
	}
	if u, perr := url.Parse(base); perr == nil {
		if p, _ := proxyFunc()(u); p != nil {
			pu, _ := redact.URL(p.String())
			return &PreflightError{URL: base, Msg: fmt.Sprintf("cannot reach target %s through the proxy %s "+
				"(HTTP_PROXY/HTTPS_PROXY; exempt the target in NO_PROXY to reach it directly): %s", base, pu, why)}
		}
	}
	return &PreflightError{URL: base, Msg: fmt.Sprintf("cannot reach target %s: %s", base, why)}
}

// modelIDs lists data[].id of an OpenAI /models answer; anyName reports a server that
// answers any model name (llama.cpp's llama-server: owned_by "llamacpp").
func modelIDs(v any) (ids []string, anyName bool) {
	m, _ := v.(map[string]any)
	data, _ := m["data"].([]any)
	for _, d := range data {
		if e, ok := d.(map[string]any); ok {
			if id, ok := e["id"].(string); ok {
				ids = append(ids, id)
			}
			anyName = anyName || e["owned_by"] == "llamacpp"
		}
	}
	return ids, anyName
}

// servesModel reports whether model is among ids, an Ollama ":latest" tag implied.
func servesModel(ids []string, model string) bool {
	for _, id := range ids {
		if id == model || strings.TrimSuffix(id, ":latest") == strings.TrimSuffix(model, ":latest") {
			return true
		}
	}
	return false
}

// preflightProbe sends one small streaming request; it reports whether the answer was
// a stream (text/event-stream) and fails on a non-2xx status or an error object.
func preflightProbe(ctx context.Context, hc *http.Client, t plan.Target, base, userAgent string) (streams bool, err error) {
	timeout := preflightProbeTimeout
	if t.RequestTimeout > 0 && t.RequestTimeout < timeout {
		timeout = t.RequestTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	path, body := probeBody(t)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(base, "/")+path, bytes.NewReader(body))
	if err != nil {
		return false, &PreflightError{URL: base, Msg: fmt.Sprintf("probe request: %v", err)}
	}
	if err := preflightHeaders(req, t, "probe", userAgent); err != nil {
		return false, &PreflightError{URL: base, Msg: err.Error()}
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			return false, &PreflightError{URL: base, Msg: fmt.Sprintf("probe request to %s got no answer within %s", req.URL, timeout)}
		}
		return false, unreachable(base, err)
	}
	defer resp.Body.Close()
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	b := readProbeBody(resp.Body, ct == "text/event-stream" && resp.StatusCode/100 == 2)
	if resp.StatusCode/100 != 2 {
		return false, &PreflightError{URL: base, Msg: fmt.Sprintf("probe request to %s failed: HTTP %d (%s)%s",
			req.URL, resp.StatusCode, classOfStatus(resp.StatusCode), serverMessage(b))}
	}
	if msg := errorMessage(ct, b); msg != "" {
		return false, &PreflightError{URL: base, Msg: fmt.Sprintf("probe request to %s answered an error (%s)%s",
			req.URL, rundir.ErrInBand, msg)}
	}
	if ct == "text/event-stream" {
		if !bytes.Contains(b, []byte("data:")) {
			return false, &PreflightError{URL: base, Msg: fmt.Sprintf("probe request to %s: empty stream (no data: events)", req.URL)}
		}
		return true, nil
	}
	if bytes.Contains(b, []byte(`"choices"`)) {
		return false, nil
	}
	return false, &PreflightError{URL: base, Msg: fmt.Sprintf("probe request to %s: neither a stream nor a completion (Content-Type %q): %.200q",
		req.URL, resp.Header.Get("Content-Type"), b)}
}

// probeBodyLimit is the most of the probe's answer preflightProbe reads (bytes).
const probeBodyLimit = 1 << 20

// readProbeBody reads the probe's answer: a stream up to and including its data: [DONE]
// event (like the load client, which ends a request there: a server that keeps the
// stream open after [DONE] does not stall the probe), anything else to EOF; at most
// probeBodyLimit bytes either way. A read error ends it with what was read.
func readProbeBody(body io.Reader, stream bool) []byte {
	lr := io.LimitReader(body, probeBodyLimit)
	if !stream {
		b, _ := io.ReadAll(lr)
		return b
	}
	var out []byte
	br := bufio.NewReader(lr)
	for {
		line, err := br.ReadBytes('\n')
		out = append(out, line...)
		if p, ok := bytes.CutPrefix(bytes.TrimSpace(line), []byte("data:")); ok && string(bytes.TrimSpace(p)) == "[DONE]" {
			return out
		}
		if err != nil {
			return out
		}
	}
}

// probeBody is the probe's path and JSON body: the plan's model, a short prompt,
// preflightProbeTokens output tokens, stream:true, extra_body merged under them.
func probeBody(t plan.Target) (string, []byte) {
	m := map[string]any{}
	for k, v := range t.ExtraBody {
		m[k] = v
	}
	m["model"] = t.Model
	m["max_tokens"] = preflightProbeTokens
	m["stream"] = true
	m["temperature"] = t.Temperature
	path := "/chat/completions"
	if t.API == "completions" {
		path = "/completions"
		m["prompt"] = preflightPrompt
	} else {
		m["messages"] = []map[string]string{{"role": "user", "content": preflightPrompt}}
	}
	b, _ := json.Marshal(m)
	return path, b
}

// classOfStatus is the records' error class of an HTTP status.
func classOfStatus(code int) string {
	switch {
	case code == http.StatusTooManyRequests:
		return rundir.ErrHTTP429
	case code >= 500:
		return rundir.ErrHTTP5xx
	default:
		return rundir.ErrHTTP4xx
	}
}

// serverMessage is ": <error.message> [type]" from an OpenAI error body, or the body's
// first 200 bytes, or "".
func serverMessage(b []byte) string {
	var e struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(b, &e) == nil && len(e.Error) > 0 {
		var obj struct {
			Message string `json:"message"`
			Type    string `json:"type"`
		}
		if json.Unmarshal(e.Error, &obj) == nil && obj.Message != "" {
			if obj.Type != "" {
				return fmt.Sprintf(": %s [%s]", obj.Message, obj.Type)
			}
			return ": " + obj.Message
		}
		var s string
		if json.Unmarshal(e.Error, &s) == nil && s != "" {
			return ": " + s
		}
	}
	if s := strings.TrimSpace(string(b)); s != "" && !bytes.HasPrefix(b, []byte("data:")) && !bytes.Contains(b, []byte(`"choices"`)) {
		if len(s) > 200 {
			s = s[:200] + "…"
		}
		return ": " + s
	}
	return ""
}

// errorMessage is the server's error message in a 2xx answer: an error object in a
// JSON body or in an SSE data event; "" when none.
func errorMessage(ct string, b []byte) string {
	if ct != "text/event-stream" {
		if bytes.Contains(b, []byte(`"error"`)) {
			return serverMessage(b)
		}
		return ""
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		line = bytes.TrimSpace(line)
		payload, ok := bytes.CutPrefix(line, []byte("data:"))
		if ok && bytes.Contains(payload, []byte(`"error"`)) {
			if msg := serverMessage(bytes.TrimSpace(payload)); msg != "" {
				return msg
			}
		}
	}
	return ""
}

// removeFailedRun removes what a fresh run that failed its preflight wrote into dir
// (run.json and the empty record files: nothing was measured), then dir itself and the
// parents the sweep created for it (created: the topmost directory that did not exist,
// "" when dir did), when they are empty. A file the sweep did not write keeps dir and
// run.json, which says why the run failed: e.g. server.log of a launched server, or a
// directory the user chose that holds other files. A resumed run is never passed here.
func removeFailedRun(dir, created string) {
	ours := []string{rundir.FileRun, rundir.FileRecords, rundir.FileSteps, rundir.FileServerMetrics, rundir.FileLock}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		info, err := e.Info()
		if !slices.Contains(ours, e.Name()) || err != nil || (e.Name() != rundir.FileRun && info.Size() > 0) {
			removeIfEmpty(dir, rundir.FileRecords, rundir.FileSteps, rundir.FileServerMetrics)
			return
		}
	}
	for _, n := range ours {
		os.Remove(filepath.Join(dir, n))
	}
	if created == "" {
		return
	}
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if os.Remove(d) != nil || d == created || d == filepath.Dir(d) {
			return
		}
	}
}

// firstMissingDir is the topmost directory of dir's path that does not exist (dir
// itself when only it is missing), or "" when dir exists.
func firstMissingDir(dir string) string {
	missing := ""
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil {
			return missing
		}
		missing = d
		if d == filepath.Dir(d) {
			return missing
		}
	}
}

// removeIfEmpty deletes the named files of dir that are empty.
func removeIfEmpty(dir string, names ...string) {
	for _, n := range names {
		p := filepath.Join(dir, n)
		if st, err := os.Stat(p); err == nil && st.Size() == 0 {
			os.Remove(p)
		}
	}
}

package sweep

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/llmcap/llmcap/rundir"
)

// Causes with which the client cancels a request's context.
var (
	errTimeoutFirstByte = errors.New("first-byte timeout")
	errTimeoutIdle      = errors.New("idle timeout")
	errTimeoutRequest   = errors.New("request timeout")
	// errDrained ends a response that stays open after [DONE].
	errDrained = errors.New("response still open after [DONE]")
)

// drainAfterDone is how long the client keeps reading after [DONE] for the end of the
// response (so the connection can be reused) before it closes the connection.
const drainAfterDone = time.Second

// maxErrorBody bounds how much of a non-2xx body is read for its message.
const maxErrorBody = 64 << 10

// maxErrorMessage bounds Record.Error.
const maxErrorMessage = 512

// contextLengthMarkers are lower-case fragments of the context-length errors of
// OpenAI, vLLM, SGLang, TGI, llama.cpp and Ollama.
var contextLengthMarkers = []string{
	"maximum context length",       // OpenAI, vLLM: "This model's maximum context length is 4096 tokens"
	"context_length_exceeded",      // OpenAI's code
	"context length",               // SGLang: "longer than the model's context length"
	"context window",               // "exceeds the context window"
	"exceeds the context",          // generic
	"context size",                 // llama.cpp: "exceeds the available context size"
	"exceed_context_size",          // llama.cpp's error type
	"maximum model length",         // vLLM: "longer than the maximum model length"
	"max_model_len",                // vLLM
	"too long",                     // "prompt is too long", Ollama "input too long"
	"too many tokens",              // generic
	"max_new_tokens` must be <=",   // TGI: "`inputs` tokens + `max_new_tokens` must be <= 4096"
	"input length exceeds",         // Ollama
	"exceeds maximum input length", // generic
}

// isContextLength reports whether an error text is a context-length error.
func isContextLength(b []byte) bool {
	lower := bytes.ToLower(b)
	for _, m := range contextLengthMarkers {
		if bytes.Contains(lower, []byte(m)) {
			return true
		}
	}
	return false
}

// classifyInBand returns the class of an error object received inside a 2xx stream.
func classifyInBand(raw []byte) string {
	if isContextLength(raw) {
		return rundir.ErrContextLength
	}
	return rundir.ErrInBand
}

// classifyTransport maps a transport or body-read error to an error class and a
// message free of secrets.
func (c *Client) classifyTransport(parent, ctx context.Context, err error, afterHeaders bool) (string, string) {
	if parent.Err() != nil {
		return rundir.ErrCancelled, "cancelled: " + c.redact(errText(context.Cause(parent)))
	}
	switch cause := context.Cause(ctx); {
	case errors.Is(cause, errTimeoutFirstByte):
		return rundir.ErrTimeoutFirstByte, cause.Error()
	case errors.Is(cause, errTimeoutIdle):
		return rundir.ErrTimeoutIdle, cause.Error()
	case errors.Is(cause, errTimeoutRequest):
		return rundir.ErrTimeoutRequest, cause.Error()
	}
	msg := c.redact(errText(err))
	var de *dialError
	if errors.As(err, &de) {
		var ne net.Error
		if errors.As(de.err, &ne) && ne.Timeout() {
			return rundir.ErrTimeoutConnect, "connect: " + msg
		}
		return rundir.ErrConnect, "connect: " + msg
	}
	if !afterHeaders {
		if strings.Contains(msg, "malformed HTTP") {
			return rundir.ErrDecode, "response: " + msg
		}
		return rundir.ErrStreamTruncated, "no response: " + msg
	}
	return rundir.ErrStreamTruncated, "stream: " + msg
}

// errText is err's message without the url.Error "Post <url>:" prefix.
func errText(err error) string {
	if err == nil {
		return ""
	}
	var ue *url.Error
	if errors.As(err, &ue) && ue.Err != nil {
		err = ue.Err
	}
	return err.Error()
}

// readHTTPError records a non-2xx response: its class and the body's error message.
func (c *Client) readHTTPError(parent, ctx context.Context, s *stream, code int, src bodySource, wd *watchdog) {
	body, err := readLimited(src, maxErrorBody, wd)
	if err != nil && parent.Err() != nil {
		s.setError(c.classifyTransport(parent, ctx, err, true))
		return
	}
	class := rundir.ErrHTTP4xx
	switch {
	case code == http.StatusTooManyRequests:
		class = rundir.ErrHTTP429
	case isContextLength(body):
		class = rundir.ErrContextLength
	case code >= 500:
		class = rundir.ErrHTTP5xx
	}
	// Redacted before it is cut to size, so no secret's prefix survives the cut.
	s.setError(class, fmt.Sprintf("HTTP %d: %s", code, bodyMessage([]byte(c.redact(string(body))))))
}

// bodyMessage extracts the error message from an error body: OpenAI's
// {"error":{"message":…}}, {"error":"…"}, vLLM's {"message":…}, FastAPI's
// {"detail":…}, or the text itself. The message is valid UTF-8 (invalid bytes become
// U+FFFD) and at most maxErrorMessage bytes plus an ellipsis.
func bodyMessage(body []byte) string {
	return truncate(strings.ToValidUTF8(bodyText(body), "\uFFFD"), maxErrorMessage)
}

// bodyText is the message part of an error body, untruncated.
func bodyText(body []byte) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message json.RawMessage `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(body, &v) == nil {
		var inner struct {
			Message string `json:"message"`
		}
		if len(v.Error) > 0 && json.Unmarshal(v.Error, &inner) == nil && inner.Message != "" {
			return inner.Message
		}
		for _, raw := range []json.RawMessage{v.Error, v.Message, v.Detail} {
			var s string
			if len(raw) == 0 || string(raw) == "null" {
				continue
			}
			if json.Unmarshal(raw, &s) == nil {
				return s
			}
			return string(raw)
		}
	}
	return strings.TrimSpace(string(body))
}

// truncate shortens s to at most n bytes on a rune boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// redact masks the secrets of a message (ClientConfig.Redactor).
func (c *Client) redact(msg string) string { return c.cfg.Redactor.String(msg) }

// retryAfterMs is the wait (ms) a response of status code asks for in its Retry-After
// header value v, for 429 and 503 only: delta-seconds ("120") or an HTTP-date, counted
// from now; 0 for another status, no header, an unparsable value or a date already
// past; at most rundir.MaxRecordedRetryAfterMs. The loops honour at most maxRetryAfter
// of it (backoff.go).
func retryAfterMs(code int, v string, now time.Time) int64 {
	if v == "" || (code != http.StatusTooManyRequests && code != http.StatusServiceUnavailable) {
		return 0
	}
	v = strings.TrimSpace(v)
	const maxS = rundir.MaxRecordedRetryAfterMs / 1000
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		return min(max(secs, 0), maxS) * 1000
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0
	}
	return min(max(t.Sub(now).Milliseconds(), 0), rundir.MaxRecordedRetryAfterMs)
}

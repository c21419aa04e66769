package importer

import (
	"net/http"
	"strings"

	"github.com/llmcap/llmcap/rundir"
)

// maxErrorText is the longest error message kept per record, in bytes (a vLLM bench
// error can be a whole Python traceback).
const maxErrorText = 500

// classify maps a source's failure onto llmcap's error classes (docs/metrics.md
// "Failure classes"): status is the HTTP status when the source gives one (0: none),
// text its error type and message. A context-length refusal is context_length_exceeded
// whatever its status; then 429, other 4xx and 5xx statuses; then a timeout or a
// connection failure named in the text; anything else is ErrImported.
func classify(status int, text string) string {
	low := strings.ToLower(text)
	switch {
	case strings.Contains(low, "context length") || strings.Contains(low, "context_length") ||
		strings.Contains(low, "maximum context"):
		return rundir.ErrContextLength
	case status == http.StatusTooManyRequests:
		return rundir.ErrHTTP429
	case status >= 400 && status < 500:
		return rundir.ErrHTTP4xx
	case status >= 500 && status < 600:
		return rundir.ErrHTTP5xx
	case strings.Contains(low, "timeout") || strings.Contains(low, "timed out"):
		return rundir.ErrTimeoutRequest
	case strings.Contains(low, "connect") || strings.Contains(low, "connection refused"):
		return rundir.ErrConnect
	}
	return ErrImported
}

// statusOfReason is the HTTP status whose reason phrase is reason ("Too Many
// Requests" → 429; vLLM bench records a failed response's aiohttp reason), 0 when
// reason is none.
func statusOfReason(reason string) int {
	reason = strings.TrimSpace(reason)
	for code := 400; code < 600; code++ {
		if t := http.StatusText(code); t != "" && strings.EqualFold(t, reason) {
			return code
		}
	}
	return 0
}

// clip cuts s to maxErrorText bytes (at a rune boundary), marking the cut.
func clip(s string) string {
	if len(s) <= maxErrorText {
		return s
	}
	cut := maxErrorText
	for cut > 0 && !isRuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

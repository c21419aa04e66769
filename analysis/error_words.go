package analysis

import (
	"fmt"
	"time"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
)

// clientTimeout is one of the client's own per-request time limits (target.*_timeout):
// the error class a request that runs past it gets, the plan key that sets it, the
// limit itself (0: off) and what it bounds, in plain words.
type clientTimeout struct {
	class string        // rundir.ErrTimeout*
	key   string        // "target.request_timeout"
	limit time.Duration // the plan's value; 0 when off
	// plain is what the limit bounds in a manager's words: "time limit per request".
	plain string
}

// clientTimeoutOf is the client timeout behind error class class in target t; ok is
// false for a class that is not a client timeout.
func clientTimeoutOf(class string, t plan.Target) (clientTimeout, bool) {
	switch class {
	case rundir.ErrTimeoutRequest:
		return clientTimeout{class, "target.request_timeout", t.RequestTimeout, "time limit per request"}, true
	case rundir.ErrTimeoutFirstByte:
		return clientTimeout{class, "target.first_byte_timeout", t.FirstByteTimeout, "time limit for the server's first reply"}, true
	case rundir.ErrTimeoutIdle:
		return clientTimeout{class, "target.idle_timeout", t.IdleTimeout, "time limit between streamed words"}, true
	case rundir.ErrTimeoutConnect:
		return clientTimeout{class, "target.connect_timeout", t.ConnectTimeout, "time limit to connect"}, true
	}
	return clientTimeout{}, false
}

// durationWords renders a timeout for a sentence: "1.5 s", "10 min", "2 h".
func durationWords(d time.Duration) string {
	switch {
	case d >= time.Hour && d%time.Hour == 0:
		return fmt.Sprintf("%d h", d/time.Hour)
	case d >= time.Minute && d%time.Minute == 0:
		return fmt.Sprintf("%d min", d/time.Minute)
	case d >= time.Second:
		return fmtNum(roundTo(d.Seconds(), 1)) + " s"
	}
	return fmt.Sprintf("%d ms", d.Milliseconds())
}

// ErrorClassWords is an error class (rundir.Err*, e.g. "timeout_request") in plain
// words for page 1, with the client's own limit where the class is one, read from the
// plan's target t: "request timeout (client, 1.5 s)", "server error (HTTP 5xx)". An
// unknown class is returned as it is. The class names themselves stay in the Evidence,
// the appendix and the workbook.
func ErrorClassWords(class string, t plan.Target) string {
	if ct, ok := clientTimeoutOf(class, t); ok {
		what := map[string]string{rundir.ErrTimeoutRequest: "request timeout", rundir.ErrTimeoutFirstByte: "no reply in time",
			rundir.ErrTimeoutIdle: "stream stalled", rundir.ErrTimeoutConnect: "connect timeout"}[class]
		if ct.limit > 0 {
			return what + " (client, " + durationWords(ct.limit) + ")"
		}
		return what + " (client)"
	}
	switch class {
	case rundir.ErrHTTP4xx:
		return "request refused (HTTP 4xx)"
	case rundir.ErrHTTP429:
		return "rate limited (HTTP 429)"
	case rundir.ErrHTTP5xx:
		return "server error (HTTP 5xx)"
	case rundir.ErrConnect:
		return "could not connect"
	case rundir.ErrInBand:
		return "error inside the answer"
	case rundir.ErrContextLength:
		return "prompt too long for the model"
	case rundir.ErrStreamTruncated:
		return "answer cut off"
	case rundir.ErrCancelled:
		return "cancelled (run interrupted)"
	case rundir.ErrUnfinished:
		return "unfinished when the step ended"
	case rundir.ErrDecode:
		return "unreadable answer"
	case rundir.ErrEmptyResponse:
		return "empty answer"
	case rundir.ErrResponseTooLarge:
		return "answer too large (client limit)"
	}
	return class
}

// dominantTimeout is the client timeout behind most failed requests of steps (ok false
// when the most frequent error class is not a client timeout with a limit set).
func dominantTimeout(steps []StepStats, t plan.Target) (clientTimeout, bool) {
	classes := map[string]int{}
	for i := range steps {
		for c, n := range steps[i].ErrorClasses {
			classes[c] += n
		}
	}
	cs := sortedClasses(classes)
	if len(cs) == 0 {
		return clientTimeout{}, false
	}
	ct, ok := clientTimeoutOf(cs[0].class, t)
	return ct, ok && ct.limit > 0
}

// timeoutAdvice is the engineer's advice when the client's own timeout ct ends most
// failed requests: which limit it is, that it is the client's and not a server error,
// and to raise it where the SLA allows.
func timeoutAdvice(ct clientTimeout) string {
	return fmt.Sprintf(" Most failures are %s: the client's own %s (%s, %s) ended them, not the server. "+
		"Raise %s if the SLA allows requests that long (the latency SLA still judges slow answers) and rerun",
		ct.class, ct.plain, ct.key, durationWords(ct.limit), ct.key)
}

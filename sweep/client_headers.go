package sweep

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"maps"
	"net/http"
	"net/textproto"
	"slices"
	"strings"

	"golang.org/x/net/http/httpguts"

	"github.com/llmcap/llmcap/plan"
)

// requestIDHeader carries each request's record request_id (canonical form).
const requestIDHeader = plan.RequestIDHeader

// headerField is one extra request header line.
type headerField struct {
	name  string // canonical
	value string
}

// wireIDs are the per-request header values: the request id (X-Request-Id) and, for
// a multi-turn session's turn, the session header's name and value ("" for none).
type wireIDs struct {
	request     string
	sessionName string
	session     string
}

// NewIDTag returns 8 random hex digits: the tag that makes request ids unique across
// runs and attempts (a resumed run's process draws a new one), so that X-Request-Id
// never repeats at a server that several runs share.
func NewIDTag() string {
	var b [4]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return hex.EncodeToString(b[:])
}

// extraHeaders is h as header lines in name order, without the headers llmcap sets
// itself (plan.OwnedHeaders and the session header): those are its own. An invalid
// name or value is the error (no value is shown: it may be a secret).
func extraHeaders(h http.Header, sessionHeader string) ([]headerField, error) {
	session := textproto.CanonicalMIMEHeaderKey(sessionHeader)
	var out []headerField
	for _, k := range slices.Sorted(maps.Keys(h)) {
		name := textproto.CanonicalMIMEHeaderKey(k)
		if !httpguts.ValidHeaderFieldName(k) {
			return nil, fmt.Errorf("header %q: not a header name (an RFC 9110 token)", k)
		}
		if slices.Contains(plan.OwnedHeaders, name) || (session != "" && name == session) {
			continue
		}
		for _, v := range h[k] {
			if !httpguts.ValidHeaderFieldValue(v) {
				return nil, fmt.Errorf("header %s: its value holds CR, LF or another control character", name)
			}
			out = append(out, headerField{name: name, value: v})
		}
	}
	return out, nil
}

// wireIDs are the request's header values: its record's request id, and its session
// id under the session header when both are set.
func (c *Client) wireIDs(requestID, sessionID string) wireIDs {
	ids := wireIDs{request: requestID}
	if c.sessionHeader != "" && sessionID != "" {
		ids.sessionName, ids.session = c.sessionHeader, sessionID
	}
	return ids
}

// checkWireIDs refuses a request the client cannot send as asked: an invalid extra
// header or session header name (found once, when the client was made), or an id that
// would break the request head.
func (c *Client) checkWireIDs(ids wireIDs) error {
	switch {
	case c.headerErr != nil:
		return c.headerErr
	case ids.sessionName != "" && c.sessionHeaderErr != nil:
		return c.sessionHeaderErr
	case !httpguts.ValidHeaderFieldValue(ids.request):
		return fmt.Errorf("request id %q is no header value", ids.request)
	case !httpguts.ValidHeaderFieldValue(ids.session):
		return fmt.Errorf("session id %q is no header value", ids.session)
	}
	return nil
}

// appendHeader appends "Name: value\r\n" to b.
func appendHeader(b []byte, name, value string) []byte {
	b = append(b, name...)
	b = append(b, ": "...)
	b = append(b, value...)
	return append(b, "\r\n"...)
}

// headerValueOf is the value of the extra header name (canonical) in hs, or "".
func headerValueOf(hs []headerField, name string) (string, bool) {
	for _, f := range hs {
		if strings.EqualFold(f.name, name) {
			return f.value, true
		}
	}
	return "", false
}

package plan

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

const headersYAML = `
target:
  url: http://127.0.0.1:9/v1
  model: m
  headers:
    X-Gw-Key: "${LLMCAP_TEST_GW_KEY}"
    X-Tenant: acme
    X-Api-Key: literal-key-8888
    X-Price: "$${literal}"
`

// TestRequestHeadersResolveFromThePlanAndTheEnvironment: names come back canonical and
// sorted, ${NAME} is expanded from the environment, $${ is a literal ${, an override of
// one header (what --header gives) wins and leaves the file's others, and the session
// header defaults to X-Session-Id.
func TestRequestHeadersResolveFromThePlanAndTheEnvironment(t *testing.T) {
	t.Setenv("LLMCAP_TEST_GW_KEY", "gw-secret-9999")
	p, err := Load(writePlan(t, headersYAML+okSegments+okLadder), map[string]any{"target.headers.x-tenant": "globex"})
	if err != nil {
		t.Fatal(err)
	}
	hs, err := p.Target.RequestHeaders()
	if err != nil {
		t.Fatal(err)
	}
	want := []Header{{Name: "X-Api-Key", Value: "literal-key-8888"}, {Name: "X-Gw-Key", Value: "gw-secret-9999", Env: []string{"LLMCAP_TEST_GW_KEY"}},
		{Name: "X-Price", Value: "${literal}"}, {Name: "X-Tenant", Value: "globex"}}
	if !reflect.DeepEqual(hs, want) {
		t.Errorf("RequestHeaders = %+v\nwant %+v", hs, want)
	}
	if p.Target.SessionHeader != DefaultSessionHeader {
		t.Errorf("session_header %q, want the default %q", p.Target.SessionHeader, DefaultSessionHeader)
	}
	off, err := Load(writePlan(t, "target: {session_header: \"\"}\n"+okSegments+okLadder), nil)
	if err != nil {
		t.Fatal(err)
	}
	if off.Target.SessionHeader != "" {
		t.Errorf("session_header: \"\" gave %q, want none", off.Target.SessionHeader)
	}
}

// TestHeaderValuesFromTheEnvironmentAreRedacted: the plan copy keeps the ${NAME}
// reference (never the value) and masks the literal under a secret-looking name;
// MaskedFields names that one; the Redactor masks the environment's value in any text.
func TestHeaderValuesFromTheEnvironmentAreRedacted(t *testing.T) {
	t.Setenv("LLMCAP_TEST_GW_KEY", "gw-secret-9999")
	p, err := Load(writePlan(t, headersYAML+okSegments+okLadder), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(p.Redacted())
	red := string(b)
	for _, want := range []string{`"x-gw-key":"${LLMCAP_TEST_GW_KEY}"`, `"x-api-key":"REDACTED"`, `"x-tenant":"acme"`} {
		if !strings.Contains(red, want) {
			t.Errorf("Redacted lacks %s: %s", want, red)
		}
	}
	for _, s := range []string{"gw-secret-9999", "literal-key-8888"} {
		if strings.Contains(red, s) {
			t.Errorf("Redacted holds %q", s)
		}
		if got := p.Redactor().String("sent " + s); got != "sent REDACTED" {
			t.Errorf("Redactor gives %q for %q", got, s)
		}
	}
	if got := p.MaskedFields(); !reflect.DeepEqual(got, []string{"target.headers.x-api-key"}) {
		t.Errorf("MaskedFields = %q", got)
	}
}

// TestHeaderProblemsNameTheField: every bad header is reported with its field path and
// a reason; a variable's value never appears in the message.
func TestHeaderProblemsNameTheField(t *testing.T) {
	t.Setenv("LLMCAP_TEST_CRLF", "evil-value\r\nX-Injected: 1")
	t.Setenv("LLMCAP_TEST_KEY", "sk-test-1234")
	_, err := Load(writePlan(t, `
target:
  url: http://127.0.0.1:9/v1
  model: m
  api_key_env: LLMCAP_TEST_KEY
  session_header: "bad header"
  headers:
    "x y": a
    content-type: text/plain
    x-request-id: mine
    authorization: Basic abc
    x-unset: "${LLMCAP_TEST_SURELY_UNSET}"
    x-malformed: "${1BAD}"
    x-crlf: "${LLMCAP_TEST_CRLF}"
    x-literal-crlf: "a\nb"
`+okSegments+okLadder), nil)
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("err = %v, want a ValidationError", err)
	}
	msg := err.Error()
	for _, want := range []string{
		`target.session_header: "bad header" is not allowed: must be a header name`,
		`target.headers.x y: "x y" is not a header name`,
		`target.headers.content-type: llmcap sets Content-Type itself`,
		`target.headers.x-request-id: llmcap sets X-Request-Id itself`,
		`target.headers.authorization: the credentials come from target.api_key_env already`,
		`target.headers.x-unset: ${LLMCAP_TEST_SURELY_UNSET}: the environment variable LLMCAP_TEST_SURELY_UNSET is not set or empty`,
		`target.headers.x-malformed: a ${ must start a reference ${NAME}`,
		`target.headers.x-crlf: a header value must not contain CR, LF or other control characters (after expanding ${LLMCAP_TEST_CRLF})`,
		`target.headers.x-literal-crlf: "a\nb" is not allowed: a header value must not contain CR, LF`,
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "evil-value") || strings.Contains(msg, "sk-test-1234") {
		t.Errorf("error shows a variable's value:\n%s", msg)
	}
}

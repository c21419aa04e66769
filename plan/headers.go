package plan

import (
	"fmt"
	"maps"
	"net/textproto"
	"net/url"
	"os"
	"slices"
	"strings"

	"github.com/llmcap/llmcap/redact"
)

// DefaultSessionHeader is Target.SessionHeader's default: the header that carries a
// multi-turn session's id.
const DefaultSessionHeader = "X-Session-Id"

// RequestIDHeader is the header that carries each request's id (the record's
// request_id); vLLM and SGLang log it, so client records join server logs.
const RequestIDHeader = "X-Request-Id"

// OwnedHeaders are the request headers llmcap sets itself (canonical form), which
// target.headers may not set: the framing and routing of the request, its content
// type, the stream it asks for and the request id (the session header is refused too).
var OwnedHeaders = []string{"Accept", "Connection", "Content-Length", "Content-Type", "Expect",
	"Host", "Keep-Alive", "Proxy-Connection", "Te", "Trailer", "Transfer-Encoding", "Upgrade",
	RequestIDHeader}

// Header is one resolved custom request header.
type Header struct {
	// Name is the header's canonical name (textproto.CanonicalMIMEHeaderKey: X-Api-Key).
	Name string
	// Value is the value sent, ${NAME} references expanded.
	Value string
	// Env lists the environment variables the value took parts from (none: a literal).
	Env []string
}

// RequestHeaders resolves target.headers: canonical names, values with ${NAME}
// expanded from the environment, sorted by name. The error names the first header
// whose value cannot be expanded (a malformed reference, an unset or empty variable);
// it never holds a variable's value. Validate reports every such problem.
func (t Target) RequestHeaders() ([]Header, error) {
	out := make([]Header, 0, len(t.Headers))
	for _, name := range slices.Sorted(maps.Keys(t.Headers)) {
		v, env, err := expandHeaderValue(t.Headers[name])
		if err != nil {
			return nil, fmt.Errorf("target.headers.%s: %w", name, err)
		}
		out = append(out, Header{Name: textproto.CanonicalMIMEHeaderKey(name), Value: v, Env: env})
	}
	return out, nil
}

// expandHeaderValue replaces each ${NAME} of v by the environment variable NAME and
// each $${ by ${; env lists the variables used. A reference that is not ${NAME} with
// NAME a portable variable name, or names an unset or empty variable, is an error.
func expandHeaderValue(v string) (out string, env []string, err error) {
	var b strings.Builder
	for {
		i := strings.Index(v, "${")
		if i < 0 {
			b.WriteString(v)
			return b.String(), env, nil
		}
		if i > 0 && v[i-1] == '$' { // $${ is a literal ${
			b.WriteString(v[:i-1] + "${")
			v = v[i+2:]
			continue
		}
		b.WriteString(v[:i])
		end := strings.IndexByte(v[i:], '}')
		if end < 0 || !envVarRE.MatchString(v[i+2:i+end]) {
			return "", nil, fmt.Errorf("a ${ must start a reference ${NAME} to an environment variable " +
				"(NAME: letters, digits and _, not starting with a digit); write $${ for a literal ${")
		}
		name := v[i+2 : i+end]
		val := os.Getenv(name)
		if val == "" {
			return "", nil, fmt.Errorf("${%s}: the environment variable %s is not set or empty", name, name)
		}
		b.WriteString(val)
		env = append(env, name)
		v = v[i+end+1:]
	}
}

// checkHeaders validates target.headers and target.session_header: names are RFC 9110
// tokens and not headers llmcap owns; values (after expansion) hold no CR, LF or other
// control character; ${NAME} references name set variables; Authorization only when no
// other credential is configured.
func (t Target) checkHeaders(ps *problems) {
	session := textproto.CanonicalMIMEHeaderKey(t.SessionHeader)
	if t.SessionHeader != "" {
		switch {
		case !IsHeaderName(t.SessionHeader):
			ps.add("target.session_header", t.SessionHeader, "must be a header name (an RFC 9110 token: letters, digits and !#$%%&'*+-.^_`|~), or \"\" for none")
		case slices.Contains(OwnedHeaders, session) || session == "Authorization":
			ps.add("target.session_header", t.SessionHeader, "names a header llmcap sets itself; choose another (default %s)", DefaultSessionHeader)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(t.Headers)) {
		path := "target.headers." + name
		canon := textproto.CanonicalMIMEHeaderKey(name)
		switch {
		case !IsHeaderName(name):
			ps.add(path, raw(""), "%q is not a header name: an RFC 9110 token (letters, digits and !#$%%&'*+-.^_`|~; "+
				"no spaces, colons or dots)", name)
			continue
		case slices.Contains(OwnedHeaders, canon):
			ps.add(path, raw(""), "llmcap sets %s itself (it owns %s); remove it", canon, strings.Join(OwnedHeaders, ", "))
			continue
		case t.SessionHeader != "" && canon == session:
			ps.add(path, raw(""), "%s is target.session_header, which llmcap sets to each multi-turn session's id; "+
				"remove it, or set target.session_header to another name (\"\" for none)", canon)
			continue
		case canon == "Authorization" && t.otherCredential() != "":
			ps.add(path, raw(""), "the credentials come from %s already; set only one", t.otherCredential())
			continue
		}
		t.checkHeaderValue(ps, path, name)
	}
}

// checkHeaderValue checks one header's value: its references expand and the result
// holds no control character. The value is shown only when it is a literal under a
// name that does not look secret.
func (t Target) checkHeaderValue(ps *problems, path, name string) {
	v := t.Headers[name]
	exp, env, err := expandHeaderValue(v)
	if err != nil {
		ps.add(path, raw(""), "%v", err)
		return
	}
	if i := strings.IndexFunc(exp, badHeaderRune); i >= 0 {
		shown := any(raw(""))
		from := ""
		if len(env) > 0 {
			from = " (after expanding ${" + strings.Join(env, "}, ${") + "})"
		} else if !secretHeaderName(name) {
			shown = v
		}
		ps.add(path, shown, "a header value must not contain CR, LF or other control characters%s: byte %d is %q",
			from, i, exp[i])
	}
}

// otherCredential names the setting that already supplies an Authorization header
// ("" when none): the API key or the user info of target.url.
func (t Target) otherCredential() string {
	switch {
	case t.APIKeyEnv != "":
		return "target.api_key_env"
	case t.APIKeyFile != "":
		return "target.api_key_file"
	}
	if u, err := url.Parse(t.URL); err == nil && u.User != nil {
		return "the user info of target.url"
	}
	return ""
}

// badHeaderRune reports a character a header value may not hold: a control character
// other than horizontal tab (CR and LF would end the header; NUL and others are
// refused by servers), or DEL.
func badHeaderRune(r rune) bool { return (r < 0x20 && r != '\t') || r == 0x7f }

// IsHeaderName reports whether s may name a header in target.headers: an RFC 9110
// token (one or more of the visible ASCII characters other than delimiters) without a
// dot, which, though a token character, the plan loader reads as a key separator.
func IsHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			strings.IndexByte("!#$%&'*+-^_`|~", c) >= 0
		if !ok {
			return false
		}
	}
	return true
}

// secretHeaderName reports whether a header's literal value is a secret to mask in
// outputs: a secret-looking name (redact.SecretName: Authorization, X-Api-Key,
// X-Auth-Token) or a cookie.
func secretHeaderName(name string) bool {
	c := textproto.CanonicalMIMEHeaderKey(name)
	return redact.SecretName(name) || c == "Cookie" || c == "Proxy-Authorization"
}

// headerSecrets lists the secret values of target.headers: each value that took parts
// from the environment (whole, and each variable's value), and each literal value under
// a secret-looking name (secretHeaderName).
func (t Target) headerSecrets() []string {
	var out []string
	for name, v := range t.Headers {
		exp, env, err := expandHeaderValue(v)
		if err != nil {
			continue
		}
		switch {
		case len(env) > 0:
			out = append(out, exp)
			for _, e := range env {
				out = append(out, os.Getenv(e))
			}
		case secretHeaderName(name):
			out = append(out, v)
		}
	}
	return out
}

// redactedHeaders is h with the literal values (no ${NAME} reference) under
// secret-looking names masked; values with references stay as written (the references
// hold no secret, and a resume expands them again).
func redactedHeaders(h map[string]string) map[string]string {
	if h == nil {
		return nil
	}
	out := make(map[string]string, len(h))
	for name, v := range h {
		if secretHeaderName(name) && !hasEnvRef(v) {
			v = redact.Mask
		}
		out[name] = v
	}
	return out
}

// hasEnvRef reports whether v holds a ${ that is not the literal $${.
func hasEnvRef(v string) bool {
	for {
		i := strings.Index(v, "${")
		if i < 0 {
			return false
		}
		if i == 0 || v[i-1] != '$' {
			return true
		}
		v = v[i+2:]
	}
}

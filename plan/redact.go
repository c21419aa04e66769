package plan

import (
	"encoding/json"
	"strings"

	"github.com/llmcap/llmcap/redact"
)

// RedactedMask replaces secrets in Redacted plans (redact.Mask).
const RedactedMask = redact.Mask

// Redacted returns a deep copy of p that is safe to write to outputs and logs: the API
// key is cleared; in target.url and target.metrics_urls the password of the user info
// and secret-looking query parameters are masked (redact.URL); in target.launch the
// values of secret-looking environment entries and the secrets of other values
// (redact.Env: HF_TOKEN=…, VLLM_ARGS=--api-key …) and of secret-looking flags and
// KEY=VALUE words of the command (redact.Argv: --api-key X, --hf-token=X, HF_TOKEN=X
// vllm serve) are masked; in target.extra_body the values under secret-looking keys and
// the secrets of other strings (redact.Tree); in target.headers the literal values under
// secret-looking names (Authorization, X-Api-Key, Cookie; a ${NAME} reference stays as
// written). Then p's Redactor masks every string of
// the copy, so a known secret repeated elsewhere (a URL's password as a bare argument)
// and the generic shapes (Bearer TOKEN in a script) are masked too. p is unchanged.
func (p *Plan) Redacted() *Plan {
	var c Plan
	b, err := json.Marshal(p)
	if err == nil {
		err = json.Unmarshal(b, &c)
	}
	if err != nil { // cannot happen for a plan that came from YAML; fall back to a shallow copy
		c = *p
		c.Segments = append([]Segment(nil), p.Segments...)
	}
	c.Target.APIKey = ""
	c.Target.URL, _ = redact.URL(c.Target.URL)
	if len(c.Target.MetricsURLs) > 0 {
		c.Target.MetricsURLs = append([]string(nil), c.Target.MetricsURLs...)
		for i, u := range c.Target.MetricsURLs {
			c.Target.MetricsURLs[i], _ = redact.URL(u)
		}
	}
	if l := c.Target.Launch; l != nil {
		l2 := *l
		l2.Env, _ = redact.Env(l.Env)
		l2.Command, _ = redact.Argv(l.Command)
		c.Target.Launch = &l2
	}
	if t := c.Tune; t != nil {
		t2 := *t
		t2.Launch.Env, _ = redact.Env(t.Launch.Env)
		t2.Launch.Command, _ = redact.Argv(t.Launch.Command)
		c.Tune = &t2
	}
	if c.Target.ExtraBody != nil {
		m, _ := redact.Tree(c.Target.ExtraBody)
		c.Target.ExtraBody, _ = m.(map[string]any)
	}
	c.Target.Headers = redactedHeaders(c.Target.Headers)
	return redactStrings(&c, p.Redactor())
}

// redactStrings returns c with r applied to every string it holds (through its JSON
// form); c itself when that form does not round-trip.
func redactStrings(c *Plan, r *redact.Redactor) *Plan {
	var tree any
	b, err := json.Marshal(c)
	if err == nil {
		err = json.Unmarshal(b, &tree)
	}
	if err != nil {
		return c
	}
	b, err = json.Marshal(mapStrings(tree, r.String))
	var out Plan
	if err == nil {
		err = json.Unmarshal(b, &out)
	}
	if err != nil {
		return c
	}
	return &out
}

// mapStrings returns a copy of the JSON value v with f applied to every string (not to
// object keys).
func mapStrings(v any, f func(string) string) any {
	switch x := v.(type) {
	case string:
		return f(x)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = mapStrings(e, f)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = mapStrings(e, f)
		}
		return out
	}
	return v
}

// Secrets lists p's secret values: the API key; what redact.URL finds in target.url and
// each of target.metrics_urls (user-info password, its Basic-auth base64, secret query
// parameters); what redact.Env and redact.Argv find in target.launch's environment and
// command; what redact.Tree finds in target.extra_body; target.headers' values taken
// from the environment (expanded, and each variable's value) and literal values under
// secret-looking names. Redacted masks each where it
// stands; Redactor masks them in any text.
func (p *Plan) Secrets() []string {
	var out []string
	if p.Target.APIKey != "" {
		out = append(out, p.Target.APIKey)
	}
	for _, u := range append([]string{p.Target.URL}, p.Target.MetricsURLs...) {
		_, s := redact.URL(u)
		out = append(out, s...)
	}
	if l := p.Target.Launch; l != nil {
		_, s := redact.Env(l.Env)
		out = append(out, s...)
		_, s = redact.Argv(l.Command)
		out = append(out, s...)
	}
	if t := p.Tune; t != nil {
		_, s := redact.Env(t.Launch.Env)
		out = append(out, s...)
		_, s = redact.Argv(t.Launch.Command)
		out = append(out, s...)
	}
	if p.Target.ExtraBody != nil {
		_, s := redact.Tree(p.Target.ExtraBody)
		out = append(out, s...)
	}
	return append(out, p.Target.headerSecrets()...)
}

// Redactor is the redactor of p's secrets (Secrets): what every writer and logger of a
// run applies to the text it writes. A nil p gives one that masks only the generic
// shapes (URL passwords, bearer tokens).
func (p *Plan) Redactor() *redact.Redactor {
	if p == nil {
		return redact.New()
	}
	return redact.New(p.Secrets()...)
}

// redactURL is raw with its secrets masked (redact.URL), for validation messages.
func redactURL(raw string) string {
	s, _ := redact.URL(raw)
	return s
}

// userInfoHint is, for a URL with user info ("scheme://…@"), the advice to
// percent-encode its special characters (a "#", "/", "?" or space in a password makes
// the URL unparsable or moves the password into the path); "" otherwise.
func userInfoHint(raw string) string {
	scheme := strings.Index(raw, "://")
	if scheme < 0 || strings.LastIndexByte(raw, '@') < scheme {
		return ""
	}
	return "; percent-encode special characters of a user name or password in a URL " +
		"(# as %23, / as %2F, ? as %3F, @ as %40, : as %3A, a space as %20)"
}

// redactEnv is a launch environment entry with a secret value masked (redact.Env).
func redactEnv(e string) string {
	s, _ := redact.Env([]string{e})
	return s[0]
}

package plan

import (
	"encoding/json"

	"github.com/llmcap/llmcap/redact"
)

// RedactedMask replaces secrets in Redacted plans (redact.Mask).
const RedactedMask = redact.Mask

// Redacted returns a deep copy of p that is safe to write to outputs and logs: the API
// key is cleared; in target.url and target.metrics_urls the password of the user info
// and secret-looking query parameters are masked (redact.URL); in target.launch the
// values of secret-looking environment entries (redact.Env: HF_TOKEN=…, …_API_KEY=…)
// and of secret-looking flags and KEY=VALUE words of the command (redact.Argv:
// --api-key X, --hf-token=X, HF_TOKEN=X vllm serve) are masked. p is unchanged.
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
	return &c
}

// Secrets lists p's secret values: the API key; what redact.URL finds in target.url and
// each of target.metrics_urls (user-info password, its Basic-auth base64, secret query
// parameters); what redact.Env and redact.Argv find in target.launch's environment and
// command. Redacted masks each where it stands; Redactor masks them in any text.
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
	return out
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

// redactEnv is a launch environment entry with a secret value masked (redact.Env).
func redactEnv(e string) string {
	s, _ := redact.Env([]string{e})
	return s[0]
}

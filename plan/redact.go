package plan

import (
	"encoding/json"
	"net/url"
	"regexp"
	"strings"
)

// RedactedMask replaces secrets in Redacted plans.
const RedactedMask = "REDACTED"

var secretEnvRE = regexp.MustCompile(`(?i)(key|token|secret|passw|auth|credential)`)

// Redacted returns a deep copy of p that is safe to write to outputs and logs: the API
// key is cleared, URL passwords and the values of secret-looking launch environment
// entries (…KEY, …TOKEN, …SECRET, …PASSWORD) are masked. p is unchanged.
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
	c.Target.URL = redactURL(c.Target.URL)
	if len(c.Target.MetricsURLs) > 0 {
		c.Target.MetricsURLs = append([]string(nil), c.Target.MetricsURLs...)
		for i, u := range c.Target.MetricsURLs {
			c.Target.MetricsURLs[i] = redactURL(u)
		}
	}
	if l := c.Target.Launch; l != nil {
		l2 := *l
		l2.Env = append([]string(nil), l.Env...)
		for i, e := range l2.Env {
			l2.Env[i] = redactEnv(e)
		}
		c.Target.Launch = &l2
	}
	return &c
}

// redactURL masks the password of a URL's user info.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), RedactedMask)
	}
	return u.String()
}

// redactEnv masks the value of a KEY=VALUE entry whose key looks secret.
func redactEnv(e string) string {
	k, _, ok := strings.Cut(e, "=")
	if ok && secretEnvRE.MatchString(k) {
		return k + "=" + RedactedMask
	}
	return e
}

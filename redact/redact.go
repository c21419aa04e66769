// Package redact keeps secrets out of llmcap's outputs: one Redactor, built from the
// plan's secret values (plan.Plan.Redactor), masks them in every string written to a
// file, a log line or an error, and this package's Argv, Env and URL find those values
// in a launch command, its environment and a URL. Every writer (the run directory's,
// the launched server's log) and every logger (the CLI's slog handler, the sweep's)
// goes through a Redactor, so a secret needs no care at the place it could leak.
package redact

import (
	"bytes"
	"encoding/json"
	"regexp"
	"sort"
	"strings"
)

// Mask replaces every secret.
const Mask = "REDACTED"

// MinLen is the shortest secret a Redactor searches for in free text: shorter values
// (a one-letter password) are masked where they stand in the plan (Argv, Env, URL) but
// replacing them everywhere would mangle ordinary words and numbers.
const MinLen = 4

// Redactor masks a fixed set of secret values, and the generic shapes of a secret
// (the password of a URL's user info, a "Bearer <token>" credential), in any text. The
// zero value and nil mask only the generic shapes. It is safe for concurrent use.
type Redactor struct {
	secrets  []string // longest first
	replacer *strings.Replacer
}

// New returns a Redactor for secrets: each value of at least MinLen bytes, and its JSON
// string escaping when that differs (so it is found in encoded JSON too). Empty and
// shorter values are ignored.
func New(secrets ...string) *Redactor {
	seen := map[string]bool{}
	var list []string
	add := func(s string) {
		if len(s) >= MinLen && !seen[s] && s != Mask {
			seen[s] = true
			list = append(list, s)
		}
	}
	for _, s := range secrets {
		add(s)
		if b, err := json.Marshal(s); err == nil {
			add(string(b[1 : len(b)-1]))
		}
	}
	sort.Slice(list, func(i, j int) bool {
		if len(list[i]) != len(list[j]) {
			return len(list[i]) > len(list[j])
		}
		return list[i] < list[j]
	})
	r := &Redactor{secrets: list}
	if len(list) > 0 {
		pairs := make([]string, 0, 2*len(list))
		for _, s := range list {
			pairs = append(pairs, s, Mask)
		}
		r.replacer = strings.NewReplacer(pairs...)
	}
	return r
}

// Secrets returns how many secret values (with their JSON forms) r searches for.
func (r *Redactor) Secrets() int {
	if r == nil {
		return 0
	}
	return len(r.secrets)
}

// urlUserInfoRE matches the user info of a URL written in text ("scheme://user:pass@").
var urlUserInfoRE = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.\-]*://)([^\s/?#@:"'<>]*):([^\s/?#@"'<>]+)@`)

// bearerRE matches a bearer credential ("Bearer <token>", as in an Authorization header).
var bearerRE = regexp.MustCompile(`\b([Bb]earer)\s+[A-Za-z0-9\-._~+/]{8,}=*`)

// String returns s with every secret replaced by Mask, URL passwords masked
// ("http://user:REDACTED@host") and bearer tokens masked ("Bearer REDACTED").
func (r *Redactor) String(s string) string {
	if r != nil && r.replacer != nil && r.contains(s) {
		s = r.replacer.Replace(s)
	}
	if strings.Contains(s, "://") && strings.Contains(s, "@") {
		s = urlUserInfoRE.ReplaceAllString(s, "${1}${2}:"+Mask+"@")
	}
	if strings.Contains(s, "earer") {
		s = bearerRE.ReplaceAllString(s, "${1} "+Mask)
	}
	return s
}

// contains reports whether s holds one of the secrets.
func (r *Redactor) contains(s string) bool {
	for _, x := range r.secrets {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}

// Bytes is String for a byte slice; it returns b itself when nothing is masked (the
// run directory's writers call it on every line).
func (r *Redactor) Bytes(b []byte) []byte {
	if !r.needs(b) {
		return b
	}
	return []byte(r.String(string(b)))
}

// needs reports whether b may hold something String masks.
func (r *Redactor) needs(b []byte) bool {
	if bytes.Contains(b, []byte("://")) && bytes.IndexByte(b, '@') >= 0 || bytes.Contains(b, []byte("earer")) {
		return true
	}
	if r == nil {
		return false
	}
	for _, x := range r.secrets {
		if bytes.Contains(b, []byte(x)) {
			return true
		}
	}
	return false
}

// Strings returns a copy of list with String applied to each element (nil for nil).
func (r *Redactor) Strings(list []string) []string {
	if list == nil {
		return nil
	}
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = r.String(s)
	}
	return out
}

// Error returns an error whose message is err's with String applied; it unwraps to err
// (errors.Is and errors.As still see the original). Nil stays nil; an error with
// nothing to mask is returned as is.
func (r *Redactor) Error(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if red := r.String(msg); red != msg {
		return &redactedError{msg: red, err: err}
	}
	return err
}

// redactedError is an error with a redacted message around the original.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

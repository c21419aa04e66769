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

// New returns a Redactor for secrets: each value of at least MinLen bytes and the forms
// it takes in encoded JSON (escapeForms: escaped with and without HTML escaping, "/" as
// "\/", and each of those escaped once more, as in a JSON error body quoted in a JSON
// record). Empty and shorter values are ignored, and so are values holding Mask (a
// masked plan's "Bearer REDACTED"), so that redacting is idempotent.
func New(secrets ...string) *Redactor {
	seen := map[string]bool{}
	var list []string
	for _, s := range secrets {
		if len(s) < MinLen || strings.Contains(s, Mask) { // already masked ("Bearer REDACTED")
			continue
		}
		for _, f := range escapeForms(s) {
			if !seen[f] {
				seen[f] = true
				list = append(list, f)
			}
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

// escapeForms is s and the forms JSON encoders give it: Go's (HTML-escaped: "<" as
// \u003c), Python's and most others' (only '"' and '\' and controls escaped), with "/"
// as "\/" (PHP), and each of these escaped a second time.
func escapeForms(s string) []string {
	forms := []string{s}
	seen := map[string]bool{s: true}
	for depth := 0; depth < 2; depth++ {
		for _, f := range forms {
			for _, html := range []bool{true, false} {
				e := jsonEscape(f, html)
				for _, g := range []string{e, strings.ReplaceAll(e, "/", `\/`)} {
					if !seen[g] {
						seen[g] = true
						forms = append(forms, g)
					}
				}
			}
		}
	}
	return forms
}

// jsonEscape is s encoded as a JSON string, without the quotes, HTML-escaped or not.
func jsonEscape(s string, html bool) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(html)
	if err := enc.Encode(s); err != nil {
		return s
	}
	out := bytes.TrimSpace(b.Bytes())
	return string(out[1 : len(out)-1])
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
var bearerRE = regexp.MustCompile(`\b([Bb]earer)\s+([A-Za-z0-9\-._~+/]{8,}=*)`)

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

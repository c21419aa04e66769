package redact

import (
	"encoding/base64"
	"net/url"
	"strings"
	"unicode"
)

// secretSuffixes end a secret-looking name's word ("api_key", "HF_TOKEN", "oauth",
// "X-Amz-Signature"); secretPrefixes begin one ("passwd", "secrets", "credentials").
var (
	secretSuffixes = []string{"key", "token", "secret", "password", "passwd", "pwd", "auth", "credential",
		"credentials", "signature"}
	secretPrefixes = []string{"passw", "secret", "credential"}
)

// SecretName reports whether a flag, environment variable or query parameter name looks
// like it holds a secret: one of its words (split at anything but letters and digits,
// case ignored) ends in key, token, secret, password, passwd, pwd, auth, credential(s) or
// signature, starts with passw, secret or credential, or is "pass". So --api-key,
// --hf-token, HF_TOKEN, OPENAI_API_KEY, apiKey and ?access_token= are secret, while
// --max-num-batched-tokens, --tokenizer and --ssl-keyfile are not.
func SecretName(name string) bool {
	words := strings.FieldsFunc(strings.ToLower(name), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	for _, w := range words {
		if w == "pass" {
			return true
		}
		for _, s := range secretSuffixes {
			if strings.HasSuffix(w, s) {
				return true
			}
		}
		for _, s := range secretPrefixes {
			if strings.HasPrefix(w, s) {
				return true
			}
		}
	}
	return false
}

// span is a secret's place: element elem of a list, bytes [start, end).
type span struct{ elem, start, end int }

// Argv finds the secrets of a command line: the value after a secret-looking flag
// ("--api-key X", "--api-key=X", "-token X"; see SecretName) and the value of a
// secret-looking KEY=VALUE word ("HF_TOKEN=X vllm serve"). An element holding a whole
// shell command ("sh", "-c", "HF_TOKEN=X exec vllm serve --api-key Y") is read word by
// word. It returns a copy of argv with each such value replaced by Mask, and the values.
func Argv(argv []string) (masked, secrets []string) {
	type word struct {
		text       string
		elem, from int
	}
	var words []word
	for i, a := range argv {
		for _, f := range fieldsAt(a) {
			words = append(words, word{a[f[0]:f[1]], i, f[0]})
		}
	}
	var spans []span
	mark := func(w word, off int) {
		v, s, e := unquote(w.text[off:])
		if v != "" {
			spans = append(spans, span{w.elem, w.from + off + s, w.from + off + e})
			secrets = append(secrets, v)
		}
	}
	for i, w := range words {
		switch name, _, hasEq := strings.Cut(w.text, "="); {
		case strings.HasPrefix(w.text, "-") && hasEq && SecretName(name):
			mark(w, len(name)+1)
		case strings.HasPrefix(w.text, "-") && !hasEq && SecretName(w.text):
			if i+1 < len(words) && !strings.HasPrefix(words[i+1].text, "-") {
				mark(words[i+1], 0)
			}
		case hasEq && envName(name) && SecretName(name):
			mark(w, len(name)+1)
		}
	}
	return maskSpans(argv, spans), secrets
}

// Env finds the secrets of KEY=VALUE environment entries whose key looks secret
// (SecretName): it returns a copy of env with those values replaced by Mask, and the
// values.
func Env(env []string) (masked, secrets []string) {
	if env == nil {
		return nil, nil
	}
	masked = append([]string(nil), env...)
	for i, e := range env {
		if k, v, ok := strings.Cut(e, "="); ok && v != "" && SecretName(k) {
			masked[i] = k + "=" + Mask
			secrets = append(secrets, v)
		}
	}
	return masked, secrets
}

// URL finds the secrets of a URL: the password of its user info (a user name alone, as
// in "https://TOKEN@host", is taken for a token), the base64 "user:password" a Basic
// Authorization header carries, and the values of secret-looking query parameters
// ("?api_key=X", "&token=X"; SecretName), each decoded and as written. It returns the URL
// with those replaced by Mask (raw unchanged when it does not parse or holds none) and
// the values.
func URL(raw string) (masked string, secrets []string) {
	u, err := url.Parse(raw)
	if err != nil {
		return raw, nil
	}
	changed := false
	if u.User != nil {
		user := u.User.Username()
		pass, has := u.User.Password()
		written := u.User.String()
		switch {
		case has:
			secrets = append(secrets, pass, written[strings.IndexByte(written, ':')+1:],
				base64.StdEncoding.EncodeToString([]byte(user+":"+pass)))
			u.User = url.UserPassword(user, Mask)
			changed = true
		case user != "":
			secrets = append(secrets, user, written, base64.StdEncoding.EncodeToString([]byte(user+":")))
			u.User = url.User(Mask)
			changed = true
		}
	}
	if u.RawQuery != "" {
		parts := strings.Split(u.RawQuery, "&")
		for i, p := range parts {
			k, v, ok := strings.Cut(p, "=")
			name, _ := url.QueryUnescape(k)
			if !ok || v == "" || !SecretName(name) {
				continue
			}
			secrets = append(secrets, v)
			if dv, err := url.QueryUnescape(v); err == nil && dv != v {
				secrets = append(secrets, dv)
			}
			parts[i] = k + "=" + Mask
			changed = true
		}
		u.RawQuery = strings.Join(parts, "&")
	}
	if !changed {
		return raw, secrets
	}
	return u.String(), secrets
}

// fieldsAt returns the [start, end) offsets of the whitespace-separated words of s.
func fieldsAt(s string) [][2]int {
	var out [][2]int
	start := -1
	for i, r := range s {
		if unicode.IsSpace(r) {
			if start >= 0 {
				out = append(out, [2]int{start, i})
				start = -1
			}
		} else if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		out = append(out, [2]int{start, len(s)})
	}
	return out
}

// unquote trims shell quoting and a trailing ";" from a value: the value and its offsets
// within s.
func unquote(s string) (v string, start, end int) {
	start, end = 0, len(s)
	for end > start && strings.ContainsRune(`;'"`, rune(s[end-1])) {
		end--
	}
	for start < end && strings.ContainsRune(`'"`, rune(s[start])) {
		start++
	}
	return s[start:end], start, end
}

// envName reports whether s is an environment variable name ([A-Za-z_][A-Za-z0-9_]*).
func envName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if r != '_' && !(r < unicode.MaxASCII && unicode.IsLetter(r)) && (i == 0 || !unicode.IsDigit(r)) {
			return false
		}
	}
	return true
}

// maskSpans returns a copy of list with each span replaced by Mask.
func maskSpans(list []string, spans []span) []string {
	if list == nil {
		return nil
	}
	out := append([]string(nil), list...)
	for i := len(spans) - 1; i >= 0; i-- { // spans are in order: replace from the end
		s := spans[i]
		out[s.elem] = out[s.elem][:s.start] + Mask + out[s.elem][s.end:]
	}
	return out
}

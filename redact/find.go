package redact

import (
	"encoding/base64"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"unicode"
)

// secretSuffixes end a secret-looking name's word ("api_key", "HF_TOKEN", "oauth",
// "X-Amz-Signature"); secretPrefixes begin one ("passwd", "secrets", "credentials").
var (
	secretSuffixes = []string{"key", "token", "secret", "password", "passwd", "pwd", "auth", "authorization",
		"credential", "credentials", "signature"}
	secretPrefixes = []string{"passw", "secret", "credential"}
	// secretQueryWords are further whole words of a secret query parameter name: an
	// Azure SAS signature (?sig=), an Azure Functions key or an OAuth code (?code=).
	secretQueryWords = []string{"sig", "code"}
)

// SecretName reports whether a flag, environment variable or query parameter name looks
// like it holds a secret: one of its words (split at anything but letters and digits,
// case ignored) ends in key, token, secret, password, passwd, pwd, auth, authorization,
// credential(s) or signature, starts with passw, secret or credential, or is "pass". So
// --api-key, --hf-token, HF_TOKEN, OPENAI_API_KEY, apiKey, Authorization and
// ?access_token= are secret, while --max-num-batched-tokens, --tokenizer and
// --ssl-keyfile are not.
func SecretName(name string) bool {
	for _, w := range nameWords(name) {
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

// SecretQueryName reports whether a URL query parameter name looks like it holds a
// secret: SecretName, or one of its words is sig or code (?sig= of an Azure SAS URL,
// ?code= of an Azure Functions key; X-Amz-Signature and X-Amz-Credential are SecretName's).
func SecretQueryName(name string) bool {
	if SecretName(name) {
		return true
	}
	for _, w := range nameWords(name) {
		for _, q := range secretQueryWords {
			if w == q {
				return true
			}
		}
	}
	return false
}

// nameWords splits a name at anything but letters and digits, lower-cased.
func nameWords(name string) []string {
	return strings.FieldsFunc(strings.ToLower(name), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// span is a secret's place: element elem of a list, bytes [start, end).
type span struct{ elem, start, end int }

// Argv finds the secrets of a command line: the value after a secret-looking flag
// ("--api-key X", "--api-key=X", "-token X"; see SecretName) and the value of a
// secret-looking KEY=VALUE word ("HF_TOKEN=X vllm serve"). An element holding a whole
// shell command ("sh", "-c", "HF_TOKEN=X exec vllm serve --api-key Y") is read word by
// word. The token of a "Bearer TOKEN" (curl -H 'Authorization: Bearer X') is a secret
// too. It returns a copy of argv with each such value replaced by Mask, and the values.
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
	for i, a := range argv {
		for _, m := range bearerRE.FindAllStringSubmatchIndex(a, -1) {
			spans = append(spans, span{i, m[4], m[5]})
			secrets = append(secrets, a[m[4]:m[5]])
		}
	}
	return maskSpans(argv, spans), secrets
}

// Env finds the secrets of KEY=VALUE environment entries: the whole value of an entry
// whose key looks secret (SecretName: HF_TOKEN=X), and what Text finds in the value of
// any other (VLLM_ARGS=--api-key X, DATABASE_URL=postgres://u:X@h/db). It returns a
// copy of env with those values replaced by Mask, and the values.
func Env(env []string) (masked, secrets []string) {
	if env == nil {
		return nil, nil
	}
	masked = append([]string(nil), env...)
	for i, e := range env {
		k, v, ok := strings.Cut(e, "=")
		switch {
		case !ok || v == "":
		case SecretName(k):
			masked[i] = k + "=" + Mask
			secrets = append(secrets, v)
		default:
			mv, s := Text(v)
			masked[i] = k + "=" + mv
			secrets = append(secrets, s...)
		}
	}
	return masked, secrets
}

// URL finds the secrets of a URL: the password of its user info (a user name alone, as
// in "https://TOKEN@host", is taken for a token), the base64 "user:password" a Basic
// Authorization header carries, and the values of secret-looking query parameters
// ("?api_key=X", "&token=X", "&sig=X"; SecretQueryName), each decoded and as written. It
// returns the URL with those replaced by Mask (raw unchanged when it holds none) and the
// values. A URL that does not parse (a password with an unencoded "#", "/", "?" or
// space) has everything between "scheme://" (and the user name's ":") and its last "@"
// taken for the user info's secret (rawUserInfo).
func URL(raw string) (masked string, secrets []string) {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil && strings.Contains(raw, "@") {
		if m, s, ok := rawUserInfo(raw); ok {
			return m, s
		}
	}
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
			if !ok || v == "" || !SecretQueryName(name) {
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

// rawUserInfo masks the user info of a URL url.Parse rejects or misreads: after
// "scheme://", everything up to the last "@" before a space-free host is the user info;
// its part after the first ":" is the password (all of it, without ":", a token). It
// returns the masked URL and the secret, or ok false when raw has no "scheme://…@".
func rawUserInfo(raw string) (masked string, secrets []string, ok bool) {
	loc := schemeRE.FindStringIndex(raw)
	at := strings.LastIndexByte(raw, '@')
	if loc == nil || at < loc[1] {
		return raw, nil, false
	}
	info := raw[loc[1]:at]
	start := loc[1]
	if i := strings.IndexByte(info, ':'); i >= 0 {
		start += i + 1
	}
	if start == at {
		return raw, nil, false
	}
	return raw[:start] + Mask + raw[at:], []string{raw[start:at]}, true
}

// schemeRE matches a URL's "scheme://" at the start of a string.
var schemeRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.\-]*://`)

// Text finds the secrets of free text (a launch environment value, a string of
// target.extra_body): what Argv finds in its words (--api-key X, HF_TOKEN=X), what URL
// finds in each word holding "://", and the token of each "Bearer TOKEN". It returns s
// with those masked (and the generic shapes, as Redactor.String does) and the values.
func Text(s string) (masked string, secrets []string) {
	m, secrets := Argv([]string{s})
	masked = m[0]
	var urls []string // each URL word and its masked form
	for _, f := range fieldsAt(masked) {
		if w, _, _ := unquote(masked[f[0]:f[1]]); strings.Contains(w, "://") {
			mu, found := URL(w)
			secrets = append(secrets, found...)
			if mu != w {
				urls = append(urls, w, mu)
			}
		}
	}
	if len(urls) > 0 {
		masked = strings.NewReplacer(urls...).Replace(masked)
	}
	for _, sub := range bearerRE.FindAllStringSubmatch(s, -1) {
		secrets = append(secrets, sub[2])
	}
	return New(secrets...).String(masked), secrets
}

// Tree finds the secrets of a decoded JSON or YAML value (target.extra_body): under a
// key that looks secret (SecretName: api_key, token, Authorization), at any depth,
// every string is a secret (a "Bearer TOKEN" value also gives its token; numbers and
// booleans are left); any other string is free text (Text). It returns a copy of v with each secret replaced
// by Mask ("Bearer REDACTED" for a scheme and token) and the values; v is unchanged.
func Tree(v any) (masked any, secrets []string) {
	return tree(v, false, &secrets), secrets
}

// tree is Tree below a key that looks secret (secret) or not.
func tree(v any, secret bool, secrets *[]string) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = tree(e, secret || SecretName(k), secrets)
		}
		return out
	case map[any]any:
		out := make(map[any]any, len(x))
		for k, e := range x {
			ks, _ := k.(string)
			out[k] = tree(e, secret || SecretName(ks), secrets)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = tree(e, secret, secrets)
		}
		return out
	case string:
		if !secret {
			m, s := Text(x)
			*secrets = append(*secrets, s...)
			return m
		}
		if x == "" {
			return x
		}
		*secrets = append(*secrets, x)
		if scheme, tok, ok := strings.Cut(x, " "); ok && tok != "" && !strings.ContainsAny(tok, " \t") && envName(scheme) {
			*secrets = append(*secrets, tok)
			return scheme + " " + Mask
		}
		return Mask
	default: // a number, a boolean, null: not taken for a secret (masking "true" or
		// "1000" in every output would mangle them)
		return v
	}
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
	sort.Slice(spans, func(i, j int) bool {
		if spans[i].elem != spans[j].elem {
			return spans[i].elem < spans[j].elem
		}
		return spans[i].start < spans[j].start
	})
	next := map[int]int{}                  // per element: where the last replaced span starts
	for i := len(spans) - 1; i >= 0; i-- { // replace from the end, skipping overlaps
		s := spans[i]
		if n, ok := next[s.elem]; ok && s.end > n {
			continue
		}
		out[s.elem] = out[s.elem][:s.start] + Mask + out[s.elem][s.end:]
		next[s.elem] = s.start
	}
	return out
}

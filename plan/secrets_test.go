package plan

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// secretsYAML has a secret in each place the name rule alone misses: extra_body keys,
// the URL's password repeated as a bare argument, a Bearer header in a shell script,
// secret flags inside an env value, a password in a DSN env value, a SAS signature.
const secretsYAML = `
target:
  url: http://user:pw-url-1111@127.0.0.1:9/v1
  model: m
  metrics_urls: ["http://127.0.0.1:9/metrics?sv=1&sig=sig-2222"]
  extra_body:
    api_key: eb-key-3333
    ignore_eos: true
    headers: {authorization: "Bearer eb-bearer-4444"}
  launch:
    command: [sh, -c, "curl -H 'Authorization: Bearer sh-bearer-5555' x; exec srv pw-url-1111 --port 9"]
    env: ["VLLM_ARGS=--api-key env-arg-6666", "DATABASE_URL=postgres://u:db-pw-7777@h/db", "PORT=9"]
`

var planSecrets = []string{"pw-url-1111", "sig-2222", "eb-key-3333", "eb-bearer-4444", "sh-bearer-5555", "env-arg-6666", "db-pw-7777"}

// TestRedactedMasksEverySecretOfThePlan: Redacted leaves none of the secrets in the
// plan's JSON, keeps the rest, MaskedFields names each masked field, and the Redactor
// masks each of them in free text.
func TestRedactedMasksEverySecretOfThePlan(t *testing.T) {
	p, err := Load(writePlan(t, secretsYAML+okSegments+okLadder), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(p.Redacted())
	if err != nil {
		t.Fatal(err)
	}
	red := string(b)
	if again, _ := json.Marshal(p.Redacted().Redacted()); string(again) != red {
		t.Errorf("redacting a redacted plan changes it:\n%s\n%s", again, red)
	}
	for _, s := range planSecrets {
		if strings.Contains(red, s) {
			t.Errorf("Redacted holds %q: %s", s, red)
		}
		if got := p.Redactor().String("echo " + s); got != "echo REDACTED" {
			t.Errorf("Redactor misses %q: %s", s, got)
		}
	}
	for _, want := range []string{`"api_key":"REDACTED"`, `"ignore_eos":true`, `"authorization":"Bearer REDACTED"`,
		`exec srv REDACTED --port 9`, `Authorization: Bearer REDACTED'`, `VLLM_ARGS=--api-key REDACTED`,
		`postgres://u:REDACTED@h/db`, `sv=1\u0026sig=REDACTED`} {
		if !strings.Contains(red, want) {
			t.Errorf("Redacted lacks %s: %s", want, red)
		}
	}
	want := []string{"target.extra_body.api_key", "target.extra_body.headers.authorization", "target.launch.command[2]",
		"target.launch.env[0]", "target.launch.env[1]", "target.metrics_urls[0]", "target.url"}
	if got := p.MaskedFields(); !reflect.DeepEqual(got, want) {
		t.Errorf("MaskedFields = %q, want %q", got, want)
	}
	if got := p.Redacted().StillMasked(want); !reflect.DeepEqual(got, want) {
		t.Errorf("StillMasked of the redacted plan = %q", got)
	}
	if got := p.StillMasked(want); len(got) != 0 {
		t.Errorf("StillMasked of the real plan = %q", got)
	}
	if got := p.Redacted().StillMasked(nil); !reflect.DeepEqual(got, want) {
		t.Errorf("StillMasked(nil) of the redacted plan = %q", got)
	}
}

// TestInvalidURLMessageMasksItsPassword: a URL url.Parse rejects (a password with "#",
// "/", "?" or a space) is named masked, with the advice to percent-encode.
func TestInvalidURLMessageMasksItsPassword(t *testing.T) {
	for _, pw := range []string{"HASH#zq66", "SL/zq68", "Q?zq69", "sp ace zq70"} {
		_, err := Load(writePlan(t, okSegments+okLadder+"target: {model: m}\n"),
			map[string]any{"target.url": "http://u:" + pw + "@127.0.0.1:1/v1"})
		if err == nil {
			t.Fatalf("%s: no error", pw)
		}
		msg := err.Error()
		if strings.Contains(msg, pw) || strings.Contains(msg, "zq") || !strings.Contains(msg, "http://u:REDACTED@127.0.0.1:1/v1") ||
			!strings.Contains(msg, "percent-encode") || !strings.Contains(msg, "# as %23") {
			t.Errorf("%s: %s", pw, msg)
		}
	}
}

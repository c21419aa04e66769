package redact

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestArgvFindsFlagAndEnvWordSecrets(t *testing.T) {
	argv := []string{"env", "HF_TOKEN=hf-111", "vllm", "serve", "m", "--api-key", "sk-222", "--hf-token=hf-333",
		"--max-num-batched-tokens", "8192", "--tokenizer", "tok", "--port", "8000"}
	masked, secrets := Argv(argv)
	if want := []string{"hf-111", "sk-222", "hf-333"}; !reflect.DeepEqual(secrets, want) {
		t.Errorf("secrets = %q, want %q", secrets, want)
	}
	want := []string{"env", "HF_TOKEN=REDACTED", "vllm", "serve", "m", "--api-key", "REDACTED", "--hf-token=REDACTED",
		"--max-num-batched-tokens", "8192", "--tokenizer", "tok", "--port", "8000"}
	if !reflect.DeepEqual(masked, want) {
		t.Errorf("masked = %q", masked)
	}
	if argv[1] != "HF_TOKEN=hf-111" {
		t.Errorf("Argv changed its input: %q", argv)
	}
}

func TestArgvReadsAShellCommandWordByWord(t *testing.T) {
	masked, secrets := Argv([]string{"sh", "-c", `HF_TOKEN=abc123 exec vllm serve --password 'pw-9x' --port 1`})
	if !reflect.DeepEqual(secrets, []string{"abc123", "pw-9x"}) {
		t.Errorf("secrets = %q", secrets)
	}
	if masked[2] != `HF_TOKEN=REDACTED exec vllm serve --password 'REDACTED' --port 1` {
		t.Errorf("masked = %q", masked[2])
	}
	masked, secrets = Argv([]string{"sh", "-c", `curl -H 'Authorization: Bearer tok-abcdefgh' http://h; exec srv`})
	if !reflect.DeepEqual(secrets, []string{"tok-abcdefgh"}) || masked[2] != `curl -H 'Authorization: Bearer REDACTED' http://h; exec srv` {
		t.Errorf("bearer in a script: %q %q", masked, secrets)
	}
}

func TestURLMasksUserInfoAndSecretQuery(t *testing.T) {
	m, s := URL("http://bob:p%40ss-1@h:9/metrics?api_key=k-77&x=1")
	if m != "http://bob:REDACTED@h:9/metrics?api_key=REDACTED&x=1" {
		t.Errorf("masked = %s", m)
	}
	// decoded and written password, base64("bob:p@ss-1"), the query value
	if !reflect.DeepEqual(s, []string{"p@ss-1", "p%40ss-1", "Ym9iOnBAc3MtMQ==", "k-77"}) {
		t.Errorf("secrets = %q", s)
	}
	if m, s := URL("http://h:9/v1"); m != "http://h:9/v1" || len(s) != 0 {
		t.Errorf("plain URL: %s %q", m, s)
	}
}

func TestSecretName(t *testing.T) {
	for name, want := range map[string]bool{"--api-key": true, "HF_TOKEN": true, "apiKey": true, "access_token": true,
		"DB_PASSWORD": true, "Authorization": true, "--max-tokens": false, "--max-num-batched-tokens": false, "--tokenizer": false, "--ssl-keyfile": false, "PORT": false} {
		if SecretName(name) != want {
			t.Errorf("SecretName(%q) = %v", name, !want)
		}
	}
}

func TestRedactorMasksSecretsAndGenericShapes(t *testing.T) {
	r := New("sk-live-abcdef", "a\"b<c>de", "x") // "x" is too short to search for
	in := `key sk-live-abcdef; json "a\"b\u003cc\u003ede"; GET http://u:hunter22@h/x: Authorization: Bearer tok-123456789 x`
	got := r.String(in)
	want := `key REDACTED; json "REDACTED"; GET http://u:REDACTED@h/x: Authorization: Bearer REDACTED x`
	if got != want {
		t.Errorf("String =\n%s\nwant\n%s", got, want)
	}
	if b := []byte("nothing here"); &r.Bytes(b)[0] != &b[0] {
		t.Error("Bytes copied a line with nothing to mask")
	}
	var nilR *Redactor
	if nilR.String("http://u:pw@h") != "http://u:REDACTED@h" {
		t.Error("a nil Redactor does not mask URL passwords")
	}
	base := errors.New("dial sk-live-abcdef")
	if err := r.Error(base); err.Error() != "dial REDACTED" || !errors.Is(err, base) {
		t.Errorf("Error = %v", err)
	}
}

func TestHandlerRedactsMessagesAndAttrs(t *testing.T) {
	var buf bytes.Buffer
	h := NewHandler(slog.NewTextHandler(&buf, nil), nil)
	log := slog.New(h).With("url", "http://u:pw-1234@h")
	h.SetRedactor(New("sk-secret-1"))
	type cfg struct{ Key *string }
	k := "sk-secret-1"
	log.Info("using sk-secret-1", "err", errors.New("bad sk-secret-1"), "list", []string{"sk-secret-1"},
		"cfg", cfg{Key: &k}, slog.Group("g", "v", "sk-secret-1"), "n", 3)
	out := buf.String()
	if strings.Contains(out, "sk-secret") || strings.Contains(out, "pw-1234") || !strings.Contains(out, "n=3") {
		t.Errorf("log line: %s", out)
	}
}

func TestWriterRedactsLinesAcrossWrites(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf, New("sk-split-99"))
	for _, p := range []string{"a sk-sp", "lit-99 b\nc sk-split", "-99"} {
		if _, err := w.Write([]byte(p)); err != nil {
			t.Fatal(err)
		}
	}
	if buf.String() != "a REDACTED b\n" {
		t.Errorf("before Close: %q", buf.String())
	}
	w.Close()
	if buf.String() != "a REDACTED b\nc REDACTED" {
		t.Errorf("after Close: %q", buf.String())
	}
}

func TestRedactorMasksEveryJSONFormOfAnOddKey(t *testing.T) {
	const key = `sk-AB/CD<&>"KEYzq22`
	r := New(key)
	pyBody := `{"error": {"message": "bad auth Bearer sk-AB/CD<&>\"KEYzq22"}}` // json.dumps: no HTML escaping
	record, err := json.Marshal(map[string]string{"error": pyBody})            // Go: HTML-escaped, escaped twice
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range []string{key, "Bearer " + key, pyBody, string(record), `sk-AB\/CD<&>\"KEYzq22`,
		`sk-AB/CD\u003c\u0026\u003e\"KEYzq22`} {
		got := r.String(in)
		if strings.Contains(got, "KEYzq22") || strings.Contains(got, "sk-AB") || !strings.Contains(got, Mask) {
			t.Errorf("String(%s) = %s", in, got)
		}
	}
	if got := r.String(pyBody); got != `{"error": {"message": "bad auth Bearer REDACTED"}}` {
		t.Errorf("the exact key is masked before the generic Bearer shape: %s", got)
	}
}

func TestEnvFindsSecretsInOtherValues(t *testing.T) {
	masked, secrets := Env([]string{"HF_TOKEN=tok-1111", "VLLM_ARGS=--api-key envarg-2222 --port 8000",
		"DATABASE_URL=postgres://u:dbpw-3333@h/db", "PORT=8000"})
	want := []string{"HF_TOKEN=REDACTED", "VLLM_ARGS=--api-key REDACTED --port 8000",
		"DATABASE_URL=postgres://u:REDACTED@h/db", "PORT=8000"}
	if !reflect.DeepEqual(masked, want) {
		t.Errorf("masked = %q", masked)
	}
	for _, s := range []string{"tok-1111", "envarg-2222", "dbpw-3333"} {
		if !slices.Contains(secrets, s) {
			t.Errorf("secrets %q lack %q", secrets, s)
		}
	}
}

func TestURLMasksAPasswordURLParseRejects(t *testing.T) {
	for _, pw := range []string{"HASH#zq66", "SL/zq68", "Q?zq69", "sp ace zq70", "12/zq71"} {
		raw := "http://u:" + pw + "@127.0.0.1:1/v1"
		m, s := URL(raw)
		if m != "http://u:REDACTED@127.0.0.1:1/v1" || !slices.Contains(s, pw) {
			t.Errorf("URL(%q) = %q, %q", raw, m, s)
		}
	}
	if m, s := URL("http://TOK#zq72@h/v1"); m != "http://REDACTED@h/v1" || !slices.Contains(s, "TOK#zq72") {
		t.Errorf("token user info: %q %q", m, s)
	}
}

func TestURLMasksSignatureQueries(t *testing.T) {
	m, s := URL("https://h/m?sv=2022&sig=sig-111&code=code-222&X-Amz-Signature=amz-333&X-Amz-Credential=AKIA%2F444&n=1")
	if m != "https://h/m?sv=2022&sig=REDACTED&code=REDACTED&X-Amz-Signature=REDACTED&X-Amz-Credential=REDACTED&n=1" {
		t.Errorf("masked = %s", m)
	}
	if want := []string{"sig-111", "code-222", "amz-333", "AKIA%2F444", "AKIA/444"}; !reflect.DeepEqual(s, want) {
		t.Errorf("secrets = %q, want %q", s, want)
	}
}

func TestTreeMasksSecretKeysAndFreeText(t *testing.T) {
	in := map[string]any{"api_key": "eb-key-1111", "ignore_eos": true, "max_token": 1000,
		"headers":  map[string]any{"Authorization": "Bearer eb-bearer-2222", "X-Trace": "t"},
		"metadata": map[string]any{"note": "run with --hf-token eb-flag-3333", "tags": []any{"Bearer eb-free-4444", "a"}},
		"secrets":  []any{"eb-list-5555"}}
	masked, secrets := Tree(in)
	want := map[string]any{"api_key": Mask, "ignore_eos": true, "max_token": 1000,
		"headers":  map[string]any{"Authorization": "Bearer " + Mask, "X-Trace": "t"},
		"metadata": map[string]any{"note": "run with --hf-token " + Mask, "tags": []any{"Bearer " + Mask, "a"}},
		"secrets":  []any{Mask}}
	if !reflect.DeepEqual(masked, want) {
		t.Errorf("masked = %#v", masked)
	}
	for _, s := range []string{"eb-key-1111", "eb-bearer-2222", "Bearer eb-bearer-2222", "eb-flag-3333", "eb-free-4444", "eb-list-5555"} {
		if !slices.Contains(secrets, s) {
			t.Errorf("secrets %q lack %q", secrets, s)
		}
	}
	if in["api_key"] != "eb-key-1111" {
		t.Error("Tree changed its input")
	}
}

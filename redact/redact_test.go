package redact

import (
	"bytes"
	"errors"
	"log/slog"
	"reflect"
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
		"DB_PASSWORD": true, "--max-num-batched-tokens": false, "--tokenizer": false, "--ssl-keyfile": false, "PORT": false} {
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

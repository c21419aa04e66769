package main

import (
	"archive/zip"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// Unique secrets, one per place a secret can stand in a plan or come back from a server.
const (
	secretURLPass     = "sekrit-url-pass-7f3a"               // target.url's password
	secretMetricsPass = "sekrit-metrics-pass-2b9c"           // a metrics_urls password
	secretQueryToken  = "sekrit-query-token-5d1e"            // a metrics_urls ?access_token=
	secretCmdKey      = "sekrit-cmd-apikey-8a4f"             // launch.command: --api-key X
	secretCmdFlag     = "sekrit-cmd-hftoken-3c7b"            // launch.command: --hf-token=X
	secretCmdEnvWord  = "sekrit-cmd-envword-6e2d"            // launch.command: HF_TOKEN=X in a shell script
	secretLaunchEnv   = "sekrit-launch-env-9f1a"             // launch.env: HF_TOKEN=X
	secretAPIKey      = `sekrit-api/key<&>"` + secretKeyTail // target.api_key_env's value (JSON- and HTML-escaped when echoed)
	secretKeyTail     = "sekrit-key-tail-4b8e"               // what a half-masked key leaves
	secretDownPass    = "sekrit-down-pass-1c5f"              // the password of a target that is down
	secretBodyKey     = "sekrit-body-apikey-7d3c"            // extra_body: {api_key: X}
	secretBodyBearer  = "sekrit-body-bearer-2e8a"            // extra_body: {headers: {authorization: Bearer X}}
	secretEnvArgs     = "sekrit-env-args-5b1d"               // launch.env: VLLM_ARGS=--api-key X
	secretDSNPass     = "sekrit-dsn-pass-9a4c"               // launch.env: DATABASE_URL=postgres://u:X@h/db
	secretSASSig      = "sekrit-sas-sig-3f6e"                // a metrics_urls &sig=
)

// authServer is an OpenAI-compatible target on 127.0.0.1 that answers only requests
// with the right credentials: Basic alice:secretURLPass (or, with apiKey set, Bearer
// apiKey) on /v1, Basic mon:secretMetricsPass on /metrics. Every 5th load request fails
// with a body echoing the Authorization header and the password it decodes; with
// echoProbe every chat request fails so (the preflight probe echoes the key back).
type authServer struct {
	apiKey    string
	echoProbe bool
	// unauthorised counts requests without the right credentials; userInfoInLine
	// counts request lines that carried a password.
	unauthorised, userInfoInLine, chats, scrapes atomic.Int64
}

func (s *authServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.Contains(r.RequestURI, "@") || strings.Contains(r.RequestURI, "pass") {
		s.userInfoInLine.Add(1)
	}
	want := "Basic " + base64.StdEncoding.EncodeToString([]byte("alice:"+secretURLPass))
	switch {
	case r.URL.Path == "/metrics":
		want = "Basic " + base64.StdEncoding.EncodeToString([]byte("mon:"+secretMetricsPass))
	case s.apiKey != "":
		want = "Bearer " + s.apiKey
	}
	auth := r.Header.Get("Authorization")
	if auth != want {
		s.unauthorised.Add(1)
		http.Error(w, `{"error":{"message":"unauthorised"}}`, http.StatusUnauthorized)
		return
	}
	_, pass, _ := r.BasicAuth()
	switch r.URL.Path {
	case "/metrics":
		s.scrapes.Add(1)
		fmt.Fprint(w, "# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running 1\n")
	case "/v1/models":
		fmt.Fprint(w, `{"object":"list","data":[{"id":"m","object":"model"}]}`)
	case "/v1/chat/completions":
		n := s.chats.Add(1)
		if s.echoProbe || n%5 == 0 {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			enc := json.NewEncoder(w) // like Python's json.dumps: '"' escaped, '<&>' not
			enc.SetEscapeHTML(false)
			enc.Encode(map[string]any{"error": map[string]string{ //nolint:errcheck // the client sees what arrives
				"message": fmt.Sprintf("bad request from %s (password %s, key %s)", auth, pass, s.apiKey),
				"type":    "invalid_request_error"}})
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fl := w.(http.Flusher)
		for _, tok := range []string{"a", "b", "c"} {
			fmt.Fprintf(w, "data: {\"id\":\"x\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":%q},\"finish_reason\":null}]}\n\n", tok)
			fl.Flush()
		}
		fmt.Fprint(w, "data: {\"id\":\"x\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"length\"}],\"usage\":{\"prompt_tokens\":8,\"completion_tokens\":3}}\n\ndata: [DONE]\n\n")
	default:
		http.NotFound(w, r)
	}
}

// secretsPlan writes a plan for a run against hostPort with every secret in place: the
// URL's password, a metrics endpoint's password and token, a launched command (a shell
// that prints its arguments and environment, then sleeps) with secrets in its flags, a
// KEY=VALUE word of its script and its environment.
func secretsPlan(t *testing.T, hostPort string) string {
	t.Helper()
	yaml := fmt.Sprintf(`
name: secrets
target:
  url: http://alice:%[2]s@%[1]s/v1
  model: m
  metrics_urls: ['http://mon:%[3]s@%[1]s/metrics?access_token=%[4]s&sig=%[13]s']
  metrics_interval: 200ms
  extra_body: {api_key: %[9]s, headers: {authorization: 'Bearer %[10]s'}}
  launch:
    command: [sh, -c, 'echo "server args: $* env: $HF_TOKEN $VLLM_ARGS $DATABASE_URL"; HF_TOKEN=%[7]s exec sleep 300', sh, --api-key, %[5]s, --hf-token=%[6]s, %[2]s]
    env: [HF_TOKEN=%[8]s, PORT=1, 'VLLM_ARGS=--api-key %[11]s', 'DATABASE_URL=postgres://u:%[12]s@h/db']
    ready_timeout: 20s
segments:
  - {name: chat, weight: 1, prompt_tokens: {dist: fixed, value: 8}, output_tokens: {dist: fixed, value: 3}}
ladder: {concurrency: [1, 2], duration: 1s, grace: 200ms}
sla: {ttft_ms: {p95: 500}}
`, hostPort, secretURLPass, secretMetricsPass, secretQueryToken, secretCmdKey, secretCmdFlag, secretCmdEnvWord, secretLaunchEnv,
		secretBodyKey, secretBodyBearer, secretEnvArgs, secretDSNPass, secretSASSig)
	p := filepath.Join(t.TempDir(), "secrets.yaml")
	if err := os.WriteFile(p, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// allSecrets are the secrets and the forms a server sees them in (Basic credentials).
func allSecrets() []string {
	return []string{secretURLPass, secretMetricsPass, secretQueryToken, secretCmdKey, secretCmdFlag, secretCmdEnvWord,
		secretLaunchEnv, secretAPIKey, secretDownPass, secretBodyKey, secretBodyBearer, secretEnvArgs, secretDSNPass, secretSASSig,
		secretKeyTail,
		base64.StdEncoding.EncodeToString([]byte("alice:" + secretURLPass)),
		base64.StdEncoding.EncodeToString([]byte("mon:" + secretMetricsPass))}
}

// assertNoSecret fails when text (named what) holds any secret.
func assertNoSecret(t *testing.T, what, text string) {
	t.Helper()
	for _, s := range allSecrets() {
		if i := strings.Index(text, s); i >= 0 {
			t.Errorf("%s holds the secret %q: …%s…", what, s, text[max(0, i-120):min(len(text), i+len(s)+40)])
		}
	}
}

// assertRunDirClean greps every file under dir, the unzipped XLSX's files and the PDF's
// text (pdftotext; skipped, saying so, where it is not installed).
func assertRunDirClean(t *testing.T, dir string) {
	t.Helper()
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return // nothing written (a failed preflight leaves no run directory)
	}
	n := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		n++
		assertNoSecret(t, path, string(b))
		switch filepath.Ext(path) {
		case ".xlsx":
			assertXLSXClean(t, path)
		case ".pdf":
			if _, err := exec.LookPath("pdftotext"); err != nil {
				t.Logf("pdftotext is not installed: the text of %s is not checked", path)
				return nil
			}
			out, err := exec.Command("pdftotext", path, "-").Output()
			if err != nil {
				t.Errorf("pdftotext %s: %v", path, err)
			}
			assertNoSecret(t, path+" (pdftotext)", string(out))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatalf("no files in %s", dir)
	}
}

// assertXLSXClean greps every file of the workbook's zip.
func assertXLSXClean(t *testing.T, path string) {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatalf("unzip %s: %v", path, err)
	}
	defer zr.Close()
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		assertNoSecret(t, path+":"+f.Name, string(b))
	}
}

// TestSecretsStayOutOfEveryOutput runs `llmcap run --log-level debug` against a target
// that needs the credentials of its URL on every request, scrapes metrics behind Basic
// auth, launches a command with secrets in its flags and environment, and echoes
// credentials back in error bodies; then `plan`, a run whose preflight probe echoes the
// API key, and a run against a target that is down. No secret may appear in any file of
// the run directories (the PDF's text and the unzipped workbook included) or in the
// console output, and every load request must have been authorised.
func TestSecretsStayOutOfEveryOutput(t *testing.T) {
	s := &authServer{}
	srv := httptest.NewServer(s)
	defer srv.Close()
	cfg := secretsPlan(t, srv.Listener.Addr().String())

	dir := filepath.Join(t.TempDir(), "run")
	r := llmcap(t, nil, "run", "-c", cfg, "-o", dir, "--log-level", "debug")
	if r.code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	assertNoSecret(t, "run's console output", r.stdout+r.stderr)
	assertRunDirClean(t, dir)
	if n := s.unauthorised.Load(); n != 0 {
		t.Errorf("%d requests lacked the URL's or the metrics URL's credentials", n)
	}
	if n := s.userInfoInLine.Load(); n != 0 {
		t.Errorf("%d request lines carried user info", n)
	}
	if s.chats.Load() < 10 || s.scrapes.Load() < 2 {
		t.Errorf("%d chat requests and %d scrapes, want load and scrapes to have happened", s.chats.Load(), s.scrapes.Load())
	}
	// The masks stand where the secrets were: the echoed errors, the launched
	// server's printed arguments, the plan copy, the metrics URL.
	for file, want := range map[string]string{"records.jsonl": "password REDACTED", "server.log": "--api-key REDACTED",
		"run.json": "HF_TOKEN=REDACTED", "server-metrics.jsonl": "mon:REDACTED@"} {
		if b, _ := os.ReadFile(filepath.Join(dir, file)); !strings.Contains(string(b), want) {
			t.Errorf("%s lacks %q:\n%.2000s", file, want, b)
		}
	}

	for _, asJSON := range []bool{false, true} {
		args := []string{"plan", "-c", cfg, "--log-level", "debug"}
		if asJSON {
			args = append(args, "--json")
		}
		r := llmcap(t, nil, args...)
		// The text lists the target URL, the JSON the whole plan: both with masks.
		if r.code != 0 || !strings.Contains(r.stdout, "alice:REDACTED@") || asJSON && !strings.Contains(r.stdout, "--api-key") {
			t.Errorf("%v: exit %d\n%s\n%s", args, r.code, r.stdout, r.stderr)
		}
		assertNoSecret(t, fmt.Sprintf("plan (json %v) output", asJSON), r.stdout+r.stderr)
	}

	t.Run("preflight echoes the key", func(t *testing.T) {
		s := &authServer{apiKey: secretAPIKey, echoProbe: true}
		srv := httptest.NewServer(s)
		defer srv.Close()
		dir := filepath.Join(t.TempDir(), "run")
		r := llmcap(t, []string{"LLMCAP_SECRET_TEST_KEY=" + secretAPIKey}, "run", "-c", tinyPlan(t), "-o", dir,
			"--log-level", "debug", "--set", "target.url=http://alice:"+secretURLPass+"@"+srv.Listener.Addr().String()+"/v1",
			"--set", "target.model=m", "--set", "target.api_key_env=LLMCAP_SECRET_TEST_KEY")
		if r.code == 0 || !strings.Contains(r.stderr, "probe request") || !strings.Contains(r.stderr, "key REDACTED") {
			t.Fatalf("run: exit %d, want a failed probe with the echoed key masked\n%s", r.code, r.stderr)
		}
		if s.unauthorised.Load() != 0 {
			t.Errorf("%d requests lacked the API key", s.unauthorised.Load())
		}
		assertNoSecret(t, "console output", r.stdout+r.stderr)
		assertRunDirClean(t, dir)
	})

	t.Run("odd API key echoed under load", func(t *testing.T) {
		s := &authServer{apiKey: secretAPIKey}
		srv := httptest.NewServer(s)
		defer srv.Close()
		dir := filepath.Join(t.TempDir(), "run")
		r := llmcap(t, []string{"LLMCAP_SECRET_TEST_KEY=" + secretAPIKey}, "run", "-c", tinyPlan(t), "-o", dir,
			"--log-level", "debug", "--set", "target.url=http://"+srv.Listener.Addr().String()+"/v1",
			"--set", "target.model=m", "--set", "target.api_key_env=LLMCAP_SECRET_TEST_KEY",
			"--set", "report.formats=[pdf,xlsx,json,md,csv]", "--set", "sla.max_error_rate=1")
		if r.code != 0 {
			t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
		}
		if s.unauthorised.Load() != 0 || s.chats.Load() < 10 {
			t.Errorf("%d requests lacked the API key, %d chats", s.unauthorised.Load(), s.chats.Load())
		}
		if b, _ := os.ReadFile(filepath.Join(dir, "records.jsonl")); !strings.Contains(string(b), "from Bearer REDACTED (password , key REDACTED)") {
			t.Errorf("records.jsonl lacks the masked echo:\n%.3000s", b)
		}
		assertNoSecret(t, "console output", r.stdout+r.stderr)
		assertRunDirClean(t, dir)
	})

	t.Run("target down", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		dir := filepath.Join(t.TempDir(), "run")
		r := llmcap(t, nil, "run", "-c", tinyPlan(t), "-o", dir, "--log-level", "debug",
			"--set", "target.url=http://alice:"+secretDownPass+"@"+addr+"/v1", "--set", "target.model=m")
		if want := "cannot reach target http://alice:REDACTED@" + addr + "/v1"; r.code == 0 || !strings.Contains(r.stderr, want) {
			t.Fatalf("run: exit %d, want %q\n%s", r.code, want, r.stderr)
		}
		assertNoSecret(t, "console output", r.stdout+r.stderr)
		assertRunDirClean(t, dir)
	})
}

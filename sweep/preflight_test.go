package sweep

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmcap/llmcap/rundir"
)

// badServer is a real loopback server whose /v1/models and completions answers are
// given by the test.
func badServer(t *testing.T, models, complete http.HandlerFunc) string {
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/models", models)
	mux.HandleFunc("/v1/chat/completions", complete)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

func listModels(w http.ResponseWriter, _ *http.Request) {
	fmt.Fprint(w, `{"object":"list","data":[{"id":"m","object":"model"}]}`)
}

func mustNotComplete(t *testing.T) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		t.Error("a completion request was sent after a failed preflight")
	}
}

// runFails runs the plan against url and returns the error and the run directory.
func runFails(t *testing.T, url, model string) (error, string) {
	t.Helper()
	p := rtPlan(url)
	p.Target.Model = model
	dir := filepath.Join(t.TempDir(), "run")
	err := Run(context.Background(), p, Options{OutDir: dir})
	return err, dir
}

func TestPreflightConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String() + "/v1"
	ln.Close()
	err, dir := runFails(t, url, "m")
	var pe *PreflightError
	if !errors.As(err, &pe) || err.Error() != "cannot reach target "+url+": connection refused" {
		t.Fatalf("err = %v, want a PreflightError: cannot reach target …: connection refused", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed preflight left its run directory %s behind (stat: %v)", dir, err)
	}
}

// TestFailedPreflightKeepsWhatItDidNotWrite: a failed preflight removes only what the
// sweep wrote: a directory the user made stays (empty), its parents stay, and a
// directory holding another file keeps it and run.json (state failed, with the reason).
func TestFailedPreflightKeepsWhatItDidNotWrite(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String() + "/v1"
	ln.Close()
	p := rtPlan(url)
	p.Target.Model = "m"

	parent := t.TempDir()
	nested := filepath.Join(parent, "runs", "a", "b")
	if err := Run(context.Background(), p, Options{OutDir: nested}); err == nil {
		t.Fatal("Run succeeded against a closed port")
	}
	if entries, err := os.ReadDir(parent); err != nil || len(entries) != 0 {
		t.Errorf("parent holds %v (%v), want the created runs/a/b removed", entries, err)
	}

	mine := t.TempDir()
	if err := Run(context.Background(), p, Options{OutDir: mine}); err == nil {
		t.Fatal("Run succeeded against a closed port")
	}
	if entries, err := os.ReadDir(mine); err != nil || len(entries) != 0 {
		t.Errorf("the user's directory: %v, %v; want it kept and empty", entries, err)
	}

	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "notes.txt"), []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Run(context.Background(), p, Options{OutDir: other}); err == nil {
		t.Fatal("Run succeeded against a closed port")
	}
	_, _, meta := rtReadMeta(t, other)
	if meta.State != rundir.StateFailed || !strings.Contains(meta.Error, "connection refused") {
		t.Errorf("run.json state %q error %q, want failed with the reason", meta.State, meta.Error)
	}
	if entries, _ := os.ReadDir(other); len(entries) != 2 {
		t.Errorf("directory with a file of the user's holds %v, want notes.txt and run.json", entries)
	}
}

func rtReadMeta(t *testing.T, dir string) (string, string, rundir.RunMeta) {
	t.Helper()
	var meta rundir.RunMeta
	b, err := os.ReadFile(filepath.Join(dir, rundir.FileRun))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &meta); err != nil {
		t.Fatal(err)
	}
	return dir, "", meta
}

func TestPreflightModelNotServed(t *testing.T) {
	url := badServer(t, listModels, mustNotComplete(t))
	err, _ := runFails(t, url, "other")
	want := `target.model "other" is not served by ` + url + ` (it serves: m)`
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %s", err, want)
	}
}

func TestPreflightProbeErrorQuotesServer(t *testing.T) {
	url := badServer(t, http.NotFound, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"error":{"message":"The model 'm' does not exist.","type":"NotFoundError","code":404}}`)
	})
	err, _ := runFails(t, url, "m")
	if err == nil || !strings.Contains(err.Error(), "HTTP 404 (http_4xx): The model 'm' does not exist. [NotFoundError]") {
		t.Fatalf("err = %v, want the server's message and class", err)
	}
}

func TestPreflightInBandStreamError(t *testing.T) {
	url := badServer(t, listModels, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"error\":{\"message\":\"engine overloaded\",\"type\":\"server_error\"}}\n\n")
	})
	err, _ := runFails(t, url, "m")
	if err == nil || !strings.Contains(err.Error(), "engine overloaded [server_error]") {
		t.Fatalf("err = %v, want the in-band error quoted", err)
	}
}

func TestPreflightNonStreamingWarns(t *testing.T) {
	url := badServer(t, http.NotFound, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"a b c d"},"finish_reason":"length"}],"usage":{"prompt_tokens":10,"completion_tokens":4}}`)
	})
	p := rtPlan(url)
	p.Target.Model = "m"
	p.Ladder.Requests = 4
	dir := filepath.Join(t.TempDir(), "run")
	if err := Run(context.Background(), p, Options{OutDir: dir}); err != nil {
		t.Fatalf("Run: %v (a non-streaming server only warns)", err)
	}
	_, _, meta := rtReadMeta(t, dir)
	if len(meta.Warnings) != 1 || meta.Warnings[0].Kind != rundir.WarnNotStreaming || meta.Warnings[0].Message != WarnNotStreaming ||
		meta.Warnings[0].Step != rundir.RunWide {
		t.Errorf("run.json warnings = %+v, want one %s warning: %q", meta.Warnings, rundir.WarnNotStreaming, WarnNotStreaming)
	}
	if meta.State != rundir.StateComplete {
		t.Errorf("state %q", meta.State)
	}
}

func TestFDLimitTooLowFails(t *testing.T) {
	soft, hard, err := getNoFile()
	if err != nil {
		t.Skip("no RLIMIT_NOFILE here")
	}
	if need := int(hard) + 1; hard < 1<<30 {
		err := ensureFDs(need, "the ladder's concurrency")
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("ulimit -n %d", need)) {
			t.Errorf("ensureFDs(%d) = %v, want an error naming ulimit -n %d", need, err, need)
		}
	}
	if err := ensureFDs(int(soft), "the ladder's concurrency"); err != nil {
		t.Errorf("ensureFDs(soft limit %d) = %v", soft, err)
	}
}

func TestFDLimitRaisesSoftLimit(t *testing.T) {
	soft, hard, err := getNoFile()
	if err != nil || soft >= hard {
		t.Skip("soft limit already at the hard limit")
	}
	defer setNoFile(soft, hard)
	if err := ensureFDs(int(soft)+1, "the ladder's concurrency"); err != nil {
		t.Fatalf("ensureFDs: %v", err)
	}
	if now, _, _ := getNoFile(); now <= soft {
		t.Errorf("soft limit %d not raised above %d", now, soft)
	}
}

func TestPreflightRejectedKeyAndSilentServer(t *testing.T) {
	url := badServer(t, func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, `{"error":{"message":"invalid api key","type":"auth_error"}}`)
	}, mustNotComplete(t))
	if err, _ := runFails(t, url, "m"); err == nil || !strings.Contains(err.Error(), "rejected the API key") ||
		!strings.Contains(err.Error(), "HTTP 401: invalid api key [auth_error]") {
		t.Errorf("401: err = %v", err)
	}
	release := make(chan struct{})
	defer close(release)
	url = badServer(t, listModels, func(w http.ResponseWriter, r *http.Request) {
		select { // answer nothing until the client gives up
		case <-r.Context().Done():
		case <-release:
		}
	})
	p := rtPlan(url)
	p.Target.Model = "m"
	p.Target.RequestTimeout = 200 * time.Millisecond
	err := Run(context.Background(), p, Options{OutDir: filepath.Join(t.TempDir(), "r")})
	if err == nil || !strings.Contains(err.Error(), "got no answer within 200ms") {
		t.Errorf("silent server: err = %v", err)
	}
}

func TestServesModelTagsAndLlamaCpp(t *testing.T) {
	if !servesModel([]string{"stories:latest"}, "stories") || !servesModel([]string{"stories"}, "stories:latest") ||
		servesModel([]string{"stories:16k"}, "stories") {
		t.Error("servesModel: the :latest tag is implied, other tags are not")
	}
	// llama-server lists its file name but answers any model name: warn, go on.
	url := badServer(t, func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `{"object":"list","data":[{"id":"model.gguf","object":"model","owned_by":"llamacpp"}]}`)
	}, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\ndata: [DONE]\n\n")
	})
	if _, _, err := preflight(context.Background(), rtPlan(url).Target, url, UserAgent(""), slog.New(slog.DiscardHandler)); err != nil {
		t.Errorf("llama.cpp-style server: %v", err)
	}
}

// TestPreflightProbeEndsAtDone: a server that keeps the stream open after data: [DONE]
// must not stall the probe until request_timeout; it ends at [DONE] like the client.
func TestPreflightProbeEndsAtDone(t *testing.T) {
	hold := make(chan struct{})
	url := badServer(t, listModels, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\ndata: [DONE]\n\n")
		w.(http.Flusher).Flush()
		select {
		case <-hold:
		case <-r.Context().Done():
		}
	})
	defer close(hold)
	p := rtPlan(url)
	p.Target.Model = "m"
	p.Target.RequestTimeout = time.Minute
	type result struct {
		streams bool
		err     error
	}
	got := make(chan result, 1)
	go func() {
		s, err := preflightProbe(context.Background(), preflightClient(p.Target), p.Target, url, UserAgent(""))
		got <- result{s, err}
	}()
	select {
	case r := <-got:
		if !r.streams || r.err != nil {
			t.Errorf("probe = streams %v, err %v; want a stream and no error", r.streams, r.err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the probe still reads a stream the server holds open after [DONE] (it waits for request_timeout)")
	}
}

package main

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestInterruptDuringPreflight: a Ctrl-C while the preflight probe waits on the target
// says nothing was measured, not that completed steps are saved.
func TestInterruptDuringPreflight(t *testing.T) {
	probed := make(chan struct{}, 1)
	hold := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/models", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `{"object":"list","data":[{"id":"m","object":"model"}]}`)
	})
	mux.HandleFunc("/v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		select {
		case probed <- struct{}{}:
		default:
		}
		select { // never answers: the probe waits
		case <-hold:
		case <-r.Context().Done():
		}
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	defer close(hold)
	dir := filepath.Join(t.TempDir(), "run")
	cmd := exec.Command(bin, "sweep", "-c", tinyPlan(t), "-o", dir,
		"--set", "target.url="+srv.URL+"/v1", "--set", "target.model=m")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-probed:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("no probe request arrived:\n%s", errb.String())
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("interrupted preflight: %v, want exit 130\n%s", err, errb.String())
	}
	s := errb.String()
	if !strings.Contains(s, "preflight: probing the target") || !strings.Contains(s, "nothing was measured") ||
		strings.Contains(s, "completed steps are saved") {
		t.Errorf("stderr after a Ctrl-C during preflight:\n%s", s)
	}
}

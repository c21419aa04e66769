package sweep

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"regexp"
	"testing"
	"time"
)

// TestStepDoneLineLogged: without a terminal, every finished step logs one line with
// its segment, load, requests, errors and TTFT percentiles.
func TestStepDoneLineLogged(t *testing.T) {
	srv := newRTServer(t, 2*time.Millisecond, time.Millisecond)
	p := rtPlan(srv.url())
	p.Ladder.Concurrency = []int{1, 2}
	p.Ladder.Requests = 6
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	if err := Run(context.Background(), p, Options{OutDir: filepath.Join(t.TempDir(), "r"), Logger: log, Progress: &buf}); err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`msg="step (\d)/2 done" segment=short concurrency=(\d) requests=6 errors=0 ttft_p50_ms=\d+ ttft_p95_ms=\d+ elapsed=\S+ eta=\S+`)
	m := re.FindAllStringSubmatch(buf.String(), -1)
	if len(m) != 2 || m[0][1] != "1" || m[0][2] != "1" || m[1][1] != "2" || m[1][2] != "2" {
		t.Fatalf("step lines = %q in log:\n%s", m, buf.String())
	}
}

package sweep

import (
	"bytes"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llmcap/llmcap/internal/testlock"

	"github.com/llmcap/llmcap/rundir"
)

// TestScrapeLimits: a /metrics with a 256 MiB label value and one with 3 million
// samples are dropped (no sample written) with one warning each, however often they
// are scraped, while the heap in use grows by less than 96 MiB (about 50 MiB for 100,000
// parsed samples, 66 MiB for a 16 MiB line; before the limits, gigabytes); a normal endpoint
// scraped alongside is written every time.
func TestScrapeLimits(t *testing.T) {
	testlock.Hold(t) // timing-critical: not beside the other packages' heavy tests
	mux := http.NewServeMux()
	mux.HandleFunc("/huge", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`m{a="`))
		pad := bytes.Repeat([]byte("a"), 64<<10)
		for range 4096 { // 256 MiB
			if _, err := w.Write(pad); err != nil {
				return
			}
		}
		_, _ = w.Write([]byte("\"} 1\n"))
	})
	mux.HandleFunc("/many", func(w http.ResponseWriter, _ *http.Request) {
		var b bytes.Buffer
		for i := range 3_000_000 {
			fmt.Fprintf(&b, "m{i=\"%d\"} 1\n", i)
			if b.Len() > 32<<10 {
				if _, err := w.Write(b.Bytes()); err != nil {
					return
				}
				b.Reset()
			}
		}
		_, _ = w.Write(b.Bytes())
	})
	var okScrapes atomic.Int64
	mux.HandleFunc("/ok", func(w http.ResponseWriter, _ *http.Request) {
		okScrapes.Add(1)
		_, _ = w.Write([]byte("# TYPE up gauge\nup 1\n"))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	dir := t.TempDir()
	out, err := rundir.OpenWriter(dir)
	if err != nil {
		t.Fatal(err)
	}
	var logs syncBuffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	stop := make(chan struct{})
	peak := heapPeak(stop)
	sc := newScraper([]string{srv.URL + "/huge", srv.URL + "/many", srv.URL + "/ok"}, 100*time.Millisecond, out, log)
	// Each round reads the two hostile endpoints to their limits before /ok; under the
	// race detector on a loaded machine a round takes seconds, and the 16 MiB read alone
	// can pass the default 5 s timeout. The test is of the limits: the timeout is long,
	// and the scrapes run until both warnings are out and /ok has been read twice.
	sc.client.Timeout = 2 * time.Minute
	sc.start()
	for end := time.Now().Add(3 * time.Minute); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		text := logs.String()
		if okScrapes.Load() >= 2 && strings.Contains(text, "/huge") && strings.Contains(text, "/many") {
			break
		}
	}
	sc.stop()
	close(stop)
	growth := int64(<-peak) - int64(before.HeapInuse)
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	samples, _, err := rundir.ReadMetrics(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range samples {
		if !strings.HasSuffix(s.URL, "/ok") || s.Values["up"] != 1 {
			t.Errorf("sample of %s with %d values written, want only /ok's", s.URL, len(s.Values))
		}
	}
	if len(samples) < 2 {
		t.Errorf("%d samples of /ok, want ≥ 2", len(samples))
	}
	text := logs.String()
	for _, want := range []string{"/huge", "/many"} {
		if n := strings.Count(text, "url="+srv.URL+want); n != 1 {
			t.Errorf("%d warnings naming %s, want 1:\n%s", n, want, text)
		}
	}
	if !strings.Contains(text, "body passed 16777216 bytes") || !strings.Contains(text, "more than 100000 samples") {
		t.Errorf("warnings do not name the limits:\n%s", text)
	}
	t.Logf("heap peak +%.1f MiB", float64(growth)/(1<<20))
	if growth > 96<<20 {
		t.Errorf("heap in use grew by %.1f MiB during the scrapes, want < 96 MiB", float64(growth)/(1<<20))
	}
}

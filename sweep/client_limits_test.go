package sweep

import (
	"context"
	"fmt"
	"hash/fnv"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/llmcap/llmcap/rundir"
	"github.com/llmcap/llmcap/sweep/ssetest"
)

// heapPeak samples the heap in use every 10 ms until stop is closed and returns the
// peak.
func heapPeak(stop <-chan struct{}) <-chan uint64 {
	out := make(chan uint64, 1)
	go func() {
		var peak uint64
		var ms runtime.MemStats
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		for {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
			select {
			case <-stop:
				out <- peak
				return
			case <-t.C:
			}
		}
	}()
	return out
}

// TestClientNeverEndingStreamBounded: 8 concurrent streams that never end, for 1.5 s
// on each path, with an 8 MiB response limit: every request ends response_too_large,
// the heap in use never grows by more than 24 MiB over its start (before the fix, the
// answers' text alone grew by the whole body of every stream), and the client
// allocates less than 1 byte per 20 bytes received.
func TestClientNeverEndingStreamBounded(t *testing.T) {
	const limit = 8 << 20
	piece := ssetest.Events(chatContent(strings.Repeat("tok ", 256)))
	bothPaths(t, func(t *testing.T) {
		srv, err := ssetest.NewScripts(ssetest.Script{Steps: []ssetest.Step{{Data: ssetest.Events(chatRole())}}, Forever: piece})
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		c := NewClient(ClientConfig{BaseURL: srv.URL, MaxResponseBytes: limit})
		defer c.CloseIdleConnections()
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		stop := make(chan struct{})
		peak := heapPeak(stop)
		var wrong, n atomic.Int64
		var firstWrong atomic.Value
		deadline := time.Now().Add(1500 * time.Millisecond)
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for time.Now().Before(deadline) {
					var rec rundir.Record
					answer := c.Do(context.Background(), &Request{}, &rec)
					n.Add(1)
					if rec.ErrorClass != rundir.ErrResponseTooLarge || len(answer) != AnswerPrefixBytes ||
						!strings.Contains(rec.Error, "8388608-byte limit") {
						wrong.Add(1)
						firstWrong.CompareAndSwap(nil, fmt.Sprintf("%s %q answer %d bytes", rec.ErrorClass, rec.Error, len(answer)))
					}
				}
			}()
		}
		wg.Wait()
		close(stop)
		p := <-peak
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		if wrong.Load() > 0 {
			t.Fatalf("%d of %d requests not response_too_large with a %d-byte prefix: %v", wrong.Load(), n.Load(),
				AnswerPrefixBytes, firstWrong.Load())
		}
		received := uint64(n.Load()) * limit
		alloc := after.TotalAlloc - before.TotalAlloc
		growth := int64(p) - int64(before.HeapInuse)
		t.Logf("%d requests, %d MiB received; heap peak +%.1f MiB; %.4f bytes allocated per byte received (server included)",
			n.Load(), received>>20, float64(growth)/(1<<20), float64(alloc)/float64(received))
		if growth > 24<<20 {
			t.Errorf("heap in use grew by %.1f MiB, want ≤ 24 MiB", float64(growth)/(1<<20))
		}
		// The race detector's instrumentation allocates on its own (about 2× here).
		bound := received / 20
		if raceEnabled {
			bound = received / 5
		}
		if alloc > bound {
			t.Errorf("%d bytes allocated for %d received, want < %d", alloc, received, bound)
		}
	})
}

// TestClientResponseTooLarge: a stream, one SSE event, and a non-streamed JSON answer
// larger than the limit each end response_too_large; the same answers under the limit
// are ok.
func TestClientResponseTooLarge(t *testing.T) {
	text := strings.Repeat("x", 3000)
	stream := ssetest.Events(chatContent(text), chatContent(text), chatFinish("stop"), "[DONE]")
	event := ssetest.Events(chatContent(text+text), chatFinish("stop"), "[DONE]")
	json := `{"choices":[{"message":{"content":"` + text + text + `"},"finish_reason":"stop"}]}`
	cases := []struct {
		name   string
		script ssetest.Script
	}{
		{"stream", ssetest.Script{Steps: ssetest.Split(stream, 100, 0, 0)}},
		{"event", ssetest.Script{Steps: ssetest.Split(event, 100, 0, 0)}},
		{"json", ssetest.Script{ContentType: "application/json", Steps: []ssetest.Step{{Data: []byte(json)}}}},
	}
	bothPaths(t, func(t *testing.T) {
		for _, tc := range cases {
			srv, err := ssetest.NewScripts(tc.script)
			if err != nil {
				t.Fatal(err)
			}
			for _, limit := range []int64{5000, 7000} {
				c := NewClient(ClientConfig{BaseURL: srv.URL, MaxResponseBytes: limit})
				var rec rundir.Record
				c.Do(context.Background(), &Request{}, &rec)
				c.CloseIdleConnections()
				if limit == 5000 && rec.ErrorClass != rundir.ErrResponseTooLarge {
					t.Errorf("%s over a %d-byte limit: class %q (%s), want response_too_large", tc.name, limit, rec.ErrorClass, rec.Error)
				}
				if limit == 7000 && !rec.OK() {
					t.Errorf("%s under a %d-byte limit: class %q (%s), want ok", tc.name, limit, rec.ErrorClass, rec.Error)
				}
			}
			srv.Close()
		}
	})
}

// TestClientOutputHashChunking: the output hash is the same for the same text however
// it is split into events and reads (escaped or not), differs for another text, and
// Do without KeepAnswer returns the text's first AnswerPrefixBytes bytes.
func TestClientOutputHashChunking(t *testing.T) {
	long := strings.Repeat("héllo wörld ", 1000)
	split := func(text string, cuts ...int) []byte {
		var evs []string
		prev := 0
		for _, c := range append(cuts, len(text)) {
			for c < len(text) && !utf8.RuneStart(text[c]) {
				c++ // json.Marshal would replace a split character
			}
			evs = append(evs, chatContent(text[prev:c]))
			prev = c
		}
		return ssetest.Events(append(evs, chatFinish("stop"), "[DONE]")...)
	}
	escaped := ssetest.Events(`{"choices":[{"delta":{"content":"h\u00e9llo w\u00f6rld "}}]}`,
		chatContent(long[len("héllo wörld "):]), chatFinish("stop"), "[DONE]")
	bodies := [][]byte{split(long), split(long, 1, 2, 3), split(long, 500, 5000, 9000), escaped}
	var scripts []ssetest.Script
	for i, b := range bodies {
		scripts = append(scripts, ssetest.Script{Steps: ssetest.Split(b, 7*i+1, 0, 0)})
	}
	scripts = append(scripts, ssetest.Script{Steps: []ssetest.Step{{Data: split(long[:len(long)-1] + "!")}}})
	srv, err := ssetest.NewScripts(scripts...)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	c := NewClient(ClientConfig{BaseURL: srv.URL})
	want := fmt.Sprintf("%016x", fnv64a(long))
	for i := range bodies {
		var rec rundir.Record
		answer := c.Do(context.Background(), &Request{}, &rec)
		if !rec.OK() || rec.OutputHash != want || answer != long[:AnswerPrefixBytes] {
			t.Errorf("body %d: %s hash %q (want %s), answer %d bytes", i, rec.ErrorClass, rec.OutputHash, want, len(answer))
		}
	}
	var rec rundir.Record
	if c.Do(context.Background(), &Request{KeepAnswer: true}, &rec); rec.OutputHash == want || rec.OutputHash == "" {
		t.Errorf("another text: hash %q, want one different from %s", rec.OutputHash, want)
	}
}

// fnv64a is the FNV-1a 64-bit hash of s (hash/fnv), the output hash's algorithm.
func fnv64a(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

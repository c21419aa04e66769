package sweep

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/llmcap/llmcap/rundir"
	"github.com/llmcap/llmcap/sweep/ssetest"
)

// giantEventServer serves one chat stream whose first event carries size bytes of
// content in one SSE event.
func giantEventServer(tb testing.TB, size int) (*ssetest.Server, string) {
	text := strings.Repeat("giant ev", size/8)
	body := ssetest.Events(chatContent(text), chatFinish("stop"), "[DONE]")
	srv, err := ssetest.NewScripts(ssetest.Script{Steps: ssetest.Split(body, 64<<10, 0, 0)})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(srv.Close)
	return srv, text
}

// giantEventAlloc returns the bytes allocated (client and in-process server together)
// by one request whose answer is one size-byte SSE event.
func giantEventAlloc(tb testing.TB, c *Client, text string) uint64 {
	var rec rundir.Record
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	answer := c.Do(context.Background(), &Request{}, &rec)
	runtime.ReadMemStats(&after)
	if !rec.OK() || rec.Chunks != 1 || answer != text[:AnswerPrefixBytes] {
		tb.Fatalf("giant event: %s %s, %d chunks", rec.ErrorClass, rec.Error, rec.Chunks)
	}
	return after.TotalAlloc - before.TotalAlloc
}

// TestClientGiantEventAllocs: one 20 MB SSE event costs at most 1.5× its size in
// bytes allocated (before: about 4×), on both paths.
func TestClientGiantEventAllocs(t *testing.T) {
	const size = 20 << 20
	bothPaths(t, func(t *testing.T) {
		srv, text := giantEventServer(t, size)
		c := NewClient(ClientConfig{BaseURL: srv.URL})
		defer c.CloseIdleConnections()
		giantEventAlloc(t, c, text) // warm the pools
		alloc := giantEventAlloc(t, c, text)
		t.Logf("%.2f bytes allocated per event byte", float64(alloc)/size)
		if alloc > size*3/2 {
			t.Errorf("%d bytes allocated for a %d-byte event, want ≤ 1.5×", alloc, size)
		}
	})
}

// BenchmarkClientGiantEvent reports the bytes allocated per byte of a 20 MB event.
func BenchmarkClientGiantEvent(b *testing.B) {
	const size = 20 << 20
	srv, text := giantEventServer(b, size)
	c := NewClient(ClientConfig{BaseURL: srv.URL})
	defer c.CloseIdleConnections()
	b.ReportAllocs()
	var total uint64
	for b.Loop() {
		total += giantEventAlloc(b, c, text)
	}
	b.ReportMetric(float64(total)/float64(b.N)/size, "alloc_bytes/event_byte")
}

// TestClientLargeEventShapes: large events (past the rope threshold) decode like small
// ones: content with escapes of every kind (surrogate pairs cut at any read), content
// in two choices around a big string, big reasoning, a big ignored field, and long
// comment and unknown lines around them; read in 1000-byte pieces.
func TestClientLargeEventShapes(t *testing.T) {
	esc := strings.Repeat("a\"b\\c\nd\té😀\u2028/", 40000) // json.Marshal escapes most of these
	plain := strings.Repeat("p", 300000)
	bigChoices := `{"choices":[{"index":0,"delta":{"content":"x"}},{"index":1,"delta":{"content":` +
		jsonString(plain) + `}},{"index":2,"delta":{"content":"y"}}]}`
	reasoning := `{"choices":[{"delta":{"reasoning_content":` + jsonString(plain) + `}}]}`
	ignored := `{"id":` + jsonString(plain) + `,"choices":[{"delta":{"content":"z"}}]}`
	body := ": " + plain + "\n" + "x-junk: " + plain + "\n" +
		string(ssetest.Events(chatContent(esc), bigChoices, reasoning, ignored, chatFinish("stop"), "[DONE]"))
	want := esc + "x" + plain + "y" + "z"
	srv, err := ssetest.NewScripts(ssetest.Script{Steps: ssetest.Split([]byte(body), 1000, 0, 0)})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	c := NewClient(ClientConfig{BaseURL: srv.URL})
	var rec rundir.Record
	answer := c.Do(context.Background(), &Request{KeepAnswer: true}, &rec)
	if !rec.OK() || answer != want || rec.Chunks != 4 || rec.ReasoningTokens != 1 {
		t.Fatalf("%s %s: answer %d bytes (want %d, equal %v), %d chunks, %d reasoning", rec.ErrorClass, rec.Error,
			len(answer), len(want), answer == want, rec.Chunks, rec.ReasoningTokens)
	}
	if h := fmt.Sprintf("%016x", fnv64a(want)); rec.OutputHash != h {
		t.Errorf("hash %s, want %s", rec.OutputHash, h)
	}
}

func jsonString(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// TestEscapeSafeCut: unescaping a JSON string in pieces cut at escapeSafeCut equals
// unescaping it whole.
func TestEscapeSafeCut(t *testing.T) {
	raw := jsonString(strings.Repeat("a\\\"😀\u00e9\n", 50))
	raw = raw[1 : len(raw)-1]
	whole, err := unescape(nil, []byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	for size := 12; size < 40; size++ {
		var got, w []byte
		for i := 0; i < len(raw); {
			j := min(i+size-len(w), len(raw))
			w = append(w, raw[i:j]...)
			i = j
			cut := len(w)
			if i < len(raw) {
				cut = escapeSafeCut(w)
			}
			got, _ = unescape(got, w[:cut])
			w = append(w[:0], w[cut:]...)
		}
		if string(got) != string(whole) {
			t.Fatalf("pieces of %d bytes: %q, want %q", size, got, whole)
		}
	}
}

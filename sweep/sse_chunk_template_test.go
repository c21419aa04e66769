package sweep

import (
	"bytes"
	"testing"
)

// FuzzChunkTemplate checks decode's fast path against full parses: after a chunk a,
// the chunk made of a's template around x (and any other chunk b) decodes to exactly
// what a fresh decoder makes of it, error or not. Run in CI briefly, e.g.
// go test -run '^$' -fuzz FuzzChunkTemplate -fuzztime 30s ./sweep/
func FuzzChunkTemplate(f *testing.F) {
	for _, tc := range chunkCases {
		f.Add([]byte(tc.in), []byte(" tok"), []byte(tc.in))
		f.Add([]byte(tc.in), []byte(`x"y`), []byte(`{"choices":[{"delta":{"content":"\u00e9"}}]}`))
	}
	f.Add([]byte(benchChunkData), []byte(`a\"`), []byte(benchChunkData))
	f.Fuzz(func(t *testing.T, a, x, b []byte) {
		var d chunkDecoder
		_ = d.decode(a)
		if d.tmpl {
			checkTemplated(t, &d, bytes.Join([][]byte{d.pre, x, d.suf}, nil))
		}
		checkTemplated(t, &d, b)
	})
}

// checkTemplated decodes in with d and with a fresh decoder and fails unless both agree.
func checkTemplated(t *testing.T, d *chunkDecoder, in []byte) {
	t.Helper()
	var fresh chunkDecoder
	err1, err2 := d.decode(in), fresh.decode(bytes.Clone(in))
	if (err1 == nil) != (err2 == nil) {
		t.Fatalf("decode(%q): %v after a template, %v fresh", in, err1, err2)
	}
	if err1 == nil && !sameChunk(&d.c, &fresh.c) {
		t.Fatalf("decode(%q): %+v after a template, %+v fresh", in, d.c, fresh.c)
	}
}

// sameChunk compares two decoded chunks field by field (nil and empty slices alike).
func sameChunk(a, b *chunk) bool {
	return bytes.Equal(a.content, b.content) && a.reasoning == b.reasoning &&
		bytes.Equal(a.finishReason, b.finishReason) && a.hasUsage == b.hasUsage &&
		a.promptTok == b.promptTok && a.complTok == b.complTok && a.reasonTok == b.reasonTok &&
		a.hasReasonTok == b.hasReasonTok && a.hasError == b.hasError &&
		bytes.Equal(a.errText, b.errText) && bytes.Equal(a.errRaw, b.errRaw) &&
		bytes.Equal(a.message, b.message) && a.objectError == b.objectError &&
		a.bigContent == b.bigContent
}

// benchChunkData is benchChunk's JSON (vLLM's content chunk).
var benchChunkData = benchChunk[len("data: ") : len(benchChunk)-2]

// TestChunkTemplateTakesOnlyTheContent decodes a stream of vLLM-style chunks: the
// content chunks after the first take the fast path, and every decode agrees with a
// full parse, including the chunks that break the template (an escape, a quote, a
// finish reason, usage).
func TestChunkTemplateTakesOnlyTheContent(t *testing.T) {
	mk := func(content, finish string) []byte {
		return []byte(`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"` +
			content + `"},"logprobs":null,"finish_reason":` + finish + `}]}`)
	}
	var d chunkDecoder
	stream := [][]byte{mk("Hel", "null"), mk("lo", "null"), mk(`\n`, "null"), mk(" wor", "null"),
		mk("ld", "null"), mk("", `"stop"`), mk("!", `"stop"`),
		[]byte(`{"id":"c1","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":5}}`), mk("x", "null")}
	want := []bool{false, true, false, false, true, false, true, false, false}
	for i, in := range stream {
		before := d.tmpl && bytes.HasPrefix(in, d.pre) && bytes.HasSuffix(in, d.suf) &&
			bytes.IndexAny(in[len(d.pre):len(in)-len(d.suf)], `"\`) < 0
		if before != want[i] {
			t.Errorf("chunk %d %s: fast path %v, want %v", i, in, before, want[i])
		}
		checkTemplated(t, &d, in)
	}
	if string(d.c.content) != "x" {
		t.Fatalf("last content %q, want x", d.c.content)
	}
}

package sweep

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

type evt struct{ Type, Data string }

// parseAll feeds the pieces in order and returns every event (Finish included).
func parseAll(t testing.TB, pieces ...[]byte) []evt {
	t.Helper()
	var p SSEParser
	var out []evt
	emit := func(e SSEEvent) error {
		out = append(out, evt{string(e.Type), string(e.Data)})
		return nil
	}
	for _, b := range pieces {
		if err := p.Feed(b, emit); err != nil {
			t.Fatalf("Feed: %v", err)
		}
	}
	if err := p.Finish(emit); err != nil {
		t.Fatalf("Finish: %v", err)
	}
	return out
}

var sseCases = []struct {
	name string
	in   string
	want []evt
}{
	{"lf", "data: a\n\ndata: b\n\n", []evt{{"", "a"}, {"", "b"}}},
	{"crlf", "data: a\r\n\r\ndata: b\r\n\r\n", []evt{{"", "a"}, {"", "b"}}},
	{"cr", "data: a\r\rdata: b\r\r", []evt{{"", "a"}, {"", "b"}}},
	{"mixed endings", "data: a\r\n\ndata: b\r\r\ndata: c\n\r", []evt{{"", "a"}, {"", "b"}, {"", "c"}}},
	{"no space", "data:a\n\ndata:  b\n\n", []evt{{"", "a"}, {"", " b"}}},
	{"multi-line data", "data: a\ndata: b\ndata:\n\n", []evt{{"", "a\nb\n"}}},
	{"empty data dispatches", "data:\n\n", []evt{{"", ""}}},
	{"comments", ": keep-alive\n\n:x\ndata: a\n: mid\n\n", []evt{{"", "a"}}},
	{"event id retry", "event: delta\nid: 7\nretry: 100\ndata: a\n\nid: 8\n\ndata: b\n\n",
		[]evt{{"delta", "a"}, {"", "b"}}},
	{"event error", "event: error\ndata: {\"error\":\"x\"}\n\n", []evt{{"error", `{"error":"x"}`}}},
	{"unknown field and no colon", "foo: bar\ndata\nbaz\ndata: a\n\n", []evt{{"", "\na"}}},
	{"bom", "\xEF\xBB\xBFdata: a\n\n", []evt{{"", "a"}}},
	{"not a bom", "\xEF\xBBxdata: a\n\n", nil},
	{"utf8", "data: {\"c\":\"héllo 世界 🎉\"}\n\n", []evt{{"", "{\"c\":\"héllo 世界 🎉\"}"}}},
	{"done", "data: a\n\ndata: [DONE]\n\n", []evt{{"", "a"}, {"", "[DONE]"}}},
	{"eof after complete line", "data: a\n\ndata: b\n", []evt{{"", "a"}, {"", "b"}}},
	{"eof inside line dropped", "data: a\n\ndata: {\"tru", []evt{{"", "a"}}},
	{"colon in value", "data: {\"a\":\"b:c\"}\n\n", []evt{{"", `{"a":"b:c"}`}}},
	{"blank lines only", "\n\n\r\n\r\r", nil},
}

func TestSSEParserCases(t *testing.T) {
	for _, tc := range sseCases {
		t.Run(tc.name, func(t *testing.T) {
			got := parseAll(t, []byte(tc.in))
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestSSEParserSplitEverywhere feeds every case cut at every byte, at every pair of
// bytes, and one byte at a time: each must give the same events as the whole input
// (this covers cuts inside a CRLF pair and inside multi-byte UTF-8 characters).
func TestSSEParserSplitEverywhere(t *testing.T) {
	for _, tc := range sseCases {
		in := []byte(tc.in)
		whole := parseAll(t, in)
		for i := 0; i <= len(in); i++ {
			if got := parseAll(t, in[:i], in[i:]); !reflect.DeepEqual(got, whole) {
				t.Fatalf("%s: split at %d: got %q, want %q", tc.name, i, got, whole)
			}
			for j := i; j <= len(in); j++ {
				if got := parseAll(t, in[:i], in[i:j], in[j:]); !reflect.DeepEqual(got, whole) {
					t.Fatalf("%s: split at %d,%d: got %q, want %q", tc.name, i, j, got, whole)
				}
			}
		}
		var bytewise [][]byte
		for i := range in {
			bytewise = append(bytewise, in[i:i+1])
		}
		if got := parseAll(t, bytewise...); !reflect.DeepEqual(got, whole) {
			t.Fatalf("%s: byte by byte: got %q, want %q", tc.name, got, whole)
		}
	}
}

func TestSSEParserMaxLine(t *testing.T) {
	var p SSEParser
	p.SetMaxLine(8)
	err := p.Feed([]byte("data: 0123456789"), func(SSEEvent) error { return nil })
	if err != ErrSSELineTooLong {
		t.Fatalf("err = %v, want ErrSSELineTooLong", err)
	}
}

// refChunk is the encoding/json view of a chunk, the reference for the decoder.
type refChunk struct {
	Choices []struct {
		Delta *struct {
			Content          *string `json:"content"`
			ReasoningContent *string `json:"reasoning_content"`
			Reasoning        *string `json:"reasoning"`
		} `json:"delta"`
		Text         *string `json:"text"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
}

var chunkCases = []struct {
	name                  string
	in                    string
	content               string
	reasoning             bool
	finish                string
	usage                 bool
	prompt, compl, reason int
	hasErr                bool
	errText               string
}{
	{name: "vllm content", in: `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":" hi"},"logprobs":null,"finish_reason":null}]}`, content: " hi"},
	{name: "role only", in: `{"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`},
	{name: "escapes", in: `{"choices":[{"delta":{"content":"a\n\"b\"\\\/\t\u00e9\ud83c\udf89\ud800x"}}]}`, content: "a\n\"b\"\\/\té🎉\uFFFDx"},
	{name: "reasoning_content", in: `{"choices":[{"delta":{"reasoning_content":"think","content":null}}]}`, reasoning: true},
	{name: "reasoning", in: `{"choices":[{"delta":{"reasoning":"hm"}}]}`, reasoning: true},
	{name: "completions text", in: `{"choices":[{"text":"foo","index":0,"logprobs":null,"finish_reason":null}]}`, content: "foo"},
	{name: "finish only", in: `{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`, finish: "stop"},
	{name: "usage empty choices", in: `{"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":34,"total_tokens":46}}`, usage: true, prompt: 12, compl: 34},
	{name: "usage no choices", in: `{"usage":{"prompt_tokens":1,"completion_tokens":2,"completion_tokens_details":{"reasoning_tokens":1}}}`, usage: true, prompt: 1, compl: 2, reason: 1},
	{name: "usage null", in: `{"choices":[{"delta":{"content":"x"}}],"usage":null}`, content: "x"},
	{name: "usage float", in: `{"usage":{"prompt_tokens":3.0,"completion_tokens":4e0}}`, usage: true, prompt: 3, compl: 4},
	{name: "error object", in: `{"error":{"message":"boom","type":"x","code":500}}`, hasErr: true, errText: "boom"},
	{name: "error string", in: `{"error":"bad"}`, hasErr: true, errText: "bad"},
	{name: "vllm object error", in: `{"object":"error","message":"too long","type":"BadRequestError","param":null,"code":400}`, hasErr: true, errText: "too long"},
	{name: "error null", in: `{"choices":[{"delta":{"content":"y"}}],"error":null}`, content: "y"},
	{name: "whitespace", in: " { \"choices\" : [ { \"delta\" : { \"content\" : \"z\" } , \"finish_reason\" : \"length\" } ] } ", content: "z", finish: "length"},
	{name: "nested unknown", in: `{"x":{"a":[1,{"b":"}]"}],"c":true},"choices":[{"delta":{"tool_calls":[{"f":{"a":"{"}}],"content":"q"}}]}`, content: "q"},
}

func TestChunkDecoder(t *testing.T) {
	var d chunkDecoder
	for _, tc := range chunkCases {
		t.Run(tc.name, func(t *testing.T) {
			if err := d.decode([]byte(tc.in)); err != nil {
				t.Fatalf("decode: %v", err)
			}
			c := d.c
			if string(c.content) != tc.content || (c.reasoning > 0) != tc.reasoning ||
				string(c.finishReason) != tc.finish || c.hasUsage != tc.usage ||
				c.promptTok != tc.prompt || c.complTok != tc.compl || c.reasonTok != tc.reason ||
				c.hasError != tc.hasErr || string(c.errText) != tc.errText {
				t.Fatalf("got content=%q reasoning=%d finish=%q usage=%v %d/%d/%d err=%v %q",
					c.content, c.reasoning, c.finishReason, c.hasUsage, c.promptTok, c.complTok,
					c.reasonTok, c.hasError, c.errText)
			}
			checkAgainstEncodingJSON(t, []byte(tc.in), &d)
		})
	}
}

func TestChunkDecoderRejects(t *testing.T) {
	var d chunkDecoder
	for _, in := range []string{``, `{`, `[]`, `{"choices":[{"delta":{"content":"x}}]}`,
		`{"a":1}x`, `{"a" 1}`, `{"a":1,,}`, `{"choices":[{"delta":{"content":"\q"}}]}`,
		`{"a":` + strings.Repeat("[", 1000) + strings.Repeat("]", 1000) + `}`} {
		if err := d.decode([]byte(in)); err == nil {
			t.Errorf("decode(%q) succeeded, want an error", in)
		}
	}
}

// checkAgainstEncodingJSON compares the decoder's result with encoding/json's reading
// of the same input (when encoding/json accepts it).
func checkAgainstEncodingJSON(t testing.TB, in []byte, d *chunkDecoder) {
	var ref refChunk
	if json.Unmarshal(in, &ref) != nil {
		return
	}
	var content strings.Builder
	reasoning, finish := false, ""
	for _, ch := range ref.Choices {
		if ch.Delta != nil {
			if ch.Delta.Content != nil {
				content.WriteString(*ch.Delta.Content)
			}
			for _, r := range []*string{ch.Delta.ReasoningContent, ch.Delta.Reasoning} {
				if r != nil && *r != "" {
					reasoning = true
				}
			}
		}
		if ch.Text != nil {
			content.WriteString(*ch.Text)
		}
		if ch.FinishReason != nil && *ch.FinishReason != "" {
			finish = *ch.FinishReason
		}
	}
	c := d.c
	if string(c.content) != content.String() || (c.reasoning > 0) != reasoning || string(c.finishReason) != finish {
		t.Fatalf("decoder content=%q reasoning=%v finish=%q; encoding/json %q %v %q",
			c.content, c.reasoning > 0, c.finishReason, content.String(), reasoning, finish)
	}
	if (ref.Usage != nil) != c.hasUsage || (ref.Usage != nil &&
		(ref.Usage.PromptTokens != c.promptTok || ref.Usage.CompletionTokens != c.complTok)) {
		t.Fatalf("decoder usage %v %d/%d; encoding/json %+v", c.hasUsage, c.promptTok, c.complTok, ref.Usage)
	}
}

// TestSSEHotPathAllocs checks that parsing and decoding a typical chunk does not
// allocate in the steady state.
func TestSSEHotPathAllocs(t *testing.T) {
	in := []byte("data: " + chunkCases[0].in + "\n\n")
	var p SSEParser
	var d chunkDecoder
	var answer []byte
	emit := func(e SSEEvent) error {
		if err := d.decode(e.Data); err != nil {
			return err
		}
		answer = append(answer[:0], d.c.content...)
		return nil
	}
	allocs := testing.AllocsPerRun(1000, func() {
		if err := p.Feed(in[:17], emit); err != nil {
			t.Fatal(err)
		}
		if err := p.Feed(in[17:], emit); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per chunk, want 0", allocs)
	}
}

func BenchmarkSSEParseDecode(b *testing.B) {
	in := []byte("data: " + chunkCases[0].in + "\n\n")
	var p SSEParser
	var d chunkDecoder
	emit := func(e SSEEvent) error { return d.decode(e.Data) }
	b.ReportAllocs()
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if err := p.Feed(in, emit); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncodingJSONChunk is the reference cost of decoding the same chunk with
// encoding/json into a small struct.
func BenchmarkEncodingJSONChunk(b *testing.B) {
	in := []byte(chunkCases[0].in)
	b.ReportAllocs()
	for b.Loop() {
		var ref refChunk
		if err := json.Unmarshal(in, &ref); err != nil {
			b.Fatal(err)
		}
	}
}

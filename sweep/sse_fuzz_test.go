package sweep

import (
	"bytes"
	"reflect"
	"testing"
)

// FuzzSSE checks the SSE parser and the chunk decoder on arbitrary input: they never
// panic, and feeding the same bytes split differently (at the fuzzer's cut points, and
// one byte at a time) yields the same events. Run in CI briefly, e.g.
// go test -run '^$' -fuzz FuzzSSE -fuzztime 30s ./sweep/
func FuzzSSE(f *testing.F) {
	for _, tc := range sseCases {
		f.Add([]byte(tc.in), []byte{3, 1, 4})
	}
	for _, tc := range chunkCases {
		f.Add([]byte("data: "+tc.in+"\r\n\r\n"), []byte{7, 0, 200})
		f.Add([]byte("data:"+tc.in+"\rdata: [DONE]\r\r"), []byte{1})
	}
	f.Fuzz(func(t *testing.T, in []byte, cuts []byte) {
		whole, wholeErr := fuzzParse(in, nil)
		split, splitErr := fuzzParse(in, cuts)
		if (wholeErr == nil) != (splitErr == nil) || !reflect.DeepEqual(whole, split) {
			t.Fatalf("split %v changed the events: %q (%v) vs %q (%v)", cuts, whole, wholeErr, split, splitErr)
		}
		ones := make([]byte, len(in))
		for i := range ones {
			ones[i] = 1
		}
		bytewise, _ := fuzzParse(in, ones)
		if !reflect.DeepEqual(whole, bytewise) {
			t.Fatalf("byte-by-byte feeding changed the events: %q vs %q", whole, bytewise)
		}
		var d1, d2 chunkDecoder
		for _, e := range whole {
			err1 := d1.decode([]byte(e.Data))
			err2 := d2.decode(bytes.Clone([]byte(e.Data)))
			if (err1 == nil) != (err2 == nil) || !reflect.DeepEqual(d1.c, d2.c) && err1 == nil {
				t.Fatalf("decoder not deterministic on %q", e.Data)
			}
		}
		// The decoder must also survive raw input, not only framed events.
		_ = d1.decode(in)
	})
}

// fuzzParse feeds in cut into pieces of the lengths given by cuts (cycled; 0 means
// "the rest"), returning the events.
func fuzzParse(in, cuts []byte) ([]evt, error) {
	var p SSEParser
	p.SetMaxLine(1 << 16)
	var out []evt
	emit := func(e SSEEvent) error {
		out = append(out, evt{string(e.Type), string(e.Data)})
		return nil
	}
	for k := 0; len(in) > 0; k++ {
		n := len(in)
		if len(cuts) > 0 {
			if c := int(cuts[k%len(cuts)]); c > 0 && c < n {
				n = c
			}
		}
		if err := p.Feed(in[:n], emit); err != nil {
			return out, err
		}
		in = in[n:]
	}
	return out, p.Finish(emit)
}

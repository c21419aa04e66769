package sweep

import (
	"bytes"
	"math"
	"os"
	"strings"
	"testing"
)

// FuzzEmpiricalDist checks the readers of empirical distributions (a CSV column by
// header name, a JSONL key) on arbitrary files: either an error, or one finite value
// per data row (a NaN or ±Inf token count or think time would poison every draw).
func FuzzEmpiricalDist(f *testing.F) {
	csvSeed, err := os.ReadFile("../data/traces/vidur_arxiv_summarization_stats_llama2_tokenizer_filtered_v2.csv")
	if err != nil {
		f.Fatal(err)
	}
	jsonlSeed, err := os.ReadFile("../data/traces/mooncake_conversation_trace.jsonl")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(firstLines(csvSeed, 20), "num_decode_tokens", false)
	f.Add(firstLines(jsonlSeed, 10), "output_length", true)
	f.Add([]byte("a,b\n1,2\n\n3,NaN\n"), "b", false)
	f.Add([]byte("{\"x\": 1}\n\n{\"x\": 2.5e3}\n"), "x", true)
	f.Fuzz(func(t *testing.T, in []byte, column string, jsonl bool) {
		var vals []float64
		var err error
		if jsonl {
			vals, err = jsonlColumn(bytes.NewReader(in), column)
		} else {
			vals, err = csvColumn(bytes.NewReader(in), column)
		}
		if err != nil {
			return
		}
		for i, v := range vals {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("value %d is %g: not finite", i, v)
			}
		}
		if rows := bytes.Count(in, []byte{'\n'}) + 1; len(vals) > rows {
			t.Fatalf("%d values from %d lines", len(vals), rows)
		}
	})
}

// firstLines is the first n lines of b.
func firstLines(b []byte, n int) []byte {
	lines := strings.SplitAfterN(string(b), "\n", n+1)
	return []byte(strings.Join(lines[:min(n, len(lines))], ""))
}

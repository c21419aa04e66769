package importer_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmcap/llmcap/importer"
)

// TestFilesThatAreNoOneLadderAreRefused: closed-loop and open-loop files, files of
// two models or two arrival processes, and two files at one load are refused, the error naming the files on
// each side.
func TestFilesThatAreNoOneLadderAreRefused(t *testing.T) {
	rate2 := filepath.Join("testdata", "vllm", "rate2.json")
	closed := filepath.Join("testdata", "vllm", "legacy-c8.json")
	other := vllmCopy(t, "other-model.json", func(m map[string]any) { m["model_id"] = "meta-llama/Llama-3.1-8B"; m["request_rate"] = 4.0 })
	twin := vllmCopy(t, "twin.json", func(map[string]any) {})
	bursty := vllmCopy(t, "bursty.json", func(m map[string]any) { m["burstiness"] = 0.5; m["request_rate"] = 4.0 })
	for _, c := range []struct {
		files []string
		want  []string
	}{
		{[]string{rate2, closed}, []string{"mix closed-loop concurrency runs (" + closed + ")", "open-loop request-rate runs (" + rate2 + ")"}},
		{[]string{rate2, other}, []string{"different models", "Qwen/Qwen3-0.6B (" + rate2 + ")", "meta-llama/Llama-3.1-8B (" + other + ")"}},
		{[]string{rate2, twin}, []string{rate2, twin, "both at rate 2 req/s"}},
		{[]string{rate2, bursty}, []string{"different arrival processes", "poisson (" + rate2 + ")", "gamma (" + bursty + ")"}},
	} {
		_, err := importer.Import(importer.Options{Format: importer.FormatVLLMBench, Files: c.files, OutDir: filepath.Join(t.TempDir(), "o")})
		for _, w := range c.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%v: err = %v, want %q", c.files, err, w)
			}
		}
	}
}

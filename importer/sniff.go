package importer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// missingFile is the error for a source path that cannot be opened: one that does not
// exist is said so, naming it; any other error is wrapped.
func missingFile(path string, err error) error {
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("import %s: no such file or directory", displayName(path))
	}
	return fmt.Errorf("import %s: %w", displayName(path), err)
}

// What a file's first JSON value looks like (sniff).
const (
	lookAIPerfExport  = "aiperf"         // a profile_export.jsonl record: metadata with metrics or error
	lookAIPerfSummary = "aiperf-summary" // profile_export_aiperf.json: input_config
	lookVLLMBench     = "vllm-bench"     // a vllm bench serve result: ttfts, or request_rate with model_id
)

// sniffBytes is how many bytes of a file sniff reads: enough for a vLLM result's
// top-level settings (written before its per-request arrays) and an AIPerf record.
const sniffBytes = 1 << 20

// sniff is what the JSON object that b starts with looks like (one of the look…
// constants) by its top-level keys, "" when it is none of them or no JSON object. b
// may be cut short (a prefix of the file): the keys before the cut count. For a JSON
// Lines file only the first line counts.
func sniff(b []byte) string {
	dec := json.NewDecoder(bytes.NewReader(pythonJSON(b)))
	keys := map[string]bool{}
	depth, expectKey := 0, false
scan:
	for {
		t, err := dec.Token()
		if err != nil {
			break
		}
		switch v := t.(type) {
		case json.Delim:
			switch v {
			case '{', '[':
				if depth == 0 && v != '{' {
					return ""
				}
				depth++
				expectKey = depth == 1
			default:
				depth--
				if depth == 0 {
					break scan
				}
				expectKey = depth == 1
			}
		default:
			switch {
			case depth == 0:
				return ""
			case depth == 1 && expectKey:
				if k, ok := v.(string); ok {
					keys[k] = true
				}
				expectKey = false
			case depth == 1:
				expectKey = true
			}
		}
	}
	switch {
	case keys["metadata"] && (keys["metrics"] || keys["error"]):
		return lookAIPerfExport
	case keys["input_config"]:
		return lookAIPerfSummary
	case keys["ttfts"] || (keys["request_rate"] && keys["model_id"]):
		return lookVLLMBench
	}
	return ""
}

// sniffFile is sniff of the start of the file at path ("" when it cannot be read).
func sniffFile(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	b := make([]byte, sniffBytes)
	n, _ := io.ReadFull(f, b)
	return sniff(b[:n])
}

// wrongFormat refuses the file at path, given to `llmcap import f`, when it looks
// like another format's file, naming the command that reads it.
func wrongFormat(f Format, path string) error {
	name := displayName(path)
	look := sniffFile(path)
	if f == FormatAIPerf && filepath.Base(path) == AIPerfSummaryFile {
		look = lookAIPerfSummary
	}
	switch {
	case look == lookVLLMBench && f != FormatVLLMBench:
		return fmt.Errorf("import %s: looks like a vllm-bench result: use llmcap import vllm-bench "+
			"(an AIPerf export is JSON Lines of metadata and metrics; this is one object of ttfts, request_rate, model_id…)", name)
	case look == lookAIPerfExport && f != FormatAIPerf:
		return fmt.Errorf("import %s: looks like an AIPerf export: use llmcap import aiperf "+
			"(a vllm bench serve result is one object of ttfts, itls…; this is JSON Lines of metadata and metrics)", name)
	case look == lookAIPerfSummary && f == FormatAIPerf:
		return fmt.Errorf("import %s: this is AIPerf's summary (%s): give the %s beside it, or their directory", name, AIPerfSummaryFile, AIPerfExportFile)
	case look == lookAIPerfSummary:
		return fmt.Errorf("import %s: looks like AIPerf's summary (%s), not a vllm bench serve result: use llmcap import aiperf with the %s beside it, or their directory",
			name, AIPerfSummaryFile, AIPerfExportFile)
	}
	return nil
}

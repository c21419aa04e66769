package sweep

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/tracefile"
)

// traceData is the selected window of a trace.
type traceData struct {
	format string
	rows   []tracefile.Row
	// blockWords is the words per hash-id block: 512 scaled by the prompt scale, so the
	// trace's prefix-sharing structure survives length scaling.
	blockWords int
}

// loadTrace reads the window [StartRow, StartRow+Rows) of t's file (relative paths are
// resolved against base when not found as given), applying time and length scaling.
func loadTrace(t plan.Trace, base string) (*traceData, error) {
	if _, err := os.Stat(t.File); err != nil && !filepath.IsAbs(t.File) && base != "" {
		t.File = filepath.Join(base, t.File)
	}
	rows, err := t.Load()
	if err != nil {
		return nil, fmt.Errorf("load trace: %w", err)
	}
	return &traceData{format: t.Format, rows: rows, blockWords: t.Scale().BlockWords()}, nil
}

// promptText builds row's prompt: for Mooncake rows, one deterministic block of
// blockWords words per hash id (equal ids give equal blocks, hence shared prefixes), cut
// or extended with unique words to the row's prompt tokens; otherwise unique words.
func (td *traceData) promptText(row tracefile.Row, seed int64, r *rand.Rand) string {
	var b strings.Builder
	words := 0
	for _, id := range row.HashIDs {
		if words >= row.Prompt {
			break
		}
		n := min(td.blockWords, row.Prompt-words)
		appendWords(&b, seededRand(seed, 0xB10C, uint64(id)), n)
		words += n
	}
	appendWords(&b, r, row.Prompt-words)
	return b.String()
}

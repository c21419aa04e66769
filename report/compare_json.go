package report

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/llmcap/llmcap/compare"
	"github.com/llmcap/llmcap/rundir"
)

// writeCompareJSON writes compare.json: the Comparison as it is (indented; its field
// names are compare's JSON tags, stable).
func writeCompareJSON(path string, c *compare.Comparison) error {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", filepath.Base(path), err)
	}
	return rundir.WriteFileAtomic(path, append(b, '\n'))
}

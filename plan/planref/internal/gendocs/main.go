// Command gendocs writes docs/config.md and docs/plan.schema.json from plan/planref;
// `go generate ./plan` runs it after gensource.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/llmcap/llmcap/plan/planref"
)

func main() {
	root := flag.String("root", "..", "the repository root (holds configs/ and docs/)")
	flag.Parse()
	files, err := planref.Generate(*root)
	for name, b := range files {
		if err != nil {
			break
		}
		err = os.WriteFile(filepath.Join(*root, name), b, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gendocs:", err)
		os.Exit(1)
	}
}

// Command gensource writes plan/planref/docs_gen.go from the plan package's doc
// comments; `go generate ./plan` runs it (before gendocs, which compiles the result in).
// It imports no plan code, so it runs even when docs_gen.go is stale.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/llmcap/llmcap/plan/planref/internal/godoc"
)

func main() {
	dir := flag.String("plan", ".", "the plan package's directory")
	out := flag.String("out", "planref/docs_gen.go", "the Go file to write")
	flag.Parse()
	src, err := godoc.Parse(*dir)
	if err == nil {
		var b []byte
		if b, err = src.GoFile(); err == nil {
			err = os.WriteFile(*out, b, 0o644)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gensource:", err)
		os.Exit(1)
	}
}

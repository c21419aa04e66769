package plan

// The plan reference (docs/config.md) and JSON Schema (docs/plan.schema.json): the
// first step reads this package's doc comments into planref/docs_gen.go, the second
// renders the files from it (plan/planref).
//go:generate go run ./planref/internal/gensource -plan . -out planref/docs_gen.go
//go:generate go run ./planref/internal/gendocs -root ..

// Package configs holds llmcap's embedded configuration data: the GPU and model catalog
// (parsed by package catalog), the example plans and the drift probe's prompt set.
package configs

import _ "embed"

// Catalog is the embedded GPU and model catalog document (catalog.yaml): GPUs with their
// published peak dense FLOPS, HBM capacity and bandwidth and interconnect bandwidth, and
// models with their architecture from Hugging Face config.json files. Each entry names
// its source. Read it through package catalog (catalog.Default, catalog.Load), which
// parses it into typed values.
//
//go:embed catalog.yaml
var Catalog []byte

// DriftPrompts is the embedded frozen prompt set of the output-drift probe
// (drift-prompts.txt: 50 varied prompts, one a line; '#' lines and blank lines are not
// prompts). Read it through plan.Drift.LoadPrompts, which parses it; docs/drift.md.
//
//go:embed drift-prompts.txt
var DriftPrompts []byte

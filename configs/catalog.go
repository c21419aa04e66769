// Package configs holds llmcap's embedded configuration data: the GPU and model catalog
// used by the embedded engine simulator, and the example plans.
package configs

import _ "embed"

// Catalog is the embedded GPU and model catalog (catalog.yaml): GPUs with their published
// peak dense FLOPS, HBM capacity and bandwidth and interconnect bandwidth, and models with
// their architecture from Hugging Face config.json files. Each entry names its source.
//
//go:embed catalog.yaml
var Catalog []byte

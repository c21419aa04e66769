// Package configs holds llmcap's embedded configuration data: the GPU and model catalog
// used by the embedded engine simulator, and the example plans.
package configs

import (
	_ "embed"
	"fmt"

	"gopkg.in/yaml.v3"
)

// Catalog is the embedded GPU and model catalog (catalog.yaml): GPUs with their published
// peak dense FLOPS, HBM capacity and bandwidth and interconnect bandwidth, and models with
// their architecture from Hugging Face config.json files. Each entry names its source.
//
//go:embed catalog.yaml
var Catalog []byte

// Names lists the GPU and model names of the embedded catalog, in file order.
func Names() (gpus, models []string, err error) { return NamesIn(Catalog) }

// NamesIn lists the GPU and model names of a catalog document (catalog.yaml's schema).
// It returns an error when data is not YAML.
func NamesIn(data []byte) (gpus, models []string, err error) {
	var c struct {
		GPUs   []struct{ Name string } `yaml:"gpus"`
		Models []struct{ Name string } `yaml:"models"`
	}
	if err := yaml.Unmarshal(data, &c); err != nil {
		return nil, nil, fmt.Errorf("catalog: %w", err)
	}
	for _, g := range c.GPUs {
		gpus = append(gpus, g.Name)
	}
	for _, m := range c.Models {
		models = append(models, m.Name)
	}
	return gpus, models, nil
}

// Package catalog is llmcap's GPU and model catalog: the embedded default
// (configs/catalog.yaml) parsed once into typed values, with a user override file
// (a plan's target.simulator.catalog) merged on top. Plan validation, the embedded
// engine simulator and the analysis's what-if sizing all read it here.
package catalog

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/llmcap/llmcap/configs"
)

// EmbeddedFile names the embedded default catalog in errors and in GPU.File / Model.File.
const EmbeddedFile = "configs/catalog.yaml (embedded)"

// GPU is one accelerator of the catalog.
type GPU struct {
	// Name is the catalog key, e.g. "H100-SXM".
	Name string `yaml:"name" json:"name"`
	// BF16TFLOPS and FP8TFLOPS are the published peak dense tensor TFLOPS (0 = unsupported).
	BF16TFLOPS float64 `yaml:"bf16_tflops" json:"bf16_tflops"`
	FP8TFLOPS  float64 `yaml:"fp8_tflops" json:"fp8_tflops"`
	// HBMGB is the memory capacity in GB (1e9 bytes); HBMTBps its bandwidth in TB/s (1e12 bytes/s).
	HBMGB   float64 `yaml:"hbm_gb" json:"hbm_gb"`
	HBMTBps float64 `yaml:"hbm_tbps" json:"hbm_tbps"`
	// InterconnectGBps is the GPU-to-GPU bandwidth per GPU in GB/s (NVLink, or PCIe).
	InterconnectGBps float64 `yaml:"interconnect_gbps" json:"interconnect_gbps"`
	// AllReduceLatencyUs is the fixed latency of one all-reduce in microseconds.
	AllReduceLatencyUs float64 `yaml:"allreduce_latency_us" json:"allreduce_latency_us"`
	// PriceUSDPerHour is the price of one GPU-hour in USD; 0 when the catalog has none.
	PriceUSDPerHour float64 `yaml:"price_usd_per_hour" json:"price_usd_per_hour,omitempty"`
	// Source names the datasheet the figures come from.
	Source string `yaml:"source" json:"source"`
	// File is the catalog file that last set this entry (EmbeddedFile or an override path).
	File string `yaml:"-" json:"-"`
}

// Model is one model architecture of the catalog (from its Hugging Face config.json).
type Model struct {
	// Name is the catalog key, e.g. "llama-3.1-8b".
	Name string `yaml:"name" json:"name"`
	// Params is the total parameter count; ActiveParams the parameters used per token
	// (equal to Params for dense models).
	Params       float64 `yaml:"params" json:"params"`
	ActiveParams float64 `yaml:"active_params" json:"active_params"`
	// Layers, Hidden, Heads, KVHeads and HeadDim are the transformer shape.
	Layers  int `yaml:"layers" json:"layers"`
	Hidden  int `yaml:"hidden" json:"hidden"`
	Heads   int `yaml:"heads" json:"heads"`
	KVHeads int `yaml:"kv_heads" json:"kv_heads"`
	HeadDim int `yaml:"head_dim" json:"head_dim"`
	// DTypeBytes is the bytes per weight and per KV-cache element (2 for BF16).
	DTypeBytes float64 `yaml:"dtype_bytes" json:"dtype_bytes"`
	// WeightGB, when set, overrides Params × DTypeBytes (quantised checkpoints), in GB.
	WeightGB float64 `yaml:"weight_gb" json:"weight_gb,omitempty"`
	// Experts and ExpertsPerToken describe a mixture-of-experts model (0 = dense).
	Experts         int `yaml:"experts" json:"experts,omitempty"`
	ExpertsPerToken int `yaml:"experts_per_token" json:"experts_per_token,omitempty"`
	// MaxModelLen is the context limit in tokens (prompt + output).
	MaxModelLen int `yaml:"max_model_len" json:"max_model_len"`
	// Source names the config.json or model card the figures come from.
	Source string `yaml:"source" json:"source"`
	// File is the catalog file that last set this entry (EmbeddedFile or an override path).
	File string `yaml:"-" json:"-"`
}

// WeightBytes returns the bytes of all weights: WeightGB × 1e9 when set, else
// Params × DTypeBytes.
func (m Model) WeightBytes() float64 {
	if m.WeightGB > 0 {
		return m.WeightGB * 1e9
	}
	return m.Params * m.DTypeBytes
}

func (g GPU) entryName() string   { return g.Name }
func (m Model) entryName() string { return m.Name }

// Catalog is the set of GPUs and models llmcap knows, in file order (the embedded
// entries first, then the ones an override adds).
type Catalog struct {
	GPUs   []GPU   `json:"gpus"`
	Models []Model `json:"models"`
}

// embedded parses the embedded catalog once.
var embedded = sync.OnceValues(func() (*Catalog, error) {
	c := &Catalog{}
	if err := c.Merge(configs.Catalog, EmbeddedFile); err != nil {
		return nil, err
	}
	return c, nil
})

// Default returns the embedded catalog (configs/catalog.yaml), parsed once; each call
// returns a copy the caller may change. The error (a broken embedded file) names the
// file, the entry and the field.
func Default() (*Catalog, error) {
	c, err := embedded()
	if err != nil {
		return nil, err
	}
	return c.clone(), nil
}

// Load returns the embedded catalog with the override file at overridePath merged on
// top (see Merge); an empty overridePath returns the embedded catalog alone. Errors:
// the file cannot be read (wrapping the os error), or it breaks the schema (naming the
// file, the entry and the field).
func Load(overridePath string) (*Catalog, error) {
	c, err := Default()
	if err != nil || overridePath == "" {
		return c, err
	}
	data, err := os.ReadFile(overridePath)
	if err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	if err := c.Merge(data, overridePath); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *Catalog) clone() *Catalog {
	return &Catalog{GPUs: slices.Clone(c.GPUs), Models: slices.Clone(c.Models)}
}

// GPU returns the GPU named name (exact match) and whether the catalog has it. A nil
// catalog has none.
func (c *Catalog) GPU(name string) (GPU, bool) { return find(c.gpus(), name, false) }

// GPUFold is GPU ignoring case, for free-text names such as report.gpu.
func (c *Catalog) GPUFold(name string) (GPU, bool) { return find(c.gpus(), name, true) }

// Model returns the model named name (exact match) and whether the catalog has it. A
// nil catalog has none.
func (c *Catalog) Model(name string) (Model, bool) { return find(c.models(), name, false) }

// ModelFold is Model ignoring case, for free-text names such as target.model.
func (c *Catalog) ModelFold(name string) (Model, bool) { return find(c.models(), name, true) }

// Names lists the GPU and model names, in catalog order.
func (c *Catalog) Names() (gpus, models []string) {
	for _, g := range c.gpus() {
		gpus = append(gpus, g.Name)
	}
	for _, m := range c.models() {
		models = append(models, m.Name)
	}
	return gpus, models
}

func (c *Catalog) gpus() []GPU {
	if c == nil {
		return nil
	}
	return c.GPUs
}

func (c *Catalog) models() []Model {
	if c == nil {
		return nil
	}
	return c.Models
}

func find[T interface{ entryName() string }](list []T, name string, fold bool) (T, bool) {
	for _, e := range list {
		if n := e.entryName(); n == name || fold && strings.EqualFold(n, name) {
			return e, true
		}
	}
	var zero T
	return zero, false
}

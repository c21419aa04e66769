package sim

import (
	"bytes"
	"fmt"
	"os"

	"gopkg.in/yaml.v3"

	"github.com/llmcap/llmcap/configs"
)

// GPU is one accelerator of the catalog (configs/catalog.yaml).
type GPU struct {
	// Name is the catalog key, e.g. "H100-SXM".
	Name string `yaml:"name" json:"name"`
	// BF16TFLOPS and FP8TFLOPS are the published peak dense tensor TFLOPS (0 = unsupported).
	BF16TFLOPS float64 `yaml:"bf16_tflops" json:"bf16_tflops"`
	FP8TFLOPS  float64 `yaml:"fp8_tflops" json:"fp8_tflops"`
	// HBMGB is the memory capacity in GB (1e9 bytes); HBMTBps its bandwidth in TB/s.
	HBMGB   float64 `yaml:"hbm_gb" json:"hbm_gb"`
	HBMTBps float64 `yaml:"hbm_tbps" json:"hbm_tbps"`
	// InterconnectGBps is the GPU-to-GPU bandwidth per GPU in GB/s (NVLink, or PCIe).
	InterconnectGBps float64 `yaml:"interconnect_gbps" json:"interconnect_gbps"`
	// AllReduceLatencyUs is the fixed latency of one all-reduce in microseconds.
	AllReduceLatencyUs float64 `yaml:"allreduce_latency_us" json:"allreduce_latency_us"`
	// Source names the datasheet the figures come from.
	Source string `yaml:"source" json:"source"`
}

// Model is one model architecture of the catalog.
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
	WeightGB float64 `yaml:"weight_gb,omitempty" json:"weight_gb,omitempty"`
	// Experts and ExpertsPerToken describe a mixture-of-experts model (0 = dense).
	Experts         int `yaml:"experts,omitempty" json:"experts,omitempty"`
	ExpertsPerToken int `yaml:"experts_per_token,omitempty" json:"experts_per_token,omitempty"`
	// MaxModelLen is the context limit in tokens (prompt + output).
	MaxModelLen int `yaml:"max_model_len" json:"max_model_len"`
	// Source names the config.json or model card the figures come from.
	Source string `yaml:"source" json:"source"`
}

// WeightBytes returns the bytes of all weights (WeightGB when set, else Params × DTypeBytes).
func (m Model) WeightBytes() float64 {
	if m.WeightGB > 0 {
		return m.WeightGB * 1e9
	}
	return m.Params * m.DTypeBytes
}

// Catalog is the set of GPUs and models the simulator knows.
type Catalog struct {
	GPUs   []GPU   `yaml:"gpus" json:"gpus"`
	Models []Model `yaml:"models" json:"models"`
}

// LoadCatalog returns the embedded catalog, with the entries of the YAML file at path (if
// path is not empty) replacing embedded entries of the same name and adding new ones.
func LoadCatalog(path string) (Catalog, error) {
	var c Catalog
	if err := decodeCatalog(configs.Catalog, &c); err != nil {
		return c, fmt.Errorf("embedded catalog: %w", err)
	}
	if path == "" {
		return c, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return c, fmt.Errorf("catalog: %w", err)
	}
	var o Catalog
	if err := decodeCatalog(data, &o); err != nil {
		return c, fmt.Errorf("catalog %s: %w", path, err)
	}
	for _, g := range o.GPUs {
		if i := c.gpuIndex(g.Name); i >= 0 {
			c.GPUs[i] = g
		} else {
			c.GPUs = append(c.GPUs, g)
		}
	}
	for _, m := range o.Models {
		if i := c.modelIndex(m.Name); i >= 0 {
			c.Models[i] = m
		} else {
			c.Models = append(c.Models, m)
		}
	}
	return c, nil
}

func decodeCatalog(data []byte, c *Catalog) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	return dec.Decode(c)
}

func (c Catalog) gpuIndex(name string) int {
	for i, g := range c.GPUs {
		if g.Name == name {
			return i
		}
	}
	return -1
}

func (c Catalog) modelIndex(name string) int {
	for i, m := range c.Models {
		if m.Name == name {
			return i
		}
	}
	return -1
}

// GPU returns the GPU named name, or an error listing the known names.
func (c Catalog) GPU(name string) (GPU, error) {
	if i := c.gpuIndex(name); i >= 0 {
		return c.GPUs[i], c.GPUs[i].validate()
	}
	names := make([]string, len(c.GPUs))
	for i, g := range c.GPUs {
		names[i] = g.Name
	}
	return GPU{}, fmt.Errorf("unknown GPU %q (catalog has %v)", name, names)
}

// Model returns the model named name, or an error listing the known names.
func (c Catalog) Model(name string) (Model, error) {
	if i := c.modelIndex(name); i >= 0 {
		return c.Models[i], c.Models[i].validate()
	}
	names := make([]string, len(c.Models))
	for i, m := range c.Models {
		names[i] = m.Name
	}
	return Model{}, fmt.Errorf("unknown model %q (catalog has %v)", name, names)
}

func (g GPU) validate() error {
	if g.BF16TFLOPS <= 0 || g.HBMGB <= 0 || g.HBMTBps <= 0 {
		return fmt.Errorf("GPU %q: bf16_tflops, hbm_gb and hbm_tbps must be > 0", g.Name)
	}
	return nil
}

func (m Model) validate() error {
	if m.Params <= 0 || m.ActiveParams <= 0 || m.Layers <= 0 || m.Hidden <= 0 ||
		m.Heads <= 0 || m.KVHeads <= 0 || m.HeadDim <= 0 || m.DTypeBytes <= 0 {
		return fmt.Errorf("model %q: params, active_params, layers, hidden, heads, kv_heads, head_dim and dtype_bytes must be > 0", m.Name)
	}
	if m.Experts > 0 && (m.ExpertsPerToken <= 0 || m.ExpertsPerToken > m.Experts) {
		return fmt.Errorf("model %q: experts_per_token must be in [1, experts]", m.Name)
	}
	return nil
}

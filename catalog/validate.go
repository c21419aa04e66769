package catalog

import "fmt"

// Validate checks the figures a roofline needs of g: bf16_tflops, hbm_gb and hbm_tbps
// > 0, and no negative fp8_tflops, interconnect_gbps, allreduce_latency_us or
// price_usd_per_hour. The error names the file, the entry and the first bad field.
func (g GPU) Validate() error {
	for _, f := range []struct {
		name     string
		v        float64
		positive bool
	}{
		{"bf16_tflops", g.BF16TFLOPS, true}, {"hbm_gb", g.HBMGB, true}, {"hbm_tbps", g.HBMTBps, true},
		{"fp8_tflops", g.FP8TFLOPS, false}, {"interconnect_gbps", g.InterconnectGBps, false},
		{"allreduce_latency_us", g.AllReduceLatencyUs, false}, {"price_usd_per_hour", g.PriceUSDPerHour, false},
	} {
		if err := checkValue(f.v, f.positive); err != nil {
			return fmt.Errorf("catalog %s: GPU %q: field %s %w", orUnknown(g.File), g.Name, f.name, err)
		}
	}
	return nil
}

// Validate checks the figures a roofline needs of m: params, active_params, layers,
// hidden, heads, kv_heads, head_dim and dtype_bytes > 0, no negative weight_gb or
// max_model_len, and for an MoE (experts > 0) experts_per_token in [1, experts]. The
// error names the file, the entry and the first bad field.
func (m Model) Validate() error {
	for _, f := range []struct {
		name     string
		v        float64
		positive bool
	}{
		{"params", m.Params, true}, {"active_params", m.ActiveParams, true}, {"layers", float64(m.Layers), true},
		{"hidden", float64(m.Hidden), true}, {"heads", float64(m.Heads), true}, {"kv_heads", float64(m.KVHeads), true},
		{"head_dim", float64(m.HeadDim), true}, {"dtype_bytes", m.DTypeBytes, true},
		{"weight_gb", m.WeightGB, false}, {"max_model_len", float64(m.MaxModelLen), false}, {"experts", float64(m.Experts), false},
	} {
		if err := checkValue(f.v, f.positive); err != nil {
			return fmt.Errorf("catalog %s: model %q: field %s %w", orUnknown(m.File), m.Name, f.name, err)
		}
	}
	if m.Experts > 0 && (m.ExpertsPerToken <= 0 || m.ExpertsPerToken > m.Experts) {
		return fmt.Errorf("catalog %s: model %q: field experts_per_token must be in [1, experts=%d] (got %d)",
			orUnknown(m.File), m.Name, m.Experts, m.ExpertsPerToken)
	}
	return nil
}

func checkValue(v float64, positive bool) error {
	switch {
	case positive && !(v > 0):
		return fmt.Errorf("must be > 0 (got %g)", v)
	case !positive && !(v >= 0):
		return fmt.Errorf("must be >= 0 (got %g)", v)
	}
	return nil
}

func orUnknown(file string) string {
	if file == "" {
		return "(not from a file)"
	}
	return file
}

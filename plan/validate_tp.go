package plan

import (
	"strconv"
	"strings"
)

// checkTensorParallel requires tensor_parallel to split the simulator model's
// attention as vLLM does: the query heads evenly (heads % tp == 0), and the KV heads
// either evenly (kv_heads % tp == 0) or, when tp exceeds them, by whole replicas
// (tp % kv_heads == 0). The shapes come from the embedded catalog and
// target.simulator.catalog (which overrides entries of the same name).
func (s Simulator) checkTensorParallel(ps *problems) {
	tp := s.TensorParallel
	if tp <= 1 || s.Model == "" {
		return
	}
	cat, err := s.catalog()
	if err != nil {
		return // reported by checkCatalogNames or checkFile
	}
	m, ok := cat.Model(s.Model)
	if !ok || m.Heads <= 0 || m.KVHeads <= 0 {
		return // an unknown model is reported by checkCatalogNames
	}
	const path = "target.simulator.tensor_parallel"
	if m.Heads%tp != 0 {
		ps.add(path, tp, "must divide model %s's %d attention heads (valid: %s)", m.Name, m.Heads, divisorsText(m.Heads, m.KVHeads))
		return
	}
	if m.KVHeads%tp != 0 && tp%m.KVHeads != 0 {
		ps.add(path, tp, "must divide model %s's %d KV heads or be a multiple of them (valid: %s)", m.Name, m.KVHeads, divisorsText(m.Heads, m.KVHeads))
	}
}

// divisorsText lists the valid tensor-parallel degrees up to heads, e.g. "1, 2, 4 or 8".
func divisorsText(heads, kvHeads int) string {
	var ok []int
	for tp := 1; tp <= heads && len(ok) < 8; tp++ {
		if heads%tp == 0 && (kvHeads%tp == 0 || tp%kvHeads == 0) {
			ok = append(ok, tp)
		}
	}
	var b strings.Builder
	for i, v := range ok {
		switch {
		case i == 0:
		case i == len(ok)-1:
			b.WriteString(" or ")
		default:
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(v))
	}
	return b.String()
}

package profiles

import (
	"sort"
	"strings"

	"github.com/llmcap/llmcap/rundir"
)

// Kernel classes of Classify, in report order.
const (
	ClassGEMM          = "gemm"
	ClassAttention     = "attention"
	ClassCommunication = "communication"
	ClassNormAct       = "norm_activation"
	ClassMemory        = "memory"
	ClassOther         = "other"
)

// Classes lists every kernel class in report order.
var Classes = []string{ClassGEMM, ClassAttention, ClassCommunication, ClassNormAct, ClassMemory, ClassOther}

// classRules are checked in order against the lower-cased kernel name; the first class
// with a matching substring wins. Order matters: NCCL and attention kernels are often
// built from CUTLASS templates (fmha_cutlassF…), so they are tested before GEMM, and
// vLLM's KV-cache writes (reshape_and_cache) before attention's "cache".
var classRules = []struct {
	class string
	subs  []string
}{
	{ClassCommunication, []string{"nccl", "cross_device_reduce", "all_reduce", "allreduce", "all_gather",
		"allgather", "reduce_scatter", "reducescatter", "alltoall", "all_to_all", "custom_ar", "one_shot_all"}},
	{ClassMemory, []string{"memcpy", "memset", "copy_kernel", "copykernel", "reshape_and_cache",
		"concat_and_cache", "copy_blocks", "swap_blocks", "[cuda mem"}},
	{ClassAttention, []string{"flash_fwd", "flash_bwd", "flash::", "flashattn", "flash_attn", "flashinfer",
		"paged_attention", "pagedattention", "fmha", "xformers", "attention", "mha_", "mla_", "decode_attention",
		"batchprefill", "batchdecode", "merge_attn_states", "cutlass_mla", "sdpa", "flash_fprop", "flash_bprop"}},
	{ClassNormAct, []string{"rms_norm", "rmsnorm", "layer_norm", "layernorm", "silu_and_mul", "act_and_mul",
		"gelu", "silu", "swiglu", "geglu", "softmax", "rotary_embedding", "batch_norm", "group_norm"}},
	{ClassGEMM, []string{"gemm", "gemv", "cutlass", "xmma", "cublas", "nvjet", "wgmma", "splitkreduce",
		"marlin", "matmul", "s16816", "s1688", "hmma", "dot_kernel", "deep_gemm", "scaled_mm"}},
}

// Classify returns the class of a kernel (or GPU operation) name: ClassGEMM (cutlass,
// sm90_xmma_gemm, ampere_*gemm*, cuBLAS nvjet, gemv), ClassAttention (flash-attention,
// FlashInfer, vLLM paged_attention, fmha, xformers, cuDNN SDPA), ClassCommunication (NCCL,
// vLLM's custom all-reduce), ClassNormAct (RMSNorm, LayerNorm, SiLU-and-mul, GELU,
// softmax, rotary embedding), ClassMemory (memcpy/memset, copy kernels, KV-cache
// writes) or ClassOther.
func Classify(name string) string {
	n := strings.ToLower(name)
	for _, r := range classRules {
		for _, s := range r.subs {
			if strings.Contains(n, s) {
				return r.class
			}
		}
	}
	return ClassOther
}

// KernelRow is one kernel's total GPU time in a capture: one element of kernels.json
// (rundir owns the file type).
type KernelRow = rundir.KernelRow

// KernelRows merges stats rows by name, classifies them and computes each one's share
// of the total, largest first.
func KernelRows(rows []StatRow) []KernelRow {
	merged := MergeByName(rows)
	var total int64
	for _, r := range merged {
		total += r.TotalNs
	}
	out := make([]KernelRow, 0, len(merged))
	for _, r := range merged {
		k := KernelRow{Name: r.Name, Class: Classify(r.Name), TotalTimeNs: r.TotalNs, Instances: r.Count}
		if total > 0 {
			k.Share = float64(r.TotalNs) / float64(total)
		}
		out = append(out, k)
	}
	return out
}

// ClassShares sums kernel shares by class (every class of Classes present, zero when
// absent); the shares add up to 1 when there is any GPU time.
func ClassShares(rows []KernelRow) map[string]float64 {
	m := make(map[string]float64, len(Classes))
	for _, c := range Classes {
		m[c] = 0
	}
	for _, r := range rows {
		m[r.Class] += r.Share
	}
	return m
}

// TopClasses returns the classes ordered by share, largest first (ties in report order).
func TopClasses(shares map[string]float64) []string {
	out := append([]string(nil), Classes...)
	sort.SliceStable(out, func(a, b int) bool { return shares[out[a]] > shares[out[b]] })
	return out
}

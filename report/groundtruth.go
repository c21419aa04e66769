package report

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// groundTruthFirst name the simulator settings people look up first, in the order the
// ground-truth table lists them; every other key follows in alphabetical order.
var groundTruthFirst = []string{"gpu", "model", "tp", "max_num_seqs", "max_num_batched_tokens",
	"kv_cache_blocks", "kv_cache_tokens", "block_size", "gpu_memory_utilization", "weight_bytes",
	"kv_bytes_per_token", "max_model_len", "prefill_ms_1k_tokens", "decode_ms_per_token_single",
	"decode_ms_by_batch_ctx1024"}

// groundTruthRows turns the simulator's resolved settings (analysis.json ground_truth,
// free-form JSON values) into setting/value rows with human units: bytes in GB/MB/kB
// (with the binary size), *_ms in ms, TB/s, TFLOPS, per-batch maps as "batch N: x ms".
func groundTruthRows(gt map[string]any) []keyValue {
	var keys []string
	for _, k := range groundTruthFirst {
		if _, ok := gt[k]; ok {
			keys = append(keys, k)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(gt)) {
		if !slices.Contains(groundTruthFirst, k) {
			keys = append(keys, k)
		}
	}
	out := make([]keyValue, 0, len(keys))
	for _, k := range keys {
		out = append(out, keyValue{Key: k, Value: groundTruthValue(k, gt[k])})
	}
	return out
}

// groundTruthValue formats one setting's value according to its key's unit suffix.
func groundTruthValue(key string, v any) string {
	switch x := v.(type) {
	case map[string]any:
		return batchMapText(key, x)
	case map[string]float64:
		m := make(map[string]any, len(x))
		for k, f := range x {
			m[k] = f
		}
		return batchMapText(key, m)
	case bool:
		if x {
			return "yes"
		}
		return "no"
	case string:
		return x
	case []any:
		parts := make([]string, 0, len(x))
		for _, e := range x {
			parts = append(parts, groundTruthValue("", e))
		}
		return strings.Join(parts, ", ")
	}
	f, ok := toFloat(v)
	if !ok {
		return fmt.Sprint(v)
	}
	return unitText(key, f)
}

// unitText formats a number by its key's unit suffix.
func unitText(key string, f float64) string {
	switch {
	case !finite(f):
		return "–"
	case strings.HasSuffix(key, "_bytes_per_token"):
		return bytesText(f) + " per token"
	case strings.HasSuffix(key, "_bytes"):
		return bytesText(f)
	case strings.HasSuffix(key, "_ms_1k_tokens"):
		return ms(f) + " per 1,024 prompt tokens"
	case strings.HasSuffix(key, "_ms") || strings.Contains(key, "_ms_"):
		return ms(f)
	case strings.HasSuffix(key, "_tbps"):
		return auto(f) + " TB/s"
	case strings.HasSuffix(key, "_tflops"):
		return auto(f) + " TFLOPS"
	case key == "speed_up":
		return trimZeros(f) + "×"
	case f == math.Trunc(f) && math.Abs(f) < 1e15:
		return num(f, 0)
	}
	return strconv.FormatFloat(f, 'g', 4, 64)
}

// bytesText is a byte count in decimal units with the binary size alongside
// ("16.06 GB (14.96 GiB)"); under 1 kB just the bytes.
func bytesText(b float64) string {
	dec := []struct {
		unit string
		size float64
	}{{"TB", 1e12}, {"GB", 1e9}, {"MB", 1e6}, {"kB", 1e3}}
	bin := []struct {
		unit string
		size float64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}}
	for i, d := range dec {
		if math.Abs(b) >= d.size {
			return fmt.Sprintf("%s %s (%s %s)", trimZeros(b/d.size), d.unit, trimZeros(b/bin[i].size), bin[i].unit)
		}
	}
	return num(b, 0) + " bytes"
}

// trimZeros formats v with two decimals, dropping trailing zeros ("128", "16.06").
func trimZeros(v float64) string {
	s := strconv.FormatFloat(v, 'f', 2, 64)
	return strings.TrimSuffix(strings.TrimRight(strings.TrimRight(s, "0"), "."), ".")
}

// batchMapText formats a map keyed by batch size (e.g. decode_ms_by_batch_ctx1024) as
// "batch 1: 8.04 ms · 8: 8.39 ms · …", keys in numeric order.
func batchMapText(key string, m map[string]any) string {
	keys := slices.Collect(maps.Keys(m))
	slices.SortFunc(keys, func(a, b string) int {
		fa, ea := strconv.ParseFloat(a, 64)
		fb, eb := strconv.ParseFloat(b, 64)
		if ea == nil && eb == nil {
			return cmpFloat(fa, fb)
		}
		return strings.Compare(a, b)
	})
	unitKey := key
	if i := strings.Index(key, "_by_"); i >= 0 {
		unitKey = key[:i] // decode_ms_by_batch… → decode_ms
	}
	parts := make([]string, 0, len(keys))
	for i, k := range keys {
		label := k
		if i == 0 && strings.Contains(key, "_by_batch") {
			label = "batch " + k
		}
		parts = append(parts, label+": "+groundTruthValue(unitKey, m[k]))
	}
	return strings.Join(parts, " · ")
}

// toFloat converts a JSON number (or a Go integer or float) to float64.
func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case float32:
		return float64(x), true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case int32:
		return float64(x), true
	case uint64:
		return float64(x), true
	}
	return 0, false
}

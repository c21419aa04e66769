package analysis

import (
	"fmt"
	"math"
	"strings"
)

// KV cache thresholds for the queue advice: below kvRoomyFrac peak usage (with no
// preemptions) there is room for more running sequences; at kvFullFrac or with
// preemptions the KV cache is the limit.
const (
	kvRoomyFrac = 0.70
	kvFullFrac  = 0.90
)

// kvEvidence is the KV cache peak and preemptions over a segment's scraped steps.
type kvEvidence struct {
	seen        bool
	peak        float64 // 0..1
	preemptions float64
}

func kvOf(steps []StepStats) kvEvidence {
	var e kvEvidence
	for i := range steps {
		if sv := steps[i].Server; sv != nil {
			e.seen = true
			e.peak = math.Max(e.peak, sv.KVCacheUsageMax)
			e.preemptions += sv.Preemptions
		}
	}
	return e
}

// slotsOf returns the running-batch limit: the server's max_num_seqs when known (ground
// truth), else the fitted slots rounded; 0 when neither is known.
func slotsOf(ground map[string]any, f *Fit) (int, string) {
	switch v := ground["max_num_seqs"].(type) {
	case float64:
		if v > 0 {
			return int(v), "max_num_seqs"
		}
	case int:
		if v > 0 {
			return v, "max_num_seqs"
		}
	}
	if f != nil && f.Slots > 0 && f.Slots < maxSlots/2 {
		return int(math.Round(f.Slots)), "fitted"
	}
	return 0, ""
}

// adviceFor says, in plain words, what to do about a segment's bottleneck, using the
// server's KV cache evidence and the slot count when known. device is report.gpu: for
// a CPU server ("2-core CPU") the hardware advice names CPU memory bandwidth and cores,
// not HBM and FLOPS.
func adviceFor(c Capacity, sa *SegmentAnalysis, ground map[string]any, device string) string {
	cpu := deviceNoun(device) == "machine"
	if c.Bottleneck == RegimeErrors {
		return errorsAdvice(c)
	}
	if c.Method == MethodNoData {
		return noDataAdvice(sa.Steps)
	}
	if c.Method == MethodBelowFirstStep && c.FirstStepSaturated {
		return "One replica cannot keep up even with the lowest rate tested, so its requests queue: test lower rates to find what one replica serves within the SLA; more replicas behind a load balancer share the load."
	}
	if c.Method == MethodBelowFirstStep {
		faster := "a faster GPU"
		if cpu {
			faster = "faster hardware (a GPU)"
		}
		s := "The SLA is tighter than this deployment achieves even at the lowest load tested, so more replicas cannot help: relax the SLA, or use " + faster + " or a smaller model."
		if len(sa.Steps) > 0 && sa.Steps[0].Load > 1 {
			s += " Test lower loads too: the lowest tested was " + fmtNum(sa.Steps[0].Load) + "."
		}
		return s
	}
	switch c.Bottleneck {
	case RegimeQueue:
		return queueAdvice(kvOf(sa.Steps), sa.Fit, ground)
	case RegimeDecode:
		if cpu {
			return "Decode is memory-bandwidth bound: on a CPU every token reads the weights from RAM, so a machine with more memory bandwidth (more memory channels, faster DDR) or a GPU, a smaller weight quantisation (e.g. Q4), or fewer concurrent users per replica (more replicas) lower ITL."
		}
		return "Decode is memory-bandwidth bound: a GPU with faster HBM, weight/KV quantisation (FP8/INT4), or smaller batches per replica (more replicas) lower ITL."
	case RegimePrefill:
		if cpu {
			return "Prefill dominates: on a CPU prompt processing is compute bound, so more cores (or a GPU), prompt caching for shared prompts, or shorter prompts lower TTFT."
		}
		return "Prefill dominates: enable chunked prefill and tune max_num_batched_tokens, use prefix caching for shared prompts, or a GPU with more FLOPS; consider disaggregated prefill."
	}
	if c.ClientLimited && (c.Method == MethodAtLeast || c.Method == MethodModel) {
		return "The load generator's own limit (ladder.max_concurrency, or the client machine) held requests back before the server reached a bottleneck: raise or remove ladder.max_concurrency (or use a faster client) and rerun to find the server's limit."
	}
	if c.Method == MethodAtLeast || c.Method == MethodModel {
		return "No bottleneck reached within the ladder: extend the ladder to higher loads to find the limit."
	}
	return "No single bottleneck stands out at the capacity point: compare TTFT and ITL across the steps."
}

// queueAdvice advises on a queue (admission) bottleneck from the KV cache evidence.
func queueAdvice(kv kvEvidence, f *Fit, ground map[string]any) string {
	n, src := slotsOf(ground, f)
	slots := "the running batch"
	if n > 0 {
		slots = fmt.Sprintf("the %d slots the server runs at once (%s)", n, "max_num_seqs")
		if src == "fitted" {
			slots = fmt.Sprintf("the about %d slots the server runs at once (fitted; its max_num_seqs)", n)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Requests wait for one of %s. ", slots)
	switch {
	case !kv.seen:
		b.WriteString("No server metrics were scraped, so whether the KV cache has room is unknown: check kv_cache_usage_perc and preemptions; if it has room, raise max_num_seqs, else add replicas behind a load balancer.")
	case kv.peak >= kvFullFrac || kv.preemptions > 0:
		fmt.Fprintf(&b, "The KV cache is the limit (peak %.0f%% full, %.0f preemptions): more HBM or GPUs per replica, a quantised (FP8) KV cache or shorter contexts raise capacity; otherwise add replicas behind a load balancer.",
			100*kv.peak, kv.preemptions)
	case kv.peak < kvRoomyFrac:
		raise := "raising max_num_seqs"
		if n > 0 {
			raise = fmt.Sprintf("raising max_num_seqs above %d", n)
		}
		fmt.Fprintf(&b, "The KV cache peaked at only %.0f%% with no preemptions, so %s is likely safe and would raise capacity before buying more GPUs (watch ITL, which grows with the batch); beyond that, add replicas behind a load balancer.",
			100*kv.peak, raise)
	default:
		fmt.Fprintf(&b, "The KV cache peaked at %.0f%% with no preemptions: a modest rise of max_num_seqs may help (watch for preemptions); beyond that, add replicas behind a load balancer.",
			100*kv.peak)
	}
	return b.String()
}

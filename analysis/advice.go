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

// kvEvidence is the KV cache peak and preemptions over a segment's steps whose KV
// cache gauge was scraped (seen is false when none was).
type kvEvidence struct {
	scraped     bool // some step has server metrics
	seen        bool
	peak        float64 // 0..1
	preemptions float64
}

// kvPeakWords says how full a roomy KV cache got (peak usage, a fraction): "peaked at
// only 42% full", or "stayed under 1% full" for a cache that stayed (almost) empty,
// never "0%".
func kvPeakWords(f float64) string {
	if 100*f < 0.5 {
		return "stayed under 1% full"
	}
	return fmt.Sprintf("peaked at only %.0f%% full", 100*f)
}

func kvOf(steps []StepStats) kvEvidence {
	var e kvEvidence
	for i := range steps {
		sv := steps[i].Server
		e.scraped = e.scraped || sv != nil
		if sv != nil && (sv.kvKnown() || sv.Preemptions > 0) {
			e.seen = true
			e.peak = math.Max(e.peak, sv.KVCacheUsageMax)
			e.preemptions += sv.Preemptions
		}
	}
	return e
}

// slotCount is the running-batch limit the queue advice names: n requests (0 unknown)
// and how it is known.
type slotCount struct {
	n    int
	kind slotKind
	// setting is the configured setting and its source (slotConfigured).
	setting string
}

// slotKind says where a slot count comes from.
type slotKind int

const (
	slotUnknown    slotKind = iota
	slotConfigured          // the engine's configured limit (run.json, target.launch)
	slotPlateau             // the running plateau the server reported
	slotFitted              // the queueing model's fitted slots
)

// slotsOf is the running-batch limit of a segment for the advice: the configured one
// (the simulator's max_num_seqs, a launch flag), else the running plateau the server
// reported, else the fitted slots rounded.
func slotsOf(dep deployment, sa *SegmentAnalysis) slotCount {
	if dep.runLimit > 0 {
		return slotCount{n: dep.runLimit, kind: slotConfigured, setting: dep.runLimitSetting + ", from " + dep.runLimitFrom}
	}
	if p, _ := runningPlateau(sa.Steps); p > 0 {
		return slotCount{n: int(math.Round(p)), kind: slotPlateau}
	}
	if f := sa.Fit; f != nil && f.Slots > 0 && f.Slots < maxSlots/2 {
		return slotCount{n: int(math.Round(f.Slots)), kind: slotFitted}
	}
	return slotCount{}
}

// adviceFor says, in plain words, what to do about a segment's bottleneck, in the
// settings of the detected engine (dep), using the server's KV cache evidence and the
// slot count when known. device is report.gpu: for a CPU server ("2-core CPU") the
// hardware advice names CPU memory bandwidth and cores, not HBM and FLOPS.
func adviceFor(c Capacity, sa *SegmentAnalysis, dep deployment, device string) string {
	cpu := deviceNoun(device) == "machine"
	if w, ok := causeAdvice(sa.Steps); ok { // a hung server or an undetermined step: not the SLA's fault
		return w
	}
	if c.Bottleneck == RegimeErrors {
		return errorsAdvice(c, sa.Steps, dep.target)
	}
	if c.Method == MethodNoData {
		return noDataAdvice(sa.Steps)
	}
	if c.Method == MethodBelowFirstStep && c.FirstStepSaturated {
		one, many := ladderWords(stepsSchedule(sa.Steps))
		return "One replica cannot keep up even with the lowest " + one + " tested, so its requests queue: test lower " + many +
			" to find what one replica serves within the SLA; more replicas behind a load balancer share the load."
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
	k := knobsOf(dep.engine)
	switch c.Bottleneck {
	case RegimeQueue:
		return queueAdvice(c.QueueLimit, kvOf(sa.Steps), slotsOf(dep, sa), k, deviceNoun(device))
	case RegimeDecode:
		return decodeAdvice(k, cpu)
	case RegimePrefill:
		return prefillAdvice(k, cpu)
	}
	if c.ClientLimited && (c.Method == MethodAtLeast || c.Method == MethodModel) {
		return "The load generator's own limit (ladder.max_concurrency, or the client machine) held requests back before the server reached a bottleneck: raise or remove ladder.max_concurrency (or use a faster client) and rerun to find the server's limit."
	}
	if c.Method == MethodAtLeast || c.Method == MethodModel {
		if sa.Search != nil {
			return "No bottleneck reached within the search: raise ladder.search.max to find the limit."
		}
		return "No bottleneck reached within the ladder: extend the ladder to higher loads to find the limit."
	}
	return "No single bottleneck stands out at the capacity point: compare TTFT and ITL across the steps."
}

// decodeAdvice advises on a decode bottleneck: ITL grows with the running batch while
// nothing waits for a slot, so more slots cannot help; a cheaper decode step can.
func decodeAdvice(k engineKnobs, cpu bool) string {
	if cpu {
		return "Decode binds: ITL grows with the running batch while no request waits for a slot, so more slots would not help. On a CPU every token reads the weights from RAM, so a machine with more memory bandwidth (more memory channels, faster DDR) or a GPU, " +
			k.quant + ", or fewer concurrent users per replica (more replicas) lower ITL."
	}
	ways := []string{k.quant, k.parallel}
	if k.spec != "" {
		ways = append(ways, k.spec)
	}
	ways = append(ways, "a GPU with faster memory (HBM bandwidth)")
	return "Decode binds: ITL grows with the running batch while no request waits for a slot, so more slots would not help. Make each decode step cheaper with " +
		orList(ways) + "; or serve fewer users per replica (more replicas behind a load balancer)."
}

// prefillAdvice advises on a prefill bottleneck: TTFT grows with the prompt tokens in
// flight while slots are free.
func prefillAdvice(k engineKnobs, cpu bool) string {
	if cpu {
		return "Prefill binds: TTFT grows with the prompt tokens in flight while slots are free. On a CPU prompt processing is compute bound, so more cores (or a GPU), " +
			k.prefix + ", or shorter prompts lower TTFT."
	}
	ways := []string{k.chunk, k.prefix}
	if k.disagg != "" {
		ways = append(ways, k.disagg)
	}
	ways = append(ways, "a GPU with more FLOPS", "shorter prompts")
	return "Prefill binds: TTFT grows with the prompt tokens in flight while slots are free, so more slots would not help. Lower it with " + orList(ways) + "."
}

// orList joins phrases as "a, b, c or d".
func orList(xs []string) string {
	switch len(xs) {
	case 0:
		return ""
	case 1:
		return xs[0]
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " or " + xs[len(xs)-1]
}

// queueAdvice advises on a queue (admission) bottleneck from what holds it (limit,
// else the KV cache evidence), in the engine's settings; unit is what a replica runs
// on ("GPU", or "machine" for a CPU server), named in "before buying more GPUs".
func queueAdvice(limit QueueLimit, kv kvEvidence, sc slotCount, k engineKnobs, unit string) string {
	slots := "the running batch"
	switch sc.kind {
	case slotConfigured:
		slots = fmt.Sprintf("the %d slots the server runs at once (%s)", sc.n, sc.setting)
	case slotPlateau:
		slots = fmt.Sprintf("the about %d requests the server ran at once at most (its running plateau; %s)", sc.n, k.slots)
	case slotFitted:
		slots = fmt.Sprintf("the about %d slots the server runs at once (fitted; its %s)", sc.n, k.slots)
		if strings.HasPrefix(k.slots, "the ") {
			slots = fmt.Sprintf("the about %d slots the server runs at once (fitted)", sc.n)
		}
	}
	raise := "raising " + k.slots
	if sc.n > 0 {
		raise = fmt.Sprintf("raising %s above %d", k.slots, sc.n)
	}
	where := ""
	if k.slotsWhere != "" {
		where = fmt.Sprintf(" (%s)", k.slotsWhere)
	}
	note := ""
	if k.slotsNote != "" {
		note = " Note: " + k.slotsNote + "."
	}
	var b strings.Builder
	kvLimit := limit == QueueByKVCache || (limit == QueueLimitUnknown && kv.seen && (kv.peak >= kvFullFrac || kv.preemptions > 0))
	if kvLimit {
		b.WriteString("Requests wait for room in the KV cache, not for a slot. ")
	} else {
		fmt.Fprintf(&b, "Requests wait for one of %s. ", slots)
	}
	switch {
	case kvLimit:
		fmt.Fprintf(&b, "The KV cache is the limit (peak %.0f%% full, %.0f preemptions), so %s would not help: %s, %s, %s or %s raise capacity; otherwise add replicas behind a load balancer.",
			100*kv.peak, kv.preemptions, raise, k.kvMemory, k.kvQuant, k.context, k.parallel)
	case !kv.seen:
		what := "No server metrics were scraped"
		if kv.scraped {
			what = "The server's metrics have no KV-cache usage"
		}
		fmt.Fprintf(&b, "%s, so whether the KV cache has room is unknown: check %s; if it has room, raise %s%s, else add replicas behind a load balancer.%s",
			what, k.kvMetric, k.slots, where, note)
	case kv.peak < kvRoomyFrac:
		fmt.Fprintf(&b, "The KV cache %s with no preemptions, so %s is likely safe%s and would raise capacity before buying more %ss (watch ITL, which grows with the batch); beyond that, add replicas behind a load balancer.%s",
			kvPeakWords(kv.peak), raise, where, unit, note)
	default:
		fmt.Fprintf(&b, "The KV cache peaked at %.0f%% with no preemptions: a modest rise of %s%s may help (watch for preemptions); beyond that, add replicas behind a load balancer.%s",
			100*kv.peak, k.slots, where, note)
	}
	return b.String()
}

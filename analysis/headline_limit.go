package analysis

import (
	"fmt"

	"github.com/llmcap/llmcap/plan"
)

// limitWords says what limits capacity c in plain words: the queue for the server's
// slots or memory, slower streaming as the batch grows, long prompts, failing
// requests; or, when no load broke the SLA, that no limit was reached (and what the
// highest load already shows, so "no limit" and the top step's regime tell one story).
func limitWords(a *Analysis, c Capacity, sa *SegmentAnalysis, dep deployment) string {
	switch {
	case a.Schedule == plan.ScheduleTrace:
		return "The replayed trace did not push the server to its limit."
	case c.Method == MethodNoData:
		return "Nothing could be measured, so no limit is known."
	case c.Bottleneck == RegimeErrors && c.cause == causeHung:
		return "Beyond this load requests hang: the server looks stuck, not busy."
	case c.Bottleneck == RegimeErrors:
		if ct, ok := dominantTimeout(sa.Steps, dep.target); ok {
			return "Beyond this load too many requests fail: most run past the test's own " + ct.plain +
				" (" + durationWords(ct.limit) + "), not a server error."
		}
		return "Beyond this load too many requests fail."
	case c.Method == MethodBelowFirstStep && c.FirstStepSaturated:
		one, _ := ladderWords(stepsSchedule(sa.Steps))
		return "Even the lowest " + one + " tested is more than one server keeps up with, so requests wait in line."
	case c.Method == MethodBelowFirstStep:
		return "The SLA is stricter than this deployment's response time even when it is nearly idle."
	case c.Method == MethodAtLeast || c.Method == MethodModel:
		return noLimitWords(c, sa)
	}
	return regimeWords(c.Bottleneck, c.QueueLimit, sa, dep)
}

// regimeWords is what a regime means for the user: why the answers get slow.
func regimeWords(r Regime, limit QueueLimit, sa *SegmentAnalysis, dep deployment) string {
	switch r {
	case RegimeQueue:
		kv := kvOf(sa.Steps)
		if limit == QueueByKVCache || (limit == QueueLimitUnknown && kv.seen && (kv.peak >= kvFullFrac || kv.preemptions > 0)) {
			return "Requests wait in line for memory on the server: the memory that holds the conversations in progress is full."
		}
		if sc := slotsOf(dep, sa); sc.n > 0 {
			return fmt.Sprintf("Requests wait in line for one of the server's %d slots (it works on %d requests at once); the wait before the first word grows.", sc.n, sc.n)
		}
		return "Requests wait in line for a free slot on the server; the wait before the first word grows."
	case RegimeDecode:
		return "Answers stream more slowly as more requests share the hardware: the time between words breaks the SLA first."
	case RegimePrefill:
		return "Reading the prompts takes the hardware's time: the wait before the first word grows with the prompt text in progress."
	}
	return "No single cause stands out at the capacity point."
}

// noLimitWords says that no load broke the SLA, and what the highest load already
// shows when its regime is named (the limit that is likely next).
func noLimitWords(c Capacity, sa *SegmentAnalysis) string {
	s := "No limit was reached: every load tested met the SLA."
	if c.ClientLimited {
		s = "No server limit was reached: the load generator's own limit held requests back first."
	}
	if n := len(sa.Steps); n > 0 {
		switch sa.Steps[n-1].Regime {
		case RegimeQueue:
			s += " At the highest load requests already wait in line for the server, so the limit is probably not far above."
		case RegimeDecode:
			s += " At the highest load answers already stream more slowly, so the limit is probably not far above."
		case RegimePrefill:
			s += " At the highest load the prompts already slow the first word, so the limit is probably not far above."
		}
	}
	return s
}

// actionWords says what to do in plain words (the engine settings are in Advice).
func actionWords(a *Analysis, c Capacity, sa *SegmentAnalysis, dep deployment, cpu bool) string {
	faster := "a faster GPU"
	if cpu {
		faster = "faster hardware (a GPU)"
	}
	switch {
	case a.Schedule == plan.ScheduleTrace:
		return "Replay the trace faster to find the limit."
	case c.Method == MethodNoData || c.cause == causeHung || c.cause == causeUndetermined:
		return c.Advice
	case c.Bottleneck == RegimeErrors:
		if ct, ok := dominantTimeout(sa.Steps, dep.target); ok {
			return "Allow requests more than " + durationWords(ct.limit) + " if the SLA accepts answers that long, and test again: " +
				"the failures are the test's own " + ct.plain + ", so the server may serve more."
		}
		return "Fix the failing requests first: a capacity is not trustworthy while requests fail."
	case c.Method == MethodBelowFirstStep && c.FirstStepSaturated:
		return "Test lower loads to find what one server handles; more servers behind a load balancer share the load."
	case c.Method == MethodBelowFirstStep:
		return "Relax the SLA, or use " + faster + " or a smaller model: more servers cannot make one answer faster."
	case c.ClientLimited && (c.Method == MethodAtLeast || c.Method == MethodModel):
		return "Raise the load generator's limit and test again to find the server's own limit."
	case c.Method == MethodAtLeast || c.Method == MethodModel:
		return "Test higher loads to find the real limit; until then this number is safe to plan with."
	}
	return regimeAction(c.Bottleneck, c.QueueLimit, sa, dep, cpu)
}

// regimeAction is the plain action for a binding regime.
func regimeAction(r Regime, limit QueueLimit, sa *SegmentAnalysis, dep deployment, cpu bool) string {
	more := "add more servers behind a load balancer"
	switch r {
	case RegimeQueue:
		kv := kvOf(sa.Steps)
		switch {
		case limit == QueueByKVCache || (limit == QueueLimitUnknown && kv.seen && (kv.peak >= kvFullFrac || kv.preemptions > 0)):
			return "Give the server more memory for conversations (a GPU with more memory, a quantized model or shorter contexts), or " + more + "."
		case !kv.seen:
			return "Check whether the server's memory has room for more requests at once: if it has, let it work on more at once; if not, " + more + "."
		case kv.peak < kvRoomyFrac:
			return fmt.Sprintf("Let the server work on more requests at once (its memory for conversations %s, so there is room) before buying more hardware; beyond that, %s.", kvPeakWords(kv.peak), more)
		}
		return "A modest rise in how many requests the server works on at once may help; beyond that, " + more + "."
	case RegimeDecode:
		if cpu {
			return "Serve fewer users per machine (" + more + "), or use a machine with faster memory or a GPU."
		}
		return "Serve fewer users per server (" + more + "), or make each word cheaper to generate: a quantized model or a GPU with faster memory."
	case RegimePrefill:
		return "Shorten or reuse prompts (shared prompt prefixes), use hardware with more compute, or " + more + "."
	}
	return "Compare the wait for the first word and the time between words across the loads tested (see Evidence)."
}

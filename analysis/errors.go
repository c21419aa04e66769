package analysis

import (
	"fmt"
	"sort"
	"strings"

	"github.com/llmcap/llmcap/plan"
)

// errorClassCount is one error class and its failed requests.
type errorClassCount struct {
	class string
	n     int
}

// sortedClasses orders classes by count, largest first (ties by name).
func sortedClasses(classes map[string]int) []errorClassCount {
	out := make([]errorClassCount, 0, len(classes))
	for c, n := range classes {
		out = append(out, errorClassCount{c, n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].n != out[j].n {
			return out[i].n > out[j].n
		}
		return out[i].class < out[j].class
	})
	return out
}

// errorBreakdown renders classes as "http_4xx ×18,088: 'The model … does not exist';
// timeout ×3", the dominant class first with its sample message.
func errorBreakdown(classes map[string]int, samples map[string]string) string {
	var parts []string
	for i, c := range sortedClasses(classes) {
		p := fmt.Sprintf("%s ×%s", c.class, commaInt(float64(c.n)))
		if m := samples[c.class]; m != "" && i == 0 {
			p += fmt.Sprintf(": '%s'", m)
		}
		parts = append(parts, p)
		if i == 2 {
			if len(classes) > 3 {
				parts = append(parts, fmt.Sprintf("%d more classes", len(classes)-3))
			}
			break
		}
	}
	return strings.Join(parts, "; ")
}

// errorEvidence describes a step's failures: "100% of requests failed at load 1
// (http_4xx ×18,088: 'The model `gpt-4` does not exist')".
func errorEvidence(s *StepStats) string {
	why := errorBreakdown(s.ErrorClasses, s.ErrorSamples)
	if s.Overdue > 0 {
		o := fmt.Sprintf("overdue ×%s: no token for ≥ %s s, over twice the longest finished request",
			commaInt(float64(s.Overdue)), fmtNum(roundTo(s.OverdueMinWaitMs/1000, 1)))
		why = strings.Trim(o+"; "+why, "; ")
	}
	return fmt.Sprintf("%s of requests failed %s (%s)", pct(s.ErrorRate), stepWhere(s), why)
}

// stepWhere names a step for a sentence: "at load 8", or "in the trace replay" (a
// trace step's load is its achieved rate, 0 when every request failed).
func stepWhere(s *StepStats) string {
	if s.Schedule == plan.ScheduleTrace {
		return "in the trace replay"
	}
	return "at load " + fmtNum(s.Load)
}

// pct renders a fraction as a percentage with at most one decimal ("100%", "9.8%").
func pct(f float64) string { return fmtNum(roundTo(100*f, 1)) + "%" }

func roundTo(x float64, digits int) float64 {
	p := 1.0
	for i := 0; i < digits; i++ {
		p *= 10
	}
	return float64(int64(x*p+0.5)) / p
}

// errorSummaryOf sums the failed measured requests of a run: each segment's own steps
// and the mix's (segments drawn from the mix are not counted twice).
func errorSummaryOf(a *Analysis) ErrorSummary {
	e := ErrorSummary{Classes: map[string]int{}, Samples: map[string]string{}}
	all := append([]SegmentAnalysis(nil), a.Segments...)
	if a.Mix != nil {
		all = append(all, *a.Mix)
	}
	for _, sa := range all {
		if sa.FromMix {
			continue
		}
		for _, s := range sa.Steps {
			e.Requests += s.Requests
			e.Errors += s.Errors
			for c, n := range s.ErrorClasses {
				e.Classes[c] += n
				if _, ok := e.Samples[c]; !ok && s.ErrorSamples[c] != "" {
					e.Samples[c] = s.ErrorSamples[c]
				}
			}
		}
	}
	if e.Requests > 0 {
		e.ErrorRate = float64(e.Errors) / float64(e.Requests)
	}
	if len(e.Classes) == 0 {
		e.Classes = nil
	}
	if len(e.Samples) == 0 {
		e.Samples = nil
	}
	return e
}

// errorsAdvice is the advice when the error-rate bound binds, from the failures of
// steps: when most of them hit one of the client's own timeouts (target, e.g.
// target.request_timeout), that limit and how to raise it; else where to look.
func errorsAdvice(c Capacity, steps []StepStats, target plan.Target) string {
	ct, timedOut := dominantTimeout(steps, target)
	if c.Method == MethodBelowFirstStep {
		if timedOut {
			return "Requests fail already at the lowest load tested: " + c.BottleneckEvidence + "." + timeoutAdvice(ct) +
				"; the latency figures are not meaningful until then."
		}
		return "Requests fail already at the lowest load tested: " + c.BottleneckEvidence +
			". Fix the target (URL, model name, API key, request format) before capacity can be measured; the latency figures are not meaningful until then."
	}
	if timedOut {
		return "Requests fail as load grows: " + c.BottleneckEvidence + "." + timeoutAdvice(ct) +
			"; until then each replica takes only this load, so size with more replicas behind a load balancer."
	}
	return "The server starts failing requests as load grows: " + c.BottleneckEvidence +
		". Check the server log for the cause (rate limiting, timeouts, out-of-memory); until it is fixed each replica takes only this load, so size with more replicas behind a load balancer."
}

// noMeasuredEvidence explains a ladder without measured requests: "no measured requests
// (all 12 requests fell in the warm-up)", or, when the measured requests were all cut
// off when their step ended (unfinished), "no measured request completed (all 3 were
// still waiting for their first token when the step ended)".
func noMeasuredEvidence(steps []StepStats) string {
	warm, cut, noFirst := unmeasuredCounts(steps)
	switch {
	case allSimulatorLate(steps):
		return fmt.Sprintf("every step ran on a starved simulator (iteration lateness p99 above %s ms): no step is "+
			"evidence of the modelled engine", fmtNum(SimLateLimitMs))
	case cut > 0 && noFirst == cut:
		return fmt.Sprintf("no measured request completed (all %s were still waiting for their first token when the step ended)", commaInt(float64(cut)))
	case cut > 0:
		return fmt.Sprintf("no measured request completed (all %s were still in flight when the step ended, %s of them without a first token)",
			commaInt(float64(cut)), commaInt(float64(noFirst)))
	case warm > 0:
		return fmt.Sprintf("no measured requests (all %s requests fell in the warm-up)", commaInt(float64(warm)))
	}
	return "no measured requests"
}

// unmeasuredCounts sums, over steps, the warm-up requests, the requests cancelled at the
// end of the grace period, and those of them that never got a first token.
func unmeasuredCounts(steps []StepStats) (warm, cut, noFirst int) {
	for i := range steps {
		warm += steps[i].WarmupRequests
		cut += steps[i].Unfinished
		noFirst += steps[i].cancelledNoFirst
	}
	return warm, cut, noFirst
}

// noDataAdvice says what to do about a ladder without measured requests, by its cause.
func noDataAdvice(steps []StepStats) string {
	warm, cut, noFirst := unmeasuredCounts(steps)
	switch {
	case allSimulatorLate(steps):
		return "Rerun on a quieter machine (nothing else using its CPUs), or lower target.simulator.speed_up: the simulator needs the CPU on time to model the engine."
	case cut > 0 && noFirst == cut:
		return "The server accepted the requests but never answered them: check that it is up and not stuck (its log), and set target.first_byte_timeout so such requests fail as timeouts instead of waiting out the grace period."
	case cut > 0:
		return "Requests take longer than the window and its grace period: lengthen ladder.duration and ladder.grace, or check the server for stalled streams."
	case warm > 0:
		return "Lengthen the steps (ladder.duration) or shorten the warm-up."
	}
	return "No step has measured requests: nothing to advise on."
}

// speedUpOf returns the simulator's speed_up from run.json's target settings (else the
// plan's simulator settings); 0 when unknown or not a simulator.
func speedUpOf(in *runInputs) float64 {
	if v, ok := in.meta.Target.Settings["speed_up"].(float64); ok && v > 0 {
		return v
	}
	if in.meta.Plan.Target.IsSimulator() {
		return in.meta.Plan.Target.Simulator.SpeedUp
	}
	return 0
}

// speedUpWarning is the warning for a simulator that ran faster than real time.
func speedUpWarning(su float64) string {
	return fmt.Sprintf("the simulator ran %s× faster than real time (speed_up %s): every latency is compressed, so latencies and capacity are not real-time figures; rerun with speed_up 1 for real-time figures",
		fmtNum(su), fmtNum(su))
}

// allSimulatorLate reports whether there are steps and the simulator ran late in all.
func allSimulatorLate(steps []StepStats) bool {
	for i := range steps {
		if !steps[i].SimulatorLate {
			return false
		}
	}
	return len(steps) > 0
}

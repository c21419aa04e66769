package analysis

import (
	"fmt"

	"github.com/llmcap/llmcap/sla"
)

// failCause is why a step failed its SLA, for the answer's and the advice's words: the
// remedy differs — a hung server is checked, not given a looser SLA; an undetermined
// step needs a longer window, not a faster deployment.
type failCause uint8

const (
	// causeSLA: a bound was broken (or the step passed): the usual advice applies.
	causeSLA failCause = iota
	// causeHung: overdue requests (sla.Overdue: no token for more than twice the
	// longest finished one) pushed the error rate over its bound.
	causeHung
	// causeUndetermined: no bound was broken, but unfinished requests left one
	// undetermined (sla.Undetermined).
	causeUndetermined
)

// failCauseOf is why step s failed (causeSLA when it passed or a bound was broken for
// another reason).
func failCauseOf(s *StepStats) failCause {
	if s.MeetsSLA {
		return causeSLA
	}
	broken, undetermined := false, false
	for _, c := range s.verdict.Checks {
		switch {
		case c.Bound.Metric == sla.ErrorRate && c.Failed() && c.Overdue.N > 0 && c.Judged > 0 &&
			float64(s.Errors)/float64(c.Judged) <= c.Bound.Threshold:
			return causeHung
		case c.Outcome == sla.Undetermined:
			undetermined = true
		case c.Failed():
			broken = true
		}
	}
	if undetermined && !broken {
		return causeUndetermined
	}
	return causeSLA
}

// firstFailing is the lowest-load step of steps that fails its SLA (nil when none).
func firstFailing(steps []StepStats) *StepStats {
	for i := range steps {
		if !steps[i].MeetsSLA && (steps[i].Requests > 0 || steps[i].Unfinished > 0) {
			return &steps[i]
		}
	}
	return nil
}

// hungWords says step s's overdue requests and the remedy: "5 requests got no token
// for ≥ 2.1 s, longer than every finished request: the server looks hung — check it,
// or lower target.first_byte_timeout/idle_timeout to fail such requests sooner".
func hungWords(s *StepStats) string {
	return fmt.Sprintf("%s %s got no token for ≥ %s s, longer than every finished request: the server looks hung — "+
		"check it, or lower target.first_byte_timeout/idle_timeout to fail such requests sooner",
		commaInt(float64(s.Overdue)), pluralWord(s.Overdue, "request"), fmtNum(roundTo(s.OverdueMinWaitMs/1000, 1)))
}

// undeterminedWords says that step s is undetermined and the remedy: "the step at load
// 4 is undetermined: 6 requests were still in flight after longer than every finished
// one, so whether ttft p95 ≤ 2000 ms holds is unknown; lengthen ladder.duration or
// ladder.grace to let them finish".
func undeterminedWords(s *StepStats) string {
	what := "the SLA"
	n := s.Unfinished
	for _, c := range s.verdict.Checks {
		if c.Outcome == sla.Undetermined {
			what = fmt.Sprintf("%s %s ≤ %s ms", c.Bound.Metric, c.Bound.Stat, fmtNum(c.Bound.Threshold))
			n = c.Censored
			break
		}
	}
	return fmt.Sprintf("the step %s is undetermined: of its %s unfinished requests some were still in flight after longer than every finished one, "+
		"so whether %s holds is unknown (%s censored); lengthen ladder.duration or ladder.grace to let them finish",
		stepWhere(s), commaInt(float64(s.Unfinished)), what, commaInt(float64(n)))
}

// causeAdvice is the advice for steps whose first failing step failed for a cause
// other than a broken bound (causeHung, causeUndetermined), and whether there is one.
func causeAdvice(steps []StepStats) (string, bool) {
	s := firstFailing(steps)
	if s == nil {
		return "", false
	}
	switch failCauseOf(s) {
	case causeHung:
		return capitalize(stepWhere(s)) + ", " + hungWords(s) + ".", true
	case causeUndetermined:
		return capitalize(undeterminedWords(s)) + ".", true
	}
	return "", false
}

// capacityCause is why a segment's capacity stops where it does: the cause of its
// first failing step (causeSLA when none fails).
func capacityCause(steps []StepStats) failCause {
	if s := firstFailing(steps); s != nil {
		return failCauseOf(s)
	}
	return causeSLA
}

// capitalize upper-cases the first letter of an ASCII sentence.
func capitalize(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

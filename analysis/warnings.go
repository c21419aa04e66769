package analysis

import (
	"fmt"
	"strings"

	"github.com/llmcap/llmcap/plan"
)

// cancelledWarning warns about a step whose measured requests were cut off at the end
// of the grace period (more than 5% of them); "" when none or few were. With some
// completed, the slowest requests are missing and the latencies underestimated; with
// none completed there are no latencies at all.
func cancelledWarning(seg string, s *StepStats) string {
	n := s.Requests + s.Cancelled
	if s.Cancelled == 0 || float64(s.Cancelled) <= 0.05*float64(n) {
		return ""
	}
	head := fmt.Sprintf("segment %s, load %s: %d of %d measured requests were still in flight after the grace period and were cancelled",
		seg, fmtNum(s.Load), s.Cancelled, n)
	if s.ClientLimited {
		return head + ": they were waiting on the client's own limit, not on the server (see the client-limit warning)"
	}
	if s.Requests-s.Errors > 0 {
		if s.Schedule == plan.ScheduleConcurrency {
			head += "; the steady throughput counts them for their time in flight so far, so it is an upper bound"
		}
		return head + "; latencies there are underestimated (lengthen ladder.grace or ladder.duration)"
	}
	if s.cancelledNoFirst == s.Cancelled {
		return head + ", none with a first token: the server did not answer (set target.first_byte_timeout to fail such requests sooner)"
	}
	return head + "; none completed, so there are no latencies (lengthen ladder.grace or ladder.duration)"
}

// fitWarning warns when a segment's model fit means nothing: R² below 0 (the model
// predicts TTFT p95 worse than its mean, often when TTFT hardly varies with load), or no
// step with ITL (a server that does not stream, or 1-token replies), which leaves the
// decode fit at 0 + 0·batch. "" when the fit is usable.
func fitWarning(sa *SegmentAnalysis) string {
	f := sa.Fit
	if f == nil {
		return ""
	}
	var why []string
	if f.R2 < 0 && len(f.Residuals) > 0 {
		why = append(why, fmt.Sprintf("the TTFT fit explains nothing (R² %.2f < 0: it predicts the steps' TTFT p95 worse than their mean does), so its curve is no prediction", f.R2))
	}
	itl := false
	for i := range sa.Steps {
		itl = itl || sa.Steps[i].ITLMs.N > 0
	}
	if !itl && anyMeasured(sa.Steps) {
		why = append(why, "no step has ITL (the server did not stream, or every reply had one token), so decode speed is not measured")
	}
	if len(why) == 0 {
		return ""
	}
	return fmt.Sprintf("segment %s: %s", sa.Segment, strings.Join(why, "; "))
}

// itlNotApplicableWarning says once per segment that its ITL constraints did not apply:
// the SLA has one, some step had successful requests and none of them produced two
// output tokens (ITL is defined for OSL ≥ 2). "" otherwise.
func itlNotApplicableWarning(sa *SegmentAnalysis, cons []plan.Constraint) string {
	var itl *plan.Constraint
	for i := range cons {
		if cons[i].Metric == "itl" {
			itl = &cons[i]
			break
		}
	}
	if itl == nil {
		return ""
	}
	na := false
	for i := range sa.Steps {
		s := &sa.Steps[i]
		if s.itlEligible > 0 {
			return ""
		}
		na = na || notApplicable(s, *itl)
	}
	if !na {
		return ""
	}
	return fmt.Sprintf("ITL SLA not applicable to segment %s: no request produced two tokens (ITL is defined for two output tokens or more)", sa.Segment)
}

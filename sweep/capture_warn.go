package sweep

import (
	"fmt"
	"slices"
	"strings"

	"github.com/llmcap/llmcap/plan"
)

// captureFailedWarning starts run.json's warning about failed profile captures: one
// warning per distinct capture error, naming the steps it hit, e.g.
// "profile capture failed (steps chat c=2, chat c=8): before measure: capture: …".
const captureFailedWarning = "profile capture failed (step"

// noteCapture records a step's capture outcome in run.json's warnings (which reach the
// analysis, the report and the CLI summary): a failure adds the step to the warning of
// its error; a success (msg "") removes the step from any warning an interrupted earlier
// invocation of a resumed run left.
func (rn *runner) noteCapture(st plan.Step, msg string) {
	label := fmt.Sprintf("%s %s", st.Segment, stepLoadLabel(st))
	added := msg == ""
	var out []string
	for _, w := range rn.meta.Warnings {
		steps, wmsg, ok := parseCaptureWarning(w)
		if !ok {
			out = append(out, w)
			continue
		}
		steps = slices.DeleteFunc(steps, func(s string) bool { return s == label })
		if wmsg == msg && !added {
			steps, added = append(steps, label), true
		}
		if len(steps) > 0 {
			out = append(out, captureWarning(steps, wmsg))
		}
	}
	if !added {
		out = append(out, captureWarning([]string{label}, msg))
	}
	rn.meta.Warnings = out
}

func stepLoadLabel(st plan.Step) string {
	if st.Schedule == plan.ScheduleConcurrency {
		return fmt.Sprintf("c=%d", st.Concurrency)
	}
	return fmt.Sprintf("r=%g/s", st.Rate)
}

func captureWarning(steps []string, msg string) string {
	s := "s"
	if len(steps) == 1 {
		s = ""
	}
	return fmt.Sprintf("%s%s %s): %s", captureFailedWarning, s, strings.Join(steps, ", "), msg)
}

// parseCaptureWarning splits a captureWarning into its steps and error message.
func parseCaptureWarning(w string) (steps []string, msg string, ok bool) {
	rest, ok := strings.CutPrefix(w, captureFailedWarning)
	if !ok {
		return nil, "", false
	}
	rest = strings.TrimPrefix(rest, "s")
	list, msg, ok := strings.Cut(strings.TrimPrefix(rest, " "), "): ")
	if !ok {
		return nil, "", false
	}
	return strings.Split(list, ", "), msg, true
}

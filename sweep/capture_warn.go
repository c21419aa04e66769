package sweep

import (
	"fmt"
	"slices"
	"strings"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
)

// noteCapture records a step's capture outcome in run.json's warnings (which reach the
// analysis, the report and the CLI summary): one rundir.WarnCaptureFailed warning per
// distinct capture error, listing the steps it hit. A failure adds the step to the
// warning of its error; a success (msg "") removes the step from any warning an
// interrupted earlier invocation of a resumed run left.
func (rn *runner) noteCapture(st plan.Step, msg string) {
	label := fmt.Sprintf("%s %s", st.Segment, stepLoadLabel(st))
	added := msg == ""
	var out []rundir.Warning
	for _, w := range rn.meta.Warnings {
		if w.Kind != rundir.WarnCaptureFailed || w.Data == nil {
			out = append(out, w)
			continue
		}
		steps := slices.DeleteFunc(slices.Clone(w.Data.Steps), func(s string) bool { return s == label })
		if w.Data.Error == msg && !added {
			steps, added = append(steps, label), true
		}
		if len(steps) > 0 {
			out = append(out, captureWarning(steps, w.Data.Error))
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
	if st.Schedule == plan.ScheduleUsers {
		return fmt.Sprintf("u=%d", st.Users)
	}
	return fmt.Sprintf("r=%g/s", st.Rate)
}

// captureWarning is the run.json warning of the capture error msg at steps, e.g.
// "profile capture failed (steps chat c=2, chat c=8): before measure: capture: …".
func captureWarning(steps []string, msg string) rundir.Warning {
	s := "s"
	if len(steps) == 1 {
		s = ""
	}
	return rundir.Warning{Kind: rundir.WarnCaptureFailed, Step: rundir.RunWide,
		Message: fmt.Sprintf("profile capture failed (step%s %s): %s", s, strings.Join(steps, ", "), msg),
		Data:    &rundir.WarningData{Steps: steps, Error: msg}}
}

package analysis

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/llmcap/llmcap/rundir"
)

// runProgress is how far an incomplete run got: run.json's state, its finished and
// planned steps, and the warning naming the unfinished steps left out.
type runProgress struct {
	state         string // "" for a complete run
	done, planned int
	dropped       int // unfinished steps left out
	warning       string
}

// dropUnfinished removes from an incomplete run (run.json state not complete) the
// records of steps that did not finish: a step is finished when steps.jsonl has its
// line, which the sweep writes only once the step's grace period ended. The
// unfinished step's requests were cut off by the interruption, so its error rate,
// latencies and steady state say nothing about the server. It returns how far the run
// got (zero for a complete run); dir is the run directory, for the resume command.
func dropUnfinished(in *runInputs, dir string) runProgress {
	state := in.meta.State
	if state == "" || state == rundir.StateComplete {
		return runProgress{}
	}
	gone := state == rundir.StateRunning && rundir.SweepGone(dir)
	if gone { // killed (SIGKILL, reboot) before run.json could say interrupted
		state = rundir.StateInterrupted
	}
	rp := runProgress{state: state, done: len(in.steps), planned: max(len(in.meta.Steps), len(in.steps))}
	var keep []*group
	left := map[int]string{}
	for _, g := range in.records.order {
		if _, ok := in.steps[g.key.step]; ok {
			keep = append(keep, g)
		} else if _, ok := left[g.key.step]; !ok {
			left[g.key.step] = unfinishedName(in, g)
		}
	}
	in.records.order = keep
	rp.dropped = len(left)
	rp.warning = fmt.Sprintf("the run is %s after %d of %d steps", state, rp.done, rp.planned)
	if state == rundir.StateRunning {
		rp.warning = fmt.Sprintf("the run is still running: %d of %d steps done so far", rp.done, rp.planned)
	}
	if len(left) > 0 {
		idx := slices.Sorted(maps.Keys(left))
		names := make([]string, len(idx))
		for i, k := range idx {
			names[i] = left[k]
		}
		verb := "were"
		if len(names) == 1 {
			verb = "was"
		}
		rp.warning += fmt.Sprintf("; the unfinished %s %s %s left out (its requests were cut off)",
			pluralWord(len(names), "step"), strings.Join(names, ", "), verb)
	}
	if gone {
		rp.warning += "; run.json says running, but the sweep process is gone"
	}
	if state == rundir.StateInterrupted {
		rp.warning += "; resume it (llmcap sweep --resume " + dir + ") to measure the rest"
	}
	return rp
}

// unfinishedName names an unfinished step: "3 (short, concurrency 4)", numbered from 1
// as the sweep's progress shows it.
func unfinishedName(in *runInputs, g *group) string {
	load := fmt.Sprintf("concurrency %d", g.concurrency)
	switch {
	case g.users > 0:
		load = fmt.Sprintf("%d users", g.users)
	case g.concurrency == 0 && g.rate > 0:
		load = fmt.Sprintf("rate %s req/s", fmtNum(g.rate))
	}
	return fmt.Sprintf("%d (%s, %s)", g.key.step+1, g.key.stepSeg, load)
}

// pluralWord is word, with an s unless n is 1.
func pluralWord(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// incompleteNote is the answer's caveat for a run that did not complete.
func incompleteNote(a *Analysis) string {
	if a.RunState == "" || a.StepsPlanned == 0 {
		return ""
	}
	if a.RunState == rundir.StateRunning {
		return fmt.Sprintf(" Caution: the run is still running (%d of %d steps done); this covers only the finished steps.",
			a.StepsCompleted, a.StepsPlanned)
	}
	return fmt.Sprintf(" Caution: the run was %s after %d of %d steps; this covers only the finished steps.",
		a.RunState, a.StepsCompleted, a.StepsPlanned)
}

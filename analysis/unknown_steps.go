package analysis

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/llmcap/llmcap/rundir"
)

// unknownSteps are the records of a complete run left out because their step is none
// of the run's (dropUnknownSteps): how many records, and the steps' indexes (sorted).
type unknownSteps struct {
	records int
	steps   []int
}

// dropUnknownSteps removes from a complete run (run.json state complete or unset) the
// records of steps the run does not have: steps.jsonl has a line for every step a
// complete sweep measured, so a record of any other step (records.jsonl edited by hand,
// or lines pasted from another run) would become a phantom step. When steps.jsonl is
// absent or empty, run.json's steps are the run's; with neither, nothing is dropped
// (nothing to check against). An incomplete run's records are dropUnfinished's.
func dropUnknownSteps(in *runInputs) unknownSteps {
	if s := in.meta.State; s != "" && s != rundir.StateComplete {
		return unknownSteps{}
	}
	known := map[int]bool{}
	for i := range in.steps {
		known[i] = true
	}
	if len(known) == 0 {
		for _, s := range in.meta.Steps {
			known[s.Index] = true
		}
	}
	if len(known) == 0 {
		return unknownSteps{}
	}
	var out unknownSteps
	left := map[int]bool{}
	keep := in.records.order[:0:0]
	for _, g := range in.records.order {
		if known[g.key.step] {
			keep = append(keep, g)
			continue
		}
		left[g.key.step] = true
		out.records += len(g.idx)
	}
	in.records.order = keep
	out.steps = slices.Sorted(maps.Keys(left))
	return out
}

// unknownStepsWarning says which records were left out by dropUnknownSteps, naming the
// steps counted from 1; Data.File is records.jsonl, Data.Count the records, Data.Steps
// the step numbers.
func unknownStepsWarning(u unknownSteps) Warning {
	nums := make([]string, len(u.steps))
	for i, s := range u.steps {
		nums[i] = strconv.Itoa(s + 1)
	}
	records := "records"
	if u.records == 1 {
		records = "record"
	}
	w := warning(WarnUnknownSteps, "%s: %d %s of %s %s left out: the run has no such step (steps.jsonl does not list it; "+
		"a hand-edited line, or one from another run)", rundir.FileRecords, u.records, records,
		pluralWord(len(nums), "step"), strings.Join(nums, ", "))
	w.Data = &rundir.WarningData{File: rundir.FileRecords, Count: u.records, Steps: nums}
	return w
}

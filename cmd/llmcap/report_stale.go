package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/llmcap/llmcap/rundir"

	"github.com/llmcap/llmcap/analysis"
)

// staleAnalysis says why dir's analysis.json (already read as a) no longer describes
// the run directory, or "" when it is current: it was written in another format than
// this llmcap's (analysis.FormatVersion: an older one has untyped warnings and lacks
// fields the report renders), a run file (records.jsonl, steps.jsonl, run.json, drift.jsonl) was
// modified after analysis.json (e.g. by `llmcap sweep --resume`), or the run state
// recorded in the analysis differs from run.json's.
func staleAnalysis(dir string, a *analysis.Analysis) string {
	st, err := os.Stat(filepath.Join(dir, analysis.FileAnalysis))
	if err != nil {
		return ""
	}
	if a.FormatVersion != analysis.FormatVersion {
		return fmt.Sprintf("%s is in format %d, this llmcap writes format %d", analysis.FileAnalysis, a.FormatVersion, analysis.FormatVersion)
	}
	for _, name := range []string{rundir.FileRecords, rundir.FileSteps, rundir.FileRun, rundir.FileDrift} {
		if f, err := os.Stat(filepath.Join(dir, name)); err == nil && f.ModTime().After(st.ModTime()) {
			return fmt.Sprintf("%s is newer than %s", name, analysis.FileAnalysis)
		}
	}
	state, ok := runState(dir)
	if !ok {
		return ""
	}
	if was := analysedState(a); was != state {
		return fmt.Sprintf("%s describes a %s run but run.json says %s", analysis.FileAnalysis, was, state)
	}
	return ""
}

// runState is run.json's state, with "" (an old run.json) read as complete and a
// running run whose sweep is gone (rundir.SweepGone) as interrupted; ok is false
// when run.json is missing or unreadable.
func runState(dir string) (state string, ok bool) {
	meta, err := rundir.ReadMeta(dir)
	if err != nil {
		return "", false
	}
	switch {
	case meta.State == "":
		return rundir.StateComplete, true
	case meta.State == rundir.StateRunning && rundir.SweepGone(dir):
		return rundir.StateInterrupted, true // as the analysis reads a killed sweep's run
	}
	return meta.State, true
}

// analysedState is the run state the analysis saw: its run_state, else complete.
func analysedState(a *analysis.Analysis) string {
	if a.RunState != "" {
		return a.RunState
	}
	return rundir.StateComplete
}

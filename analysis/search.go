package analysis

import (
	"github.com/llmcap/llmcap/capsearch"
	"github.com/llmcap/llmcap/rundir"
)

// searchOf is segment name's capacity search from run.json (nil for a fixed ladder),
// with each step's verdict taken from the analysed steps (the one SLA judge) rather
// than from the log.
func searchOf(logs []rundir.SearchLog, name string, steps []StepStats) *Search {
	for _, lg := range logs {
		if lg.Segment != name {
			continue
		}
		s := &Search{Over: lg.Over, Steps: len(lg.Steps), Stop: capsearch.StopReason(lg.Stop), Path: []SearchPoint{}}
		s.StopText = s.Stop.Describe()
		if s.Stop == capsearch.StopNone {
			s.StopText = "the run ended before the search did"
		}
		for _, st := range lg.Steps {
			pt := SearchPoint{Step: st.Index, Load: st.Load, Unfinished: true, Guided: st.Guided, PredictedLoad: st.PredictedLoad}
			for i := range steps {
				if steps[i].Step == st.Index {
					pt.Pass, pt.Unreliable, pt.Unfinished = steps[i].MeetsSLA, steps[i].SimulatorLate, false
				}
			}
			s.Path = append(s.Path, pt)
		}
		return s
	}
	return nil
}

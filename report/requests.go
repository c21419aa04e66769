package report

import (
	"fmt"

	"github.com/llmcap/llmcap/analysis"
	"github.com/llmcap/llmcap/rundir"
)

// eachRequest calls fn for every request of in's records.jsonl in file order, streamed
// (rundir.EachRecord: no record is held after fn returns unless fn keeps it), a
// request's repeated lines once: it skips the lines readRequestStats found repeated
// (rundir.DuplicateFilter, as in the analysis) by their position, without hashing every
// request again. Undecodable lines follow rundir's damage rule (the analysis warns of
// them). No records.jsonl: no call. Errors: the file is unreadable, or fn's.
func (in *input) eachRequest(fn func(*rundir.Record) error) error {
	if !in.hasRecords {
		return nil
	}
	pos, next := 0, 0
	rep := in.requests.repeats
	_, err := rundir.EachRecord(in.dir, func(r *rundir.Record) error {
		i := pos
		pos++
		if next < len(rep) && rep[next] == i {
			next++
			return nil
		}
		return fn(r)
	})
	return err
}

// requestStats is what one streamed pass over records.jsonl keeps for the report: the
// counts the Requests sheet's sample rule needs, the run's first send time and the TTFT
// values of the CDF charts. Its size does not grow with the run beyond one counter per
// step and cdfExactMax values per CDF line.
type requestStats struct {
	// count is the number of requests (duplicates once).
	count int
	// firstSentNs is the earliest sent time (Unix ns; 0: none has one).
	firstSentNs int64
	// perStep counts the requests of each step (by Record.Step).
	perStep map[int]int
	// ttft holds the CDF charts' TTFT values (ms) by segment and step (cdfKey).
	ttft map[cdfKey]*ttftSample
	// repeats are the positions (0-based, in rundir.EachRecord order) of the lines
	// that repeat an earlier request, ascending; usually none.
	repeats []int
}

// cdfKey names one CDF line: a segment's chart and one of its steps.
type cdfKey struct {
	segment string
	step    int
}

// cdfLine is a segment's CDF line of one step, with the steps it may take values from.
type cdfLine struct {
	seg analysis.SegmentAnalysis
	key cdfKey
}

// cdfLines lists the CDF lines of a: up to three steps of each segment (cdfSteps).
func cdfLines(a *analysis.Analysis) []cdfLine {
	var out []cdfLine
	for _, seg := range allSegments(a) {
		for _, s := range cdfSteps(a, seg) {
			out = append(out, cdfLine{seg: seg, key: cdfKey{seg.Segment, s.Step}})
		}
	}
	return out
}

// readRequestStats streams dir's records.jsonl once into requestStats, a request's
// repeated lines once (rundir.DuplicateFilter; their positions kept in repeats).
func readRequestStats(dir string, a *analysis.Analysis) (requestStats, error) {
	st := newRequestStats()
	lines := cdfLines(a)
	for _, l := range lines {
		st.ttft[l.key] = newTTFTSample(l.key)
	}
	var dups rundir.DuplicateFilter
	pos := 0
	_, err := rundir.EachRecord(dir, func(r *rundir.Record) error {
		if dups.Repeat(r) {
			st.repeats = append(st.repeats, pos)
		} else {
			st.add(r, lines)
		}
		pos++
		return nil
	})
	if err != nil {
		return st, fmt.Errorf("report: %w", err)
	}
	return st, nil
}

func newRequestStats() requestStats {
	return requestStats{perStep: map[int]int{}, ttft: map[cdfKey]*ttftSample{}}
}

// add counts one request and keeps its TTFT for the CDF lines it belongs to.
func (st *requestStats) add(r *rundir.Record, lines []cdfLine) {
	st.count++
	st.perStep[r.Step]++
	if s := r.SentNs; s > 0 && (st.firstSentNs == 0 || s < st.firstSentNs) {
		st.firstSentNs = s
	}
	if !measured(r) || r.TTFTMs == nil || !finite(*r.TTFTMs) {
		return
	}
	for _, l := range lines {
		if l.key.step == r.Step && recordOfSegment(r, l.seg) {
			st.ttft[l.key].add(*r.TTFTMs)
		}
	}
}

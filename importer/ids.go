package importer

import "fmt"

// uniqueIDs makes the request ids of s unique within s. The analysis (and the
// report, and compare) reads one record per run, step and request_id
// (rundir.DuplicateFilter) and a file is one step, so records that share a source id
// (AIPerf's x_request_id repeated) would be counted once. The first record with an id
// keeps it as the source gave it; each later one, in file order, gets "#2", "#3"…
// appended (passing over a name another record holds), so every imported record is
// analysed and its id stays traceable to the source. Records of different files are
// different steps and never collide. It notes the renaming in s.
func uniqueIDs(s *source) {
	given := make(map[string]bool, len(s.requests))
	for i := range s.requests {
		given[s.requests[i].id] = true
	}
	used := make(map[string]bool, len(s.requests))
	firstLine := make(map[string]int, len(s.requests)) // each id's first line
	next := map[string]int{}                           // each repeated id's next suffix
	repeats, example, exampleLine, exampleFirst := 0, "", 0, 0
	for i := range s.requests {
		q := &s.requests[i]
		if !used[q.id] {
			used[q.id] = true
			firstLine[q.id] = q.line
			continue
		}
		orig := q.id
		n := max(next[orig], 2)
		for used[fmt.Sprintf("%s#%d", orig, n)] || given[fmt.Sprintf("%s#%d", orig, n)] {
			n++
		}
		q.id = fmt.Sprintf("%s#%d", orig, n)
		next[orig] = n + 1
		used[q.id] = true
		if repeats == 0 {
			example, exampleLine, exampleFirst = q.id, q.line, firstLine[orig]
		}
		repeats++
	}
	s.renamed = repeats
	if repeats == 0 {
		return
	}
	note := fmt.Sprintf("%d records repeat an earlier record's request id, renamed with #2, #3… appended (first: %s", repeats, example)
	if exampleLine > 0 {
		note += fmt.Sprintf(" at line %d, the id first at line %d", exampleLine, exampleFirst)
	}
	s.notes = append(s.notes, note+")")
}

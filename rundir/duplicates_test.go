package rundir

import (
	"strconv"
	"testing"
)

// TestDuplicateFilterAcrossGrowth feeds 50,000 requests (the table grows from 1,024
// slots several times) over three steps and two runs, then replays every third one:
// only the replays are repeats, the same request_id in another step or run is not, and
// a record without a request_id never is.
func TestDuplicateFilterAcrossGrowth(t *testing.T) {
	var f DuplicateFilter
	rec := func(run string, step, i int) *Record {
		return &Record{RunID: run, Step: step, RequestID: "r" + strconv.Itoa(i)}
	}
	const n = 50_000
	for i := range n {
		if f.Repeat(rec("a", i%3, i)) {
			t.Fatalf("request %d: a first sighting reported as a repeat", i)
		}
	}
	if f.Repeat(rec("a", 1, 0)) || f.Repeat(rec("b", 0, 0)) { // r0 was step 0 of run a
		t.Error("the same request_id in another step or run reported as a repeat")
	}
	if f.Repeat(&Record{RunID: "a"}) || f.Repeat(&Record{RunID: "a"}) {
		t.Error("a record without a request_id reported as a repeat")
	}
	replays := 0
	for i := 0; i < n; i += 3 {
		if !f.Repeat(rec("a", i%3, i)) {
			t.Fatalf("replay of request %d not reported as a repeat", i)
		}
		replays++
	}
	if f.Count() != replays {
		t.Errorf("Count() = %d, want %d", f.Count(), replays)
	}
	if f.n != n+2 || len(f.table) < 2*f.n {
		t.Errorf("table holds %d hashes in %d slots, want %d at most half full", f.n, len(f.table), n+2)
	}
}

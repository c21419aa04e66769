package rundir

import (
	"hash/maphash"
	"strconv"
)

// DuplicateFilter recognises record lines that repeat an earlier record of the same
// request: the same run_id, step and request_id (a crash or resume that replayed lines,
// a file pasted twice). Readers keep the first line of each request and count the
// others, so no request is counted twice. A record without a request_id is never a
// duplicate. It holds 8 bytes per request seen (a 64-bit hash; a false match needs a
// hash collision, about 1 in 10^7 at a million requests). The zero value is ready.
type DuplicateFilter struct {
	seed  maphash.Seed
	seen  map[uint64]struct{}
	count int
}

// Repeat reports whether r repeats a request seen before (and counts it); a first
// sighting is remembered and reports false.
func (f *DuplicateFilter) Repeat(r *Record) bool {
	if r.RequestID == "" {
		return false
	}
	if f.seen == nil {
		f.seed = maphash.MakeSeed()
		f.seen = map[uint64]struct{}{}
	}
	var h maphash.Hash
	h.SetSeed(f.seed)
	h.WriteString(r.RunID)
	h.WriteByte(0)
	h.WriteString(strconv.Itoa(r.Step))
	h.WriteByte(0)
	h.WriteString(r.RequestID)
	k := h.Sum64()
	if _, ok := f.seen[k]; ok {
		f.count++
		return true
	}
	f.seen[k] = struct{}{}
	return false
}

// Count is the number of duplicated record lines Repeat has found.
func (f *DuplicateFilter) Count() int { return f.count }

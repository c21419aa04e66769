package rundir

import (
	"encoding/binary"
	"hash/maphash"
)

// DuplicateFilter recognises record lines that repeat an earlier record of the same
// request: the same run_id, step and request_id (a crash or resume that replayed lines,
// a file pasted twice). Readers keep the first line of each request and count the
// others, so no request is counted twice. A record without a request_id is never a
// duplicate. It holds a 64-bit hash per request seen, in an open-addressing table at
// most half full (16 to 32 bytes per request); a false match needs a hash collision,
// about 1 in 10^7 at a million requests. The zero value is ready.
type DuplicateFilter struct {
	seed  maphash.Seed
	h     maphash.Hash
	table []uint64 // linear probing; 0 = an empty slot (a hash of 0 is stored as 1)
	n     int      // hashes in table
	count int
}

// Repeat reports whether r repeats a request seen before (and counts it); a first
// sighting is remembered and reports false.
func (f *DuplicateFilter) Repeat(r *Record) bool {
	if r.RequestID == "" {
		return false
	}
	k := f.key(r)
	if 2*(f.n+1) > len(f.table) {
		f.grow()
	}
	mask := uint64(len(f.table) - 1)
	for i := k & mask; ; i = (i + 1) & mask {
		switch f.table[i] {
		case 0:
			f.table[i] = k
			f.n++
			return false
		case k:
			f.count++
			return true
		}
	}
}

// key hashes r's run_id, step and request_id (never 0).
func (f *DuplicateFilter) key(r *Record) uint64 {
	if f.table == nil {
		f.seed = maphash.MakeSeed()
		f.h.SetSeed(f.seed)
	}
	f.h.Reset()
	f.h.WriteString(r.RunID)
	var step [9]byte // a 0 separator, then the step: unambiguous after any run_id
	binary.LittleEndian.PutUint64(step[1:], uint64(r.Step))
	f.h.Write(step[:])
	f.h.WriteString(r.RequestID)
	if k := f.h.Sum64(); k != 0 {
		return k
	}
	return 1
}

// grow doubles the table (1,024 slots at first) and re-inserts its hashes.
func (f *DuplicateFilter) grow() {
	old := f.table
	f.table = make([]uint64, max(1024, 2*len(old)))
	mask := uint64(len(f.table) - 1)
	for _, k := range old {
		if k == 0 {
			continue
		}
		i := k & mask
		for f.table[i] != 0 {
			i = (i + 1) & mask
		}
		f.table[i] = k
	}
}

// Count is the number of duplicated record lines Repeat has found.
func (f *DuplicateFilter) Count() int { return f.count }

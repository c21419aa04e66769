//go:build linux

package tune

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
)

// pageBytes is the size of a memory page, /proc's RSS unit.
var pageBytes = uint64(os.Getpagesize())

// groupRSSBytes returns the resident memory of every process in process group pgid,
// summed (each process's RSS from /proc/PID/stat field 24, in pages), and their PIDs.
// Processes that exit while it reads, and zombies, are skipped.
func groupRSSBytes(pgid int) (rss uint64, pids []int) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 0, nil
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		f, ok := procStat(pid)
		if !ok || len(f) < 22 {
			continue
		}
		if g, _ := strconv.Atoi(string(f[2])); g != pgid || string(f[0]) == "Z" {
			continue
		}
		pages, _ := strconv.ParseUint(string(f[21]), 10, 64)
		rss += pages * pageBytes
		pids = append(pids, pid)
	}
	return rss, pids
}

// procStat returns the fields of /proc/PID/stat after the command name (field 3, the
// state, first: index i is field i+3).
func procStat(pid int) ([][]byte, bool) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return nil, false
	}
	i := bytes.LastIndexByte(b, ')') // the command name may hold spaces and ')'
	if i < 0 || i+2 > len(b) {
		return nil, false
	}
	return bytes.Fields(b[i+2:]), true
}

// startTicks returns process pid's start time (field 22 of /proc/PID/stat, clock ticks
// since boot); ok is false when the process is gone.
func startTicks(pid int) (uint64, bool) {
	f, ok := procStat(pid)
	if !ok || len(f) < 20 {
		return 0, false
	}
	t, err := strconv.ParseUint(string(f[19]), 10, 64)
	return t, err == nil
}

// groupAlive reports whether any process is in process group pgid.
func groupAlive(pgid int) bool {
	_, pids := groupRSSBytes(pgid)
	return len(pids) > 0
}

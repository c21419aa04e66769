package profiles

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// proc is one process of a tree read from /proc.
type proc struct {
	pid, ppid int
	comm      string
	hwmBytes  int64 // VmHWM: peak resident set size
}

// processTree returns root and its descendants from /proc (Linux); processes that
// vanish while it reads are skipped. Elsewhere it returns nil.
func processTree(root int) []proc {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	all := map[int]proc{}
	children := map[int][]int{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		p, ok := readProc(pid)
		if !ok {
			continue
		}
		all[pid] = p
		children[p.ppid] = append(children[p.ppid], pid)
	}
	var out []proc
	queue := []int{root}
	seen := map[int]bool{}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		if seen[pid] {
			continue
		}
		seen[pid] = true
		if p, ok := all[pid]; ok {
			out = append(out, p)
		}
		queue = append(queue, children[pid]...)
	}
	return out
}

// readProc parses /proc/<pid>/status for Name, PPid and VmHWM.
func readProc(pid int) (proc, bool) {
	f, err := os.Open(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return proc{}, false
	}
	defer f.Close()
	p := proc{pid: pid}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		switch k {
		case "Name":
			p.comm = v
		case "PPid":
			p.ppid, _ = strconv.Atoi(v)
		case "VmHWM":
			kb, _ := strconv.ParseInt(strings.TrimSuffix(v, " kB"), 10, 64)
			p.hwmBytes = kb * 1024
		}
	}
	return p, true
}

// sessionAgents returns the pids of nsys agents (`nsys --start-agent
// --session-name=NAME`) serving session; nsys 2022.4 leaves them running when a
// `nsys stop` hung, and they disturb later sessions.
func sessionAgents(session string) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	want := "--session-name=" + session
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(string(b), "\x00")
		if slices.Contains(args, "--start-agent") && slices.Contains(args, want) {
			pids = append(pids, pid)
		}
	}
	return pids
}

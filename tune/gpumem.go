package tune

import (
	"bufio"
	"bytes"
	"context"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// nvidiaSMI is the nvidia-smi program looked up on PATH.
const nvidiaSMI = "nvidia-smi"

// gpuMemoryMiB returns the GPU memory used by the processes pids, in MiB, summed over
// GPUs, from `nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader,nounits`
// (one "PID, MiB" line per process and GPU). ok is false when nvidia-smi is missing,
// fails or lists none of pids.
func gpuMemoryMiB(pids []int) (mib float64, ok bool) {
	path, err := exec.LookPath(nvidiaSMI)
	if err != nil {
		return 0, false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--query-compute-apps=pid,used_memory", "--format=csv,noheader,nounits").Output()
	if err != nil {
		return 0, false
	}
	return parseComputeApps(out, pids)
}

// parseComputeApps sums the used_memory (MiB) of the lines of nvidia-smi's
// --query-compute-apps=pid,used_memory CSV whose PID is one of pids.
func parseComputeApps(out []byte, pids []int) (mib float64, ok bool) {
	want := map[int]bool{}
	for _, p := range pids {
		want[p] = true
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		pidText, memText, found := strings.Cut(sc.Text(), ",")
		if !found {
			continue
		}
		pid, err1 := strconv.Atoi(strings.TrimSpace(pidText))
		m, err2 := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(memText), "MiB")), 64)
		if err1 != nil || err2 != nil || !want[pid] {
			continue
		}
		mib += m
		ok = true
	}
	return mib, ok
}

package tune

import "testing"

// TestComputeAppsSumsTheServersProcesses: nvidia-smi's --query-compute-apps CSV (as
// nvidia-smi 535 prints it with noheader,nounits; one line per process and GPU) is
// summed over the server's PIDs only; other processes and junk lines are ignored.
func TestComputeAppsSumsTheServersProcesses(t *testing.T) {
	out := []byte("4242, 70512\n4243, 1024\n999, 30000\n[Not Supported]\n4242, 512 MiB\n")
	mib, ok := parseComputeApps(out, []int{4242, 4243})
	if !ok || mib != 70512+1024+512 {
		t.Errorf("got %g MiB (ok %v), want 72048", mib, ok)
	}
	if _, ok := parseComputeApps(out, []int{7}); ok {
		t.Error("no line of pid 7, yet ok")
	}
}

package profiles

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

func fixtureKernels(t *testing.T) []KernelRow {
	t.Helper()
	rows, err := ReadStatsCSV("testdata/kernels-2024.1_cuda_gpu_kern_sum.csv")
	if err != nil {
		t.Fatal(err)
	}
	return KernelRows(rows)
}

func TestKernelProfileValid(t *testing.T) {
	kr := fixtureKernels(t)
	p, err := KernelProfile(kr, "chat c=32", 2e9)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := p.Write(&buf); err != nil {
		t.Fatal(err)
	}
	q, err := profile.Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if q.DefaultSampleType != SampleGPUTime || len(q.SampleType) != 2 || q.SampleType[1].Unit != "nanoseconds" {
		t.Fatalf("sample types %v default %q", q.SampleType, q.DefaultSampleType)
	}
	if len(q.Sample) != len(kr) {
		t.Fatalf("samples %d, kernels %d", len(q.Sample), len(kr))
	}
	// Functions are deduplicated: kernels + classes present + one phase.
	classes := map[string]bool{}
	for _, r := range kr {
		classes[r.Class] = true
	}
	if want := len(kr) + len(classes) + 1; len(q.Function) != want {
		t.Errorf("functions %d, want %d", len(q.Function), want)
	}
	s := q.Sample[0]
	leaf := s.Location[0].Line[0].Function.Name
	root := s.Location[len(s.Location)-1].Line[0].Function.Name
	if leaf != kr[0].Name || root != "chat c=32" || s.Location[1].Line[0].Function.Name != "class:"+kr[0].Class {
		t.Errorf("stack %q … %q", leaf, root)
	}
	if s.Value[0] != kr[0].Instances || s.Value[1] != kr[0].TotalTimeNs {
		t.Errorf("values %v, want %d %d", s.Value, kr[0].Instances, kr[0].TotalTimeNs)
	}
}

// TestPprofTopListsKernels runs the real `go tool pprof -top` on the kernel fixture's
// profile and checks it lists the kernels by GPU time, largest first.
func TestPprofTopListsKernels(t *testing.T) {
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goBin); err != nil {
		t.Skipf("go tool not found at %s: cannot run pprof", goBin)
	}
	kr := fixtureKernels(t)
	p, err := KernelProfile(kr, "capture", 0)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), FileKernelsPprof)
	if err := WriteProfile(p, path); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(goBin, "tool", "pprof", "-top", "-nodecount=100", path).CombinedOutput()
	if err != nil {
		t.Fatalf("pprof -top: %v\n%s", err, out)
	}
	text := string(out)
	if !strings.Contains(text, "Type: gpu_time") {
		t.Errorf("no gpu_time type in:\n%s", text)
	}
	// Every kernel above 1% of GPU time (pprof drops nodes under 0.5%) has its own line
	// (distinct template instantiations are not merged), in order of GPU time.
	var total int64
	for _, r := range kr {
		total += r.TotalTimeNs
	}
	last := -1
	for _, r := range kr {
		if r.TotalTimeNs*100 < total {
			continue
		}
		short := r.Name // names are shown whole up to maxFrameRunes, then clipped
		if rs := []rune(short); len(rs) > maxFrameRunes {
			short = string(rs[:maxFrameRunes-1]) + "…"
		}
		if n := strings.Count(text, short+"\n"); n != 1 {
			t.Errorf("kernel %q on %d lines of pprof -top, want 1", short, n)
		}
		i := strings.Index(text, short)
		if i < 0 {
			t.Fatalf("kernel %q not in pprof -top:\n%s", short, text)
		}
		if i < last {
			t.Errorf("kernel %q out of GPU-time order", short)
		}
		last = i
	}
	// The class and phase frames carry cumulative time (shown with -cum).
	out, err = exec.Command(goBin, "tool", "pprof", "-top", "-cum", path).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "class:gemm") || !strings.Contains(string(out), "capture") {
		t.Errorf("pprof -top -cum: %v\n%s", err, out)
	}
}

package profiles

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/pprof/profile"
)

// TestConvertTablesFixtures converts recorded tables of both kinds (GPU kernels and the
// real OS-runtime table) into a capture directory and checks every file written.
func TestConvertTablesFixtures(t *testing.T) {
	dir := t.TempDir()
	abs := func(p string) string { a, _ := filepath.Abs(p); return a }
	tables := Tables{KindKernels: abs("testdata/kernels-2022.4_gpukernsum.csv"), KindOSRT: abs("testdata/osrt-2022.4_osrtsum.csv")}
	s, err := ConvertTables(dir, tables, Summary{Step: 3, Segment: "chat", Phase: "chat c=32", DurationNs: 2e9})
	if err != nil {
		t.Fatal(err)
	}
	var kr []KernelRow
	b, err := os.ReadFile(filepath.Join(dir, FileKernelsJSON))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &kr); err != nil {
		t.Fatal(err)
	}
	if len(kr) != 18 || kr[0].Class != ClassGEMM || s.Top[0].Name != kr[0].Name {
		t.Fatalf("kernels.json: %d rows, first %+v", len(kr), kr[0])
	}
	var sum float64
	for _, r := range kr {
		sum += r.Share
	}
	if math.Abs(sum-1) > 1e-9 || s.GPUTimeNs <= 0 || s.OSRTTimeNs <= 0 {
		t.Errorf("shares sum %.6f, gpu %d ns, osrt %d ns", sum, s.GPUTimeNs, s.OSRTTimeNs)
	}
	for _, f := range []string{FileKernelsPprof, FileOSRTPprof} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		p, err := profile.Parse(bytes.NewReader(b))
		if err != nil || p.CheckValid() != nil || p.DurationNanos != 2e9 {
			t.Fatalf("%s: %v", f, err)
		}
	}
	var cj Summary
	b, _ = os.ReadFile(filepath.Join(dir, FileCaptureJSON))
	if err := json.Unmarshal(b, &cj); err != nil || cj.Step != 3 || len(cj.Profiles) != 2 || cj.ClassShares[ClassGEMM] < 0.5 {
		t.Errorf("capture.json: %+v %v", cj, err)
	}
	// No data at all is an error, not an empty profile.
	if _, err := ConvertTables(t.TempDir(), Tables{}, Summary{Phase: "x"}); err == nil {
		t.Error("empty capture converted without error")
	}
}

package profiles

import (
	"errors"
	"strings"
	"testing"
)

func TestParseStatsCSVGenerations(t *testing.T) {
	for _, tc := range []struct {
		file       string
		wantRows   int // rows in the file
		wantNames  int // distinct kernels
		wantFirst  string
		wantMedian bool
	}{
		{"testdata/kernels-2022.4_gpukernsum.csv", 20, 18, "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64", true},
		{"testdata/kernels-2024.1_cuda_gpu_kern_sum.csv", 18, 18, "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64", true},
		{"testdata/legacy-2021.3_gpukernsum.csv", 4, 4, "void flash_fwd_kernel<", false},
	} {
		t.Run(tc.file, func(t *testing.T) {
			rows, err := ReadStatsCSV(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != tc.wantRows {
				t.Fatalf("rows = %d, want %d", len(rows), tc.wantRows)
			}
			merged := MergeByName(rows)
			if len(merged) != tc.wantNames {
				t.Fatalf("distinct kernels = %d, want %d", len(merged), tc.wantNames)
			}
			if !strings.HasPrefix(merged[0].Name, tc.wantFirst) {
				t.Errorf("largest kernel = %q, want prefix %q", merged[0].Name, tc.wantFirst)
			}
			var sumPct float64
			for _, r := range rows {
				if r.TotalNs <= 0 || r.Count <= 0 || r.AvgNs <= 0 || r.MinNs > r.MaxNs {
					t.Errorf("bad row %+v", r)
				}
				// Avg = Total / Count within nsys's rounding to 0.1 ns.
				if d := r.AvgNs - float64(r.TotalNs)/float64(r.Count); d > 0.06 || d < -0.06 {
					t.Errorf("%s: avg %.1f != total/count %.2f", r.Name, r.AvgNs, float64(r.TotalNs)/float64(r.Count))
				}
				if tc.wantMedian && r.MedNs <= 0 {
					t.Errorf("%s: no median", r.Name)
				}
				sumPct += r.TimePct
			}
			if sumPct < 99 || sumPct > 101 {
				t.Errorf("Time (%%) sums to %.1f", sumPct)
			}
		})
	}
}

// The two generations hold the same kernel instances: merging 2022.4's per-shape rows
// must give 2024.1's per-name totals exactly.
func TestMergeMatchesNewGeneration(t *testing.T) {
	oldRows, err := ReadStatsCSV("testdata/kernels-2022.4_gpukernsum.csv")
	if err != nil {
		t.Fatal(err)
	}
	newRows, err := ReadStatsCSV("testdata/kernels-2024.1_cuda_gpu_kern_sum.csv")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]StatRow{}
	for _, r := range newRows {
		want[r.Name] = r
	}
	for _, r := range MergeByName(oldRows) {
		w, ok := want[r.Name]
		if !ok {
			t.Fatalf("kernel %q missing from the new generation", r.Name)
		}
		if r.TotalNs != w.TotalNs || r.Count != w.Count || r.MinNs != w.MinNs || r.MaxNs != w.MaxNs {
			t.Errorf("%s: merged %+v, want %+v", r.Name, r, w)
		}
	}
}

func TestParseRealOSRT(t *testing.T) {
	rows, err := ReadStatsCSV("testdata/osrt-2022.4_osrtsum.csv")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) < 5 {
		t.Fatalf("rows = %d", len(rows))
	}
	names := map[string]bool{}
	for _, r := range rows {
		names[r.Name] = true
		if r.Count <= 0 {
			t.Errorf("%s: Num Calls not parsed: %+v", r.Name, r)
		}
	}
	for _, n := range []string{"poll", "read", "open64"} {
		if !names[n] {
			t.Errorf("missing %s in %v", n, names)
		}
	}
}

func TestParseStatsCSVEdgeCases(t *testing.T) {
	rows, err := ParseStatsCSV(strings.NewReader(""))
	if err != nil || rows != nil {
		t.Fatalf("empty table (a skipped report) = %v, %v", rows, err)
	}
	// A title line before the header, as some versions print on the console.
	in := "CUDA Kernel Statistics:\n\nTime(%),Total Time (ns),Calls,Average,Name\n60.0,600,3,200.0,a\n40.0,400,2,200.0,b\n"
	rows, err = ParseStatsCSV(strings.NewReader(in))
	if err != nil || len(rows) != 2 || rows[0].Count != 3 || rows[1].TotalNs != 400 {
		t.Fatalf("title + legacy header: %+v, %v", rows, err)
	}
	_, err = ParseStatsCSV(strings.NewReader("Time (%),Total Time (ns),Instances,Name\n1.0,abc,1,k\n"))
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 2 || !strings.Contains(pe.Msg, "abc") {
		t.Fatalf("bad number: err = %v, want ParseError at line 2", err)
	}
	_, err = ParseStatsCSV(strings.NewReader("Time (%),Total Time (ns),Instances,Name\n1.0,5,-1,k\n"))
	if !errors.As(err, &pe) {
		t.Fatalf("negative count: err = %v", err)
	}
}

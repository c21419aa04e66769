package profiles

import "testing"

// TestRealH200KernelTable parses a table recorded on a real H200 (Nsight Systems
// 2025.3.1, `nsys profile --trace=cuda,nvtx` of a PyTorch 2.11 probe doing bf16 GEMMs,
// cuDNN flash attention, RMSNorm and SiLU, then `nsys stats --report cuda_gpu_kern_sum
// --format csv`), and checks the classes of its real kernel names and their shares.
func TestRealH200KernelTable(t *testing.T) {
	rows, err := ReadStatsCSV("testdata/kernels-2025.3-h200_cuda_gpu_kern_sum.csv")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 8 {
		t.Fatalf("rows = %d, want 8", len(rows))
	}
	if rows[0].TotalNs != 11095210 || rows[0].Count != 8 {
		t.Errorf("first row %+v, want 11,095,210 ns over 8 instances", rows[0])
	}
	want := map[string]string{
		"nvjet_sm90_tst_320x128_64x3_1x2_h_bz_coopB_NNT":                                                         ClassGEMM,
		"nvjet_sm90_tst_64x8_64x16_2x1_v_bz_NNT":                                                                 ClassGEMM,
		"cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7_64x128x128_4x1x1_cga1x1x1_kernel0_0": ClassAttention,
	}
	for _, r := range rows {
		if w, ok := want[r.Name]; ok {
			if got := Classify(r.Name); got != w {
				t.Errorf("Classify(%q) = %s, want %s", r.Name, got, w)
			}
		}
	}
	var total, gemm, attn int64
	for _, r := range rows {
		total += r.TotalNs
		switch Classify(r.Name) {
		case ClassGEMM:
			gemm += r.TotalNs
		case ClassAttention:
			attn += r.TotalNs
		}
	}
	// GEMMs 11,095,210 + 687,707 ns and attention 3,953,014 ns of 16,917,483 ns.
	if total != 16917483 || gemm != 11782917 || attn != 3953014 {
		t.Errorf("total %d gemm %d attention %d", total, gemm, attn)
	}
}

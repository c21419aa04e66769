package profiles

import (
	"math"
	"testing"
)

func TestClassifyRealKernelNames(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas", ClassGEMM},
		{"nvjet_tst_128x256_64x4_2x1_v_bz_coopB_TNT", ClassGEMM},
		{"ampere_bf16_s16816gemm_bf16_128x64_ldg8_f2f_stages_64x4_tn", ClassGEMM},
		{"void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_64x4_tn_align8>(cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_64x4_tn_align8::Params)", ClassGEMM},
		{"std::enable_if<!T7, void>::type internal::gemvx::kernel<int, int, __nv_bfloat16, __nv_bfloat16, __nv_bfloat16, float, false, true, true, false, 6, false, cublasGemvParamsEx<int, cublasGemvTensorStridedBatched<const __nv_bfloat16>, cublasGemvTensorStridedBatched<const __nv_bfloat16>, cublasGemvTensorStridedBatched<__nv_bfloat16>, float>>(T13, T6, T6)", ClassGEMM},
		{"void splitKreduce_kernel<32, 16, int, float, __nv_bfloat16, float, __nv_bfloat16, true, false, false>(cublasSplitKParams<float>)", ClassGEMM},
		{"void flash_fwd_splitkv_kernel<Flash_fwd_kernel_traits<128, 64, 128, 4, false, false, cutlass::bfloat16_t, Flash_kernel_traits<128, 64, 128, 4, cutlass::bfloat16_t>>, false, false, false, false, true, true, false, false>(flash::Flash_fwd_params)", ClassAttention},
		{"void cutlass::device_kernel<flash::enable_sm90_or_later<flash::FlashAttnFwdSm90<flash::CollectiveMainloopFwdSm90<2, cute::tuple<cute::C<1>, cute::C<1>, cute::C<1>>, cute::tuple<cute::C<128>, cute::C<128>, cute::C<128>>, 128, cutlass::bfloat16_t, float, cutlass::arch::Sm90>>>>(T1::Params)", ClassAttention},
		{"void vllm::paged_attention_v2_kernel<unsigned short, unsigned short, 128, 16, 128, (vllm::Fp8KVCacheDataType)0, false, 512>(float *, float *)", ClassAttention},
		{"fmha_cutlassF_bf16_aligned_64x128_rf_sm80(PyTorchMemEffAttention::AttentionKernel<cutlass::bfloat16_t, cutlass::arch::Sm80, true, 64, 128, 128, true, true>::Params)", ClassAttention},
		{"void flashinfer::BatchPrefillWithPagedKVCacheKernel<128u, 4u, 1u, 2u, 16u>(flashinfer::BatchPrefillPagedParams)", ClassAttention},
		{"ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096UL>)", ClassCommunication},
		{"ncclKernel_AllReduce_RING_LL_Sum_half(ncclWorkElem)", ClassCommunication},
		{"ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096UL>)", ClassCommunication},
		{"void vllm::cross_device_reduce_1stage<__nv_bfloat16, 2>(vllm::RankData *, vllm::RankSignals, vllm::Signal *, __nv_bfloat16 *, int, int)", ClassCommunication},
		{"void vllm::fused_add_rms_norm_kernel<c10::BFloat16, 8>(c10::BFloat16 *, c10::BFloat16 *, const c10::BFloat16 *, float, int, int)", ClassNormAct},
		{"void vllm::rms_norm_kernel<c10::BFloat16>(c10::BFloat16 *, const c10::BFloat16 *, const c10::BFloat16 *, float, int, int)", ClassNormAct},
		{"void vllm::act_and_mul_kernel<c10::BFloat16, &vllm::silu_kernel<c10::BFloat16>, true>(c10::BFloat16 *, const c10::BFloat16 *, int)", ClassNormAct},
		{"void at::native::vectorized_layer_norm_kernel<c10::Half, float>(int, float, const c10::Half *, const c10::Half *, const c10::Half *, float *, float *, c10::Half *)", ClassNormAct},
		{"void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase &, at::native::GeluType)::[lambda() (instance 2)]>(int, T2, T3)", ClassNormAct},
		{"void vllm::reshape_and_cache_flash_kernel<__nv_bfloat16, __nv_bfloat16, (vllm::Fp8KVCacheDataType)0>(const __nv_bfloat16 *)", ClassMemory},
		{"[CUDA memcpy Host-to-Device]", ClassMemory},
		{"[CUDA memset]", ClassMemory},
		{"void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase &)>>(int, T3)", ClassMemory},
		{"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::ArgMaxOps<float>, unsigned int, long, 4>>(T3)", ClassOther},
		{"void at::native::(anonymous namespace)::CatArrayBatchedCopy<at::native::(anonymous namespace)::OpaqueType<2u>, unsigned int, 2, 64, 64>(T1 *)", ClassOther},
	} {
		if got := Classify(tc.name); got != tc.want {
			t.Errorf("Classify(%.70q) = %s, want %s", tc.name, got, tc.want)
		}
	}
}

func TestKernelRowsAndShares(t *testing.T) {
	rows, err := ReadStatsCSV("testdata/kernels-2022.4_gpukernsum.csv")
	if err != nil {
		t.Fatal(err)
	}
	kr := KernelRows(rows)
	var total int64
	var shareSum float64
	for i, r := range kr {
		total += r.TotalTimeNs
		shareSum += r.Share
		if i > 0 && r.TotalTimeNs > kr[i-1].TotalTimeNs {
			t.Errorf("not sorted at %d", i)
		}
	}
	var fileTotal int64
	for _, r := range rows {
		fileTotal += r.TotalNs
	}
	if total != fileTotal || math.Abs(shareSum-1) > 1e-9 {
		t.Fatalf("total %d vs file %d, shares sum %.6f", total, fileTotal, shareSum)
	}
	shares := ClassShares(kr)
	// The fixture's decode-heavy step: GEMMs dominate, then attention.
	top := TopClasses(shares)
	if top[0] != ClassGEMM || top[1] != ClassAttention {
		t.Errorf("class order %v, shares %v", top, shares)
	}
	for _, c := range []string{ClassCommunication, ClassNormAct, ClassMemory, ClassOther} {
		if shares[c] <= 0 {
			t.Errorf("class %s has no share: %v", c, shares)
		}
	}
}

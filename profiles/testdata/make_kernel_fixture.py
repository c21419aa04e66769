#!/usr/bin/env python3
"""make_kernel_fixture.py builds the GPU-kernel CSV fixtures of profiles/testdata.

Real tool, synthetic timings: it copies a real SQLite export of an osrt capture made by
Nsight Systems 2022.4 on this (GPU-less) machine, adds a CUPTI_ACTIVITY_KIND_KERNEL table
holding kernels with real names (vLLM/cuBLAS/CUTLASS/flash-attention/NCCL on Hopper and
Ampere) and seeded durations shaped like a decode-heavy Llama-3.1-8B TP=2 step, then runs
the real `nsys stats --report gpukernsum --format csv` on it. So the old-generation file
(gpukernsum, with GridXYZ/BlockXYZ columns and one row per launch shape) is byte-for-byte
what nsys 2022.4 writes. The new-generation file (cuda_gpu_kern_sum, nsys 2023.x+: the
same statistics without the grid/block columns, one row per name) is written here from
the same kernel instances in that documented column format.

usage: make_kernel_fixture.py BASE.sqlite OUTDIR
"""
import csv, random, shutil, sqlite3, statistics, subprocess, sys, os

KERNELS = [  # (name, instances, mean duration ns, launch shapes)
    ("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas", 2048, 61000, 2),
    ("nvjet_tst_128x256_64x4_2x1_v_bz_coopB_TNT", 1024, 48000, 1),
    ("void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_64x4_tn_align8>(cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_64x4_tn_align8::Params)", 512, 23000, 1),
    ("ampere_bf16_s16816gemm_bf16_128x64_ldg8_f2f_stages_64x4_tn", 256, 31000, 1),
    ("void splitKreduce_kernel<32, 16, int, float, __nv_bfloat16, float, __nv_bfloat16, true, false, false>(cublasSplitKParams<float>, const float *, const __nv_bfloat16 *, __nv_bfloat16 *, const float *, const float *, const __nv_bfloat16 *, const float *, __nv_bfloat16 *, void *, long, float *, int *)", 512, 3100, 1),
    ("void flash_fwd_splitkv_kernel<Flash_fwd_kernel_traits<128, 64, 128, 4, false, false, cutlass::bfloat16_t, Flash_kernel_traits<128, 64, 128, 4, cutlass::bfloat16_t>>, false, false, false, false, true, true, false, false>(flash::Flash_fwd_params)", 1024, 29000, 2),
    ("void vllm::paged_attention_v2_kernel<unsigned short, unsigned short, 128, 16, 128, (vllm::Fp8KVCacheDataType)0, false, 512>(float *, float *, unsigned short *, const unsigned short *, const unsigned short *, const unsigned short *, int, float, const int *, const int *, int, const float *, int, int, int, const float *, const float *)", 1024, 18000, 1),
    ("fmha_cutlassF_bf16_aligned_64x128_rf_sm80(PyTorchMemEffAttention::AttentionKernel<cutlass::bfloat16_t, cutlass::arch::Sm80, true, 64, 128, 128, true, true>::Params)", 64, 140000, 1),
    ("ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096UL>)", 256, 41000, 1),
    ("void vllm::cross_device_reduce_1stage<__nv_bfloat16, 2>(vllm::RankData *, vllm::RankSignals, vllm::Signal *, __nv_bfloat16 *, int, int)", 2048, 9000, 1),
    ("void vllm::fused_add_rms_norm_kernel<c10::BFloat16, 8>(c10::BFloat16 *, c10::BFloat16 *, const c10::BFloat16 *, float, int, int)", 2048, 2900, 1),
    ("void vllm::rms_norm_kernel<c10::BFloat16>(c10::BFloat16 *, const c10::BFloat16 *, const c10::BFloat16 *, float, int, int)", 64, 3300, 1),
    ("void vllm::act_and_mul_kernel<c10::BFloat16, &vllm::silu_kernel<c10::BFloat16>, true>(c10::BFloat16 *, const c10::BFloat16 *, int)", 1024, 5200, 1),
    ("void vllm::rotary_embedding_kernel<c10::BFloat16, true>(const long *, c10::BFloat16 *, c10::BFloat16 *, const c10::BFloat16 *, int, long, long, int, int, int)", 1024, 2100, 1),
    ("void vllm::reshape_and_cache_flash_kernel<__nv_bfloat16, __nv_bfloat16, (vllm::Fp8KVCacheDataType)0>(const __nv_bfloat16 *, const __nv_bfloat16 *, __nv_bfloat16 *, __nv_bfloat16 *, const long *, int, int, int, int, int, int, const float *, const float *)", 1024, 2500, 1),
    ("void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase &)::[lambda() (instance 3)]::operator ()() const::[lambda() (instance 7)]::operator ()() const::[lambda(c10::BFloat16) (instance 1)]>(at::TensorIteratorBase &, const T1 &)::[lambda(int) (instance 1)]>(int, T3)", 128, 4100, 1),
    ("void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(T4 *, const T2 *, int)", 32, 38000, 1),
    ("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::ArgMaxOps<float>, unsigned int, long, 4>>(T3)", 32, 9500, 1),
]


def main():
    base, outdir = sys.argv[1], sys.argv[2]
    rng = random.Random(7)
    db = os.path.join(outdir, "kernels-2022.4.sqlite")
    shutil.copyfile(base, db)
    con = sqlite3.connect(db)
    cur = con.cursor()
    cur.execute("DROP TABLE IF EXISTS CUPTI_ACTIVITY_KIND_KERNEL")
    cur.execute("""CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,
        deviceId INTEGER, contextId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid INTEGER,
        demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, mangledName INTEGER,
        gridX INTEGER, gridY INTEGER, gridZ INTEGER, blockX INTEGER, blockY INTEGER, blockZ INTEGER)""")
    next_id = (cur.execute("SELECT coalesce(max(id), 0) FROM StringIds").fetchone()[0] or 0) + 1
    t = 1_000_000_000
    inst = []  # (name, dur)
    for k, (name, n, mean, shapes) in enumerate(KERNELS):
        sid = next_id + k
        cur.execute("INSERT INTO StringIds(id, value) VALUES (?, ?)", (sid, name))
        for i in range(n):
            dur = max(500, int(rng.gauss(mean, mean * 0.15)))
            shape = i % shapes
            grid = (132 * (shape + 1), 1, 1)
            cur.execute("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?,?,0,1,7,?,0,?,?,NULL,?,?,?,128,1,1)",
                        (t, t + dur, len(inst), sid, sid, *grid))
            inst.append((name, dur))
            t += dur + 1000
    con.commit()
    con.close()
    subprocess.run(["nsys", "stats", "--format", "csv", "--force-overwrite", "true", "--report", "gpukernsum",
                    "--output", os.path.join(outdir, "kernels-2022.4"), db], check=True,
                   stdout=subprocess.DEVNULL)
    os.remove(db)
    # New generation (2023.x+ cuda_gpu_kern_sum): one row per name, no grid/block.
    by = {}
    for name, d in inst:
        by.setdefault(name, []).append(d)
    total = sum(d for _, d in inst)
    rows = sorted(by.items(), key=lambda kv: -sum(kv[1]))
    with open(os.path.join(outdir, "kernels-2024.1_cuda_gpu_kern_sum.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["Time (%)", "Total Time (ns)", "Instances", "Avg (ns)", "Med (ns)", "Min (ns)", "Max (ns)", "StdDev (ns)", "Name"])
        for name, ds in rows:
            s = sum(ds)
            w.writerow([f"{100 * s / total:.1f}", s, len(ds), f"{s / len(ds):.1f}", f"{statistics.median(ds):.1f}",
                        min(ds), max(ds), f"{statistics.stdev(ds) if len(ds) > 1 else 0:.1f}", name])


if __name__ == "__main__":
    main()

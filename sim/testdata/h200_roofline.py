"""Measure the roofline floor of Llama-3.1-8B-shaped work on a real GPU (random weights).

Run on the device machine: python3 sweep/sim/testdata/h200_roofline.py OUT.json
Prints and writes: 1,024-token prefill time of a random-weight Llama-3.1-8B (Hugging Face
transformers, SDPA attention, logits for the last token only), single-token decode time of
the same model in eager mode and of its weight matmul stack replayed as a CUDA graph
(batch 1 and 32), plus the GPU's raw bf16 GEMM rate and copy bandwidth.
"""
import json
import sys
import time

import torch


def timed(fn, warm=3, reps=10):
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(reps):
        fn()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / reps  # ms


def main(out):
    res = {"gpu": torch.cuda.get_device_name(0), "torch": torch.__version__}
    a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    ms = timed(lambda: a @ a)
    res["gemm_8192_tflops"] = 2 * 8192**3 / (ms / 1e3) / 1e12
    src = torch.empty(4 * 2**30, dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    ms = timed(lambda: dst.copy_(src))
    res["copy_tbps_read_plus_write"] = 2 * src.numel() / (ms / 1e3) / 1e12
    del a, src, dst

    # Weight matmul stack of one decode step (Llama-3.1-8B shapes), as a CUDA graph.
    h, inter, layers, vocab = 4096, 14336, 32, 128256
    ws = []
    for _ in range(layers):
        ws.append([torch.randn(h, 6144, device="cuda", dtype=torch.bfloat16) * 0.01,
                   torch.randn(h, h, device="cuda", dtype=torch.bfloat16) * 0.01,
                   torch.randn(h, 2 * inter, device="cuda", dtype=torch.bfloat16) * 0.01,
                   torch.randn(inter, h, device="cuda", dtype=torch.bfloat16) * 0.01])
    head = torch.randn(h, vocab, device="cuda", dtype=torch.bfloat16) * 0.01
    weight_bytes = 2 * (sum(w.numel() for l in ws for w in l) + head.numel())
    res["stack_weight_gb"] = weight_bytes / 1e9
    for batch in (1, 32):
        x0 = torch.randn(batch, h, device="cuda", dtype=torch.bfloat16)

        def step():
            x = x0
            for wqkv, wo, wgu, wd in ws:
                _ = x @ wqkv
                x = x @ wo
                g = x @ wgu
                x = g[:, :inter] @ wd
            return x @ head

        step()
        torch.cuda.synchronize()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            step()
        ms = timed(graph.replay, warm=3, reps=20)
        res[f"decode_stack_graph_ms_batch{batch}"] = ms
        res[f"decode_stack_tbps_batch{batch}"] = weight_bytes / (ms / 1e3) / 1e12
    del ws, head
    torch.cuda.empty_cache()

    try:
        hf(res, h, inter, layers, vocab)
    except Exception as e:  # keep the measurements above
        res["hf_error"] = repr(e)
    print(json.dumps(res, indent=1))
    with open(out, "w") as f:
        json.dump(res, f, indent=1)


def hf(res, h, inter, layers, vocab):
    from transformers import LlamaConfig, LlamaForCausalLM
    cfg = LlamaConfig(hidden_size=h, intermediate_size=inter, num_hidden_layers=layers,
                      num_attention_heads=32, num_key_value_heads=8, vocab_size=vocab,
                      max_position_embeddings=8192, rope_theta=500000.0)
    cfg._attn_implementation = "sdpa"
    t0 = time.time()
    torch.set_default_dtype(torch.bfloat16)
    with torch.device("cuda"):
        model = LlamaForCausalLM(cfg)
    model.eval()
    res["model_params_b"] = sum(p.numel() for p in model.parameters()) / 1e9
    res["model_build_s"] = time.time() - t0
    ids = torch.randint(0, 128000, (1, 1024), device="cuda")
    with torch.inference_mode():
        res["prefill_1024_ms_hf_sdpa"] = timed(lambda: model(ids, use_cache=False, logits_to_keep=1), warm=2, reps=5)
        out_ = model(ids, use_cache=True, logits_to_keep=1)
        cache = out_.past_key_values
        nxt = ids[:, -1:]

        def dec():
            model(nxt, past_key_values=cache, use_cache=True, logits_to_keep=1)
            cache.crop(1024)

        res["decode_ms_hf_eager_ctx1024"] = timed(dec, warm=3, reps=20)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "h200.json")

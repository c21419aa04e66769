#!/usr/bin/env python3
"""Writes the importer's test fixtures: AIPerf per-request exports with their summary
(aiperf/c*/profile_export.jsonl + profile_export_aiperf.json) and vllm bench serve
result files (vllm/*.json), shaped as the tools write them, from a seeded random
sample of a simulated closed or open loop.

Each summary is computed the way its tool computes it, independently of llmcap's Go
code: AIPerf's MetricArray.to_result (numpy mean, population std, percentiles by
numpy's default linear method, over the profiling phase's records that have the
metric, in ns, then shown in ms; the inter-chunk latencies of all records flattened
into one list) and vLLM's calculate_metrics (over successful requests, in s, shown in
ms; tpot per request (latency - ttft)/(output_len - 1) for output_len > 1; itl the
chunk gaps of all requests flattened). Python's statistics.quantiles(method=
"inclusive") is numpy's linear percentile.

Standard library only. Run from this directory: python3 make_fixtures.py
"""

import json
import math
import os
import random
import statistics
import uuid

PCTS = [1, 5, 10, 25, 50, 75, 90, 95, 99]


def pct(xs, p):
    """numpy.percentile(xs, p) for integer p (linear interpolation)."""
    if len(xs) == 1:
        return float(xs[0])
    return statistics.quantiles(xs, n=100, method="inclusive")[p - 1]


def simulate(rng, n, slots, rate, warmup, per_chunk_tokens, t0_ns):
    """Requests of a closed loop (slots > 0, rate 0) or an open loop (rate > 0): dicts
    with send time, TTFT, chunk gaps (ns), ISL, OSL, and a failure for a few."""
    load = slots if slots else rate * 1.5
    free = [t0_ns] * max(slots, 1)
    t_arrival = t0_ns
    out = []
    for i in range(n + warmup):
        isl = rng.randint(100, 600)
        osl = rng.randint(8, 48)
        if slots:
            k = min(range(len(free)), key=lambda j: free[j])
            start = free[k] + rng.randint(50_000, 400_000)
        else:
            t_arrival += int(rng.expovariate(rate) * 1e9)
            start = t_arrival
        ttft = int((20 + isl * 0.05) * 1e6 * (1 + 0.15 * load) * rng.lognormvariate(0, 0.3))
        gaps, left = [], osl - 1
        while left > 0:
            tok = min(left, rng.choice(per_chunk_tokens))
            gaps.append(int(tok * 8e6 * (1 + 0.05 * load) * rng.lognormvariate(0, 0.25)))
            left -= tok
        fail = None
        if i >= warmup and i % 29 == 7:
            fail = ("server", 500) if i % 2 else ("timeout", None)
        lat = ttft + sum(gaps)
        end = start + (rng.randint(1_000_000, 5_000_000) if fail else lat)
        if slots:
            free[k] = end
        out.append(dict(start=start, end=end, ttft=ttft, gaps=gaps, isl=isl, osl=osl,
                        warmup=i < warmup, fail=fail))
    return out


def stat_block(xs_ns, unit_div, unit):
    """AIPerf's JsonMetricResult of xs (ns) in display unit (÷ unit_div)."""
    d = {"unit": unit, "avg": statistics.fmean(xs_ns) / unit_div}
    for p in PCTS:
        d[f"p{p}"] = pct(xs_ns, p) / unit_div
    d["min"] = min(xs_ns) / unit_div
    d["max"] = max(xs_ns) / unit_div
    d["std"] = statistics.pstdev(xs_ns) / unit_div
    return d


def aiperf(dirname, concurrency, n, seed):
    rng = random.Random(seed)
    t0 = 1_765_000_000_000_000_000 + seed * 1_000_000_000_000
    reqs = simulate(rng, n, concurrency, 0, 2, [1, 1, 1, 2], t0)
    os.makedirs(dirname, exist_ok=True)
    ttft, itl, icl, lat, isl, osl = [], [], [], [], [], []
    errors = {}
    with open(os.path.join(dirname, "profile_export.jsonl"), "w") as f:
        for i, q in enumerate(reqs):
            meta = {
                "session_num": i, "x_request_id": str(uuid.UUID(int=rng.getrandbits(128))),
                "x_correlation_id": str(uuid.UUID(int=rng.getrandbits(128))),
                "conversation_id": str(uuid.UUID(int=rng.getrandbits(128))), "turn_index": 0,
                "request_start_ns": q["start"], "request_ack_ns": q["start"] + 2_000_000 if not q["fail"] else None,
                "request_end_ns": q["end"], "worker_id": "worker_1a2b3c4d",
                "record_processor_id": "record_processor_5e6f7a8b",
                "benchmark_phase": "warmup" if q["warmup"] else "profiling",
                "was_cancelled": False, "cancellation_time_ns": None,
            }
            if q["fail"]:
                kind, code = q["fail"]
                err = ({"code": 500, "type": "Internal Server Error", "message": "upstream engine error"}
                       if kind == "server" else
                       {"code": None, "type": "TimeoutError", "message": "request timed out after 600.0 seconds"})
                metrics = {"error_isl": {"value": q["isl"], "unit": "tokens"}}
                if not q["warmup"]:
                    key = (err["code"], err["type"], err["message"])
                    errors[key] = errors.get(key, 0) + 1
                f.write(json.dumps({"metadata": meta, "metrics": metrics, "error": err}) + "\n")
                continue
            e2e = q["ttft"] + sum(q["gaps"])
            m = {
                "input_sequence_length": {"value": q["isl"], "unit": "tokens"},
                "time_to_first_token": {"value": q["ttft"] / 1e6, "unit": "ms"},
                "request_latency": {"value": e2e / 1e6, "unit": "ms"},
                "output_token_count": {"value": q["osl"], "unit": "tokens"},
                "inter_chunk_latency": {"value": [g / 1e6 for g in q["gaps"]], "unit": "ms"},
                "output_sequence_length": {"value": q["osl"], "unit": "tokens"},
                "inter_token_latency": {"value": (e2e - q["ttft"]) / (q["osl"] - 1) / 1e6, "unit": "ms"},
                "output_token_throughput_per_user": {"value": q["osl"] / (e2e / 1e9), "unit": "tokens/sec/user"},
            }
            f.write(json.dumps({"metadata": meta, "metrics": m, "error": None}) + "\n")
            if q["warmup"]:
                continue
            ttft.append(q["ttft"])
            lat.append(e2e)
            itl.append((e2e - q["ttft"]) / (q["osl"] - 1))
            icl.extend(q["gaps"])
            isl.append(q["isl"])
            osl.append(q["osl"])
    prof = [q for q in reqs if not q["warmup"]]
    start_ns = min(q["start"] for q in prof)
    end_ns = max(q["end"] for q in prof if not q["fail"])
    dur_s = (end_ns - start_ns) / 1e9
    summary = {
        "request_throughput": {"unit": "requests/sec", "avg": len(ttft) / dur_s},
        "request_latency": stat_block(lat, 1e6, "ms"),
        "request_count": {"unit": "requests", "avg": float(len(ttft))},
        "time_to_first_token": stat_block(ttft, 1e6, "ms"),
        "inter_token_latency": stat_block(itl, 1e6, "ms"),
        "output_token_throughput": {"unit": "tokens/sec", "avg": sum(osl) / dur_s},
        "output_sequence_length": stat_block(osl, 1, "tokens"),
        "input_sequence_length": stat_block(isl, 1, "tokens"),
        "inter_chunk_latency": stat_block(icl, 1e6, "ms"),
        "benchmark_duration": {"unit": "sec", "avg": dur_s},
        "error_request_count": {"unit": "requests", "avg": float(sum(errors.values()))},
        "input_config": {
            "endpoint": {"model_names": ["Qwen/Qwen3-0.6B"], "type": "chat", "streaming": True,
                         "url": "http://127.0.0.1:8000"},
            "loadgen": {"concurrency": concurrency, "request_count": n, "warmup_request_count": 2},
            "cli_command": f"aiperf profile --model Qwen/Qwen3-0.6B --url http://127.0.0.1:8000 "
                           f"--endpoint-type chat --streaming --concurrency {concurrency} "
                           f"--request-count {n} --warmup-request-count 2",
        },
        "was_cancelled": False,
        "error_summary": [{"error_details": {"code": k[0], "type": k[1], "message": k[2]}, "count": c}
                          for k, c in sorted(errors.items(), key=lambda kv: str(kv[0]))],
        "start_time": "2025-12-06T05:46:40.000000",
        "end_time": "2025-12-06T05:47:10.000000",
    }
    with open(os.path.join(dirname, "profile_export_aiperf.json"), "w") as f:
        json.dump(summary, f, indent=2)


def vllm(path, n, seed, rate, max_concurrency, detailed_new=True):
    rng = random.Random(seed)
    slots = max_concurrency if rate == math.inf else 0
    reqs = simulate(rng, n, slots, 0 if rate == math.inf else rate, 0, [1, 1, 2, 3], 0)
    base = 1234.5 + seed  # time.perf_counter() at the first send: an arbitrary origin
    ok = [q for q in reqs if not q["fail"]]
    res_ttfts, res_itls, res_lat, res_start, res_in, res_out, res_err = [], [], [], [], [], [], []
    for q in reqs:
        res_start.append(base + q["start"] / 1e9)
        res_in.append(q["isl"])
        if q["fail"]:
            res_ttfts.append(0.0)
            res_itls.append([])
            res_lat.append(0.0)
            res_out.append(0)
            res_err.append("Internal Server Error" if q["fail"][0] == "server" else
                           "Traceback (most recent call last):\n  File \"endpoint_request_func.py\", line 412\n"
                           "aiohttp.client_exceptions.ServerDisconnectedError: Server disconnected\n")
            continue
        res_ttfts.append(q["ttft"] / 1e9)
        gaps = [g / 1e9 for g in q["gaps"]]
        res_itls.append(gaps)
        res_lat.append(q["ttft"] / 1e9 + sum(gaps))
        res_out.append(q["osl"])
        res_err.append("")
    ttfts = [res_ttfts[i] for i, q in enumerate(reqs) if not q["fail"]]
    lats = [res_lat[i] for i, q in enumerate(reqs) if not q["fail"]]
    itls = [g for i, q in enumerate(reqs) if not q["fail"] for g in res_itls[i]]
    tpots = [(lats[k] - ttfts[k]) / (q["osl"] - 1) for k, q in enumerate(ok) if q["osl"] > 1]
    dur = max(q["end"] for q in reqs) / 1e9 + 0.01
    total_out = sum(res_out)
    result = {
        "date": f"20251206-0{seed % 10}1500", "endpoint_type": "openai-chat", "backend": "openai-chat",
        "label": None, "model_id": "Qwen/Qwen3-0.6B", "tokenizer_id": "Qwen/Qwen3-0.6B", "num_prompts": n,
        "request_rate": rate if rate != math.inf else "inf", "burstiness": 1.0, "max_concurrency": max_concurrency,
        "duration": dur, "completed": len(ok), "failed": n - len(ok),
        "total_input_tokens": sum(q["isl"] for q in ok), "total_output_tokens": total_out,
        "request_throughput": len(ok) / dur, "request_goodput": None, "output_throughput": total_out / dur,
        "total_token_throughput": (sum(q["isl"] for q in ok) + total_out) / dur,
        "input_lens": res_in, "output_lens": res_out, "ttfts": res_ttfts, "itls": res_itls,
        "latencies": res_lat, "start_times": res_start, "queue_times": [0.0] * n,
        "generated_texts": ["" for _ in reqs], "errors": res_err,
        "max_output_tokens_per_s": 0.0, "max_concurrent_requests": 0, "rtfx": 0.0,
    }
    if not detailed_new:  # versions before latencies, start_times and queue_times were saved
        for k in ("latencies", "start_times", "queue_times", "max_output_tokens_per_s", "max_concurrent_requests", "rtfx"):
            del result[k]
    for name, xs in (("ttft", ttfts), ("tpot", tpots), ("itl", itls)):
        result[f"mean_{name}_ms"] = statistics.fmean(xs) * 1000
        result[f"median_{name}_ms"] = statistics.median(xs) * 1000
        result[f"std_{name}_ms"] = statistics.pstdev(xs) * 1000
        result[f"p99_{name}_ms"] = pct(xs, 99) * 1000
    with open(path, "w") as f:
        json.dump(result, f)


if __name__ == "__main__":
    for c, seed in ((1, 11), (4, 12), (16, 13)):
        aiperf(f"aiperf/c{c}", c, 60, seed)
    os.makedirs("vllm", exist_ok=True)
    vllm("vllm/rate2.json", 80, 21, 2.0, None)
    vllm("vllm/rate6.json", 80, 22, 6.0, None)
    vllm("vllm/legacy-c8.json", 60, 23, math.inf, 8, detailed_new=False)

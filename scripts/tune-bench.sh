#!/usr/bin/env bash
# scripts/tune-bench.sh — issue #18's ground truth: the whole 96-setting grid of
# configs/tune-sim-grid.yaml measured once, then NSGA-II on the same space with 28
# trials (the plan's population 4, then 24 generations of one child: 29% of the grid),
# and the figures that compare them (scripts/tunebench): the best capacity NSGA-II
# found ÷ the grid's, and its front's hypervolume ÷ the grid front's, then NSGA-II and
# random search replayed against the grid's table. About 65 minutes on a 2-core
# machine; run it on an idle one.
#
#   bash scripts/tune-bench.sh [OUT_DIR]        # default /tmp/llmcap-tune-bench
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
out="${1:-/tmp/llmcap-tune-bench}"
mkdir -p "$out"
go build -o "$out/llmcap" ./cmd/llmcap
rm -rf "$out/grid" "$out/nsga2"
"$out/llmcap" tune -c configs/tune-sim-grid.yaml -o "$out/grid" --format json,pdf
"$out/llmcap" tune -c configs/tune-sim-grid.yaml -o "$out/nsga2" --format json,pdf \
  --set tune.algorithm=nsga2
go run ./scripts/tunebench "$out/grid" "$out/nsga2"

#!/usr/bin/env bash
# A lean check of the whole tree on a GPU when little device time is left: sm_90 build, every GPU
# test, every CPU test (lesson commands then run on the GPU), and each lesson's default run.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-lib.sh
gpu_begin gpu-merged
gpu_build
ctest --test-dir build/gpu -L gpu --output-on-failure >"$OUT/ctest.log" 2>&1
note "gpu tests: $(grep -E 'tests passed|tests failed' "$OUT/ctest.log")"
ctest --test-dir build/gpu -L cpu -j 8 --output-on-failure >>"$OUT/ctest.log" 2>&1
note "cpu tests on the GPU machine: $(grep -E 'tests passed|tests failed' "$OUT/ctest.log" | tail -1)"
grep -E '\(Failed\)|\*\*\*Failed' "$OUT/ctest.log" | head -20
for l in $(build/gpu/src/cudasync list --json | python3 -c 'import json,sys; print(" ".join(r["lesson"] for r in json.load(sys.stdin)["report"]["sections"]["lessons"]["tables"]["lessons"]["rows"]))'); do
  t0=$(date +%s%N); build/gpu/src/cudasync "$l" --color never >"$OUT/lessons.txt.tmp" 2>&1; rc=$?; t1=$(date +%s%N)
  note "$l: exit $rc, $(( (t1 - t0) / 1000000 )) ms, $(grep -E '^checks:' "$OUT/lessons.txt.tmp" | tail -1)"
  cat "$OUT/lessons.txt.tmp" >>"$OUT/lessons.txt"
done
rm -f "$OUT/lessons.txt.tmp"
gpu_end

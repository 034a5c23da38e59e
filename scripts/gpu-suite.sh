#!/usr/bin/env bash
# One call on a GPU machine: configure + build (default preset: sm_75..sm_90 + PTX), the whole
# test suite (GPU tests run for real), compute-sanitizer, start-up timings and the benchmark.
# Logs go to $OUT (the device tool brings them back); the last lines are the summary.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-lib.sh
gpu_begin gpu-suite
gpu_build default

ctest --preset default -L gpu --output-on-failure >"$OUT/ctest.log" 2>&1
note "gpu tests: $(grep -E 'tests passed|tests failed' "$OUT/ctest.log")"
grep -E 'SKIPPED|Failed|\*\*\*' "$OUT/ctest.log" | head -20
ctest --preset default -j 8 --output-on-failure >"$OUT/ctest-all.tmp" 2>&1
note "all tests: $(grep -E 'tests passed|tests failed' "$OUT/ctest-all.tmp")"
grep -E 'Failed|\*\*\*' "$OUT/ctest-all.tmp" | head -20
cat "$OUT/ctest-all.tmp" >>"$OUT/ctest.log" && rm "$OUT/ctest-all.tmp"

# Correct variants run clean under memcheck and racecheck; the seed's racy loop must be caught.
sanitize memcheck all warp-primitives --backend gpu --variant guarded,registers
sanitize racecheck correct warp-primitives --backend gpu --variant guarded,registers
sanitize racecheck racy warp-primitives --backend gpu --part syncwarp --variant racy
sanitize synccheck correct warp-primitives --backend gpu --variant guarded,registers

# Wall time of the default run including CUDA start-up, and of --help (five runs each).
wall_ms warp-primitives
wall_ms --help

"$bin" warp-primitives --color never >"$OUT/warp-primitives.txt" 2>&1
note "default run: $(tail -1 "$OUT/warp-primitives.txt")"
"$bin" warp-primitives --bench --part cost --json="$OUT/bench.json" >"$OUT/bench.txt" 2>&1
sed -n '/measurement/,$p' "$OUT/bench.txt"
"$bin" devices >>"$OUT/bench.txt" 2>&1

gpu_end

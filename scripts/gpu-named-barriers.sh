#!/usr/bin/env bash
# named-barriers on a GPU machine, in one call: build (preset gpu: sm_90, -Werror), the GPU tests,
# the CPU tests against the GPU binary (every lesson command then runs on the GPU), the lesson's
# commands, compute-sanitizer racecheck / synccheck / memcheck on the correct parts, wall times,
# and the --bench table. Logs go to $OUT (at most 8 files); the last lines are the summary.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-lib.sh
gpu_begin named-barriers
gpu_build
note "$(grep -m1 'kernel listing with' "$OUT/build.log" | sed 's/^-- //')"

ctest --test-dir build/gpu -L gpu --output-on-failure >"$OUT/ctest-gpu.log" 2>&1
note "gpu tests: $(grep -E 'tests passed|tests failed' "$OUT/ctest-gpu.log")"
grep -E '\*\*\*Failed|Failure|SKIPPED|MISUSE|RACE' "$OUT/ctest-gpu.log" | head -20
ctest --test-dir build/gpu -L cpu -j 8 --output-on-failure >"$OUT/ctest-cpu.log" 2>&1
note "cpu tests on the GPU machine: $(grep -E 'tests passed|tests failed' "$OUT/ctest-cpu.log")"
grep -E '\*\*\*Failed' "$OUT/ctest-cpu.log" | head -20

# The lesson's commands, as the issue shows them.
{
  for args in "named-barriers --part producer-consumer --producers 64 --consumers 64 --trace" \
              "named-barriers --part bar-red --predicate lane<5" \
              "named-barriers --part misuse --count 48 --arrive 32" \
              "named-barriers --part misuse --count 64 --arrive 96" \
              "named-barriers --barrier-ids 16,2" "named-barriers --producers 48"; do
    echo "### cudasync $args"
    # shellcheck disable=SC2086
    "$bin" $args --color never 2>&1
    echo "### exit $?"
  done
} >"$OUT/commands.txt" 2>&1
"$bin" named-barriers --color never >"$OUT/named-barriers.txt" 2>&1
note "default run: exit $?, $(tail -1 "$OUT/named-barriers.txt")"
grep -E 'FAIL|note: case|nothing hung' "$OUT/named-barriers.txt" | head -12
# early-stamp: what a clock read right after the barrier measured (the lesson quotes it)
sed -n '/stamps of the warps that waited/,/^$/p' "$OUT/named-barriers.txt"
while read -r l; do note "$l"; done < <(grep -E -A3 'naive stamp' "$OUT/named-barriers.txt" | sed 's/^ *//' | tr -s ' ' | head -8)

# Correct parts under compute-sanitizer (the misuse part is wrong on purpose and is left out).
correct=bar-sync,early-stamp,producer-consumer,bar-red,cuda-barrier
sanitize racecheck "$correct" named-barriers --backend gpu --part "$correct" --trace
sanitize synccheck "$correct,cost" named-barriers --backend gpu --part "$correct,cost" --trace
sanitize memcheck "$correct" named-barriers --backend gpu --part "$correct" --trace

wall_ms named-barriers
wall_ms --help

"$bin" named-barriers --bench --part cost --color never --json="$OUT/bench.json" >"$OUT/bench.txt" 2>&1
note "bench: exit $?"
sed -n '/ns per barrier, median/,/^  measurement/p' "$OUT/bench.txt"

gpu_end

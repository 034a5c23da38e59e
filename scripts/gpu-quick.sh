#!/usr/bin/env bash
# A first look on the GPU: build the binary and the GPU tests only (sm_90), run them, run the
# lesson once, and the sanitizers. scripts/gpu-suite.sh is the full suite.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/cudasync-gpu-quick}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
if ! { cmake --preset gpu && cmake --build build/gpu --target cudasync cudasync_gpu_tests -j 16; } >"$OUT/build.log" 2>&1; then
  grep -E 'error|Error|Could not find' "$OUT/build.log" | head -30; tail -30 "$OUT/build.log"; exit 1
fi
bin=build/gpu/src/cudasync
build/gpu/tests/cudasync_gpu_tests >"$OUT/gpu-tests.log" 2>&1
grep -E '^\[  (FAILED|SKIPPED|PASSED) |RACE|Failure|Expected|Which is|actual' "$OUT/gpu-tests.log" | head -40
"$bin" warp-primitives --color never >"$OUT/wp.txt" 2>&1; echo "default run exit $?"
grep -E 'FAIL|checks:|note:' "$OUT/wp.txt" | head -20
sed -n '/== cost/,$p' "$OUT/wp.txt"
for t in memcheck racecheck synccheck; do
  compute-sanitizer --tool $t --error-exitcode 99 "$bin" warp-primitives --backend gpu --variant guarded,registers >"$OUT/san-$t.log" 2>&1
  echo "$t correct: exit $? $(tail -1 "$OUT/san-$t.log")"
done
compute-sanitizer --tool racecheck --error-exitcode 99 "$bin" warp-primitives --backend gpu --op syncwarp --variant racy >"$OUT/san-racy.log" 2>&1
echo "racecheck racy: exit $? $(grep -E 'RACECHECK SUMMARY|hazard' "$OUT/san-racy.log" | tail -2)"
for i in 1 2 3; do t0=$(date +%s%N); "$bin" warp-primitives >/dev/null 2>&1; t1=$(date +%s%N); echo "wall ms default run: $(( (t1-t0)/1000000 ))"; done
for i in 1 2 3; do t0=$(date +%s%N); "$bin" --help >/dev/null 2>&1; t1=$(date +%s%N); echo "wall ms --help: $(( (t1-t0)/1000000 ))"; done

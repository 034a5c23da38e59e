#!/usr/bin/env bash
# The cg-reduce lesson on a GPU machine, in one call: build (preset gpu, sm_90), the GPU tests, the
# lesson's own CPU tests and the lesson-text commands (which run on the GPU there), the default run
# timed, compute-sanitizer on a small run, and the --bench sweep. Logs go to $OUT; the summary is
# printed last.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/cudasync-cg-reduce}
mkdir -p "$OUT"
summary=()
note() { summary+=("$*"); echo "== $*"; }

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total --format=csv
nvcc --version | tail -1

start=$(date +%s)
if ! { cmake --preset gpu -DCUDASYNC_WERROR=ON && cmake --build --preset gpu -j 16; } >"$OUT/build.log" 2>&1; then
  grep -E 'error|Error' "$OUT/build.log" | head -40
  tail -30 "$OUT/build.log"
  echo "BUILD FAILED"
  exit 1
fi
note "build: $(( $(date +%s) - start )) s"
bin=build/gpu/src/cudasync

ctest --preset gpu --output-on-failure >"$OUT/ctest-gpu.log" 2>&1
note "gpu tests: $(grep -E 'tests passed|tests failed' "$OUT/ctest-gpu.log")"
grep -E 'SKIPPED|\(Failed\)|Failure|Expected|Which is|actual|GPU [0-9.e+-]+, model' "$OUT/ctest-gpu.log" | head -30
ctest --test-dir build/gpu -R 'CgReduce|LessonCommands' -j 8 --output-on-failure >"$OUT/ctest-cpu.log" 2>&1
note "cg-reduce cpu tests and lesson commands (on the GPU): $(grep -E 'tests passed|tests failed' "$OUT/ctest-cpu.log")"
grep -E '\(Failed\)|Failure|Expected|Which is|stderr' "$OUT/ctest-cpu.log" | head -20

# The default run: wall time including CUDA start-up (goal < 1 s), five runs.
times=()
for i in 1 2 3 4 5; do
  t0=$(date +%s%N); "$bin" cg-reduce >/dev/null 2>&1; t1=$(date +%s%N)
  times+=("$(( (t1 - t0) / 1000000 ))")
done
note "wall ms for 'cudasync cg-reduce': ${times[*]}"
"$bin" cg-reduce --color never >"$OUT/cg-reduce.txt" 2>&1
note "default run: exit $?, $(tail -1 "$OUT/cg-reduce.txt")"
sed -n '/== the ladder/,/checks:/p' "$OUT/cg-reduce.txt"
grep -E 'whole reduce|\[FAIL\]' "$OUT/cg-reduce.txt" | head -10
"$bin" cg-reduce --n 1000000 --block 128 --trace --trace-warp 1 --color never >>"$OUT/cg-reduce.txt" 2>&1
note "trace run: exit $?, $(tail -1 "$OUT/cg-reduce.txt")"
"$bin" cg-reduce --variant grid-sync --grid 1000000000 --n 100000 --color never >>"$OUT/cg-reduce.txt" 2>&1
note "grid-sync with a grid too large: exit $?"
grep -A3 '== waived' "$OUT/cg-reduce.txt" | head -4

# The sweep: 2^20 ... 2^28, float and double.
t0=$(date +%s)
"$bin" cg-reduce --bench --color never --json="$OUT/bench.json" >"$OUT/bench.txt" 2>&1
note "bench: exit $?, $(( $(date +%s) - t0 )) s, $(tail -1 "$OUT/bench.txt")"
# Two more block sizes for the fastest rungs, large sizes only.
for b in 256 512; do
  "$bin" cg-reduce --bench --sizes 26,28 --dtype float --block "$b" --variant two-pass,grid-sync,cub --color never \
    >>"$OUT/bench-blocks.txt" 2>&1
  note "bench --block $b: $(grep -E 'best rung' "$OUT/bench-blocks.txt" | tail -1 | sed 's/^ *//')"
done

# compute-sanitizer on small runs of every rung (and the traced kernels).
for tool in memcheck racecheck synccheck; do
  timeout 90 compute-sanitizer --tool "$tool" --error-exitcode 99 "$bin" cg-reduce --backend gpu --n 5003 \
    --block 64 --trace --trace-block 2 >"$OUT/san.tmp" 2>&1
  rc=$?
  note "compute-sanitizer $tool: exit $rc, $(grep -E 'SUMMARY' "$OUT/san.tmp" | tail -1 | sed 's/^=* *//')"
  { echo "### $tool"; cat "$OUT/san.tmp"; } >>"$OUT/sanitizer.log"
done
rm -f "$OUT/san.tmp"

echo
sed -n '/== bench: float/,/measurement/p' "$OUT/bench.txt" | head -60
sed -n '/== bench: double/,/measurement/p' "$OUT/bench.txt" | head -60
echo
echo "SUMMARY"
printf '%s\n' "${summary[@]}"

#!/usr/bin/env bash
# The cg-reduce lesson on a GPU machine, in one call: build (preset gpu, sm_90), the GPU tests, the
# lesson's own CPU tests and the lesson-text commands (which run on the GPU there), the default run
# timed, compute-sanitizer on a small run, and the --bench sweep. Logs go to $OUT; the summary is
# printed last.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-lib.sh
gpu_begin cg-reduce
gpu_build

ctest --preset gpu --output-on-failure >"$OUT/ctest-gpu.log" 2>&1
note "gpu tests: $(grep -E 'tests passed|tests failed' "$OUT/ctest-gpu.log")"
grep -E 'SKIPPED|\(Failed\)|Failure|Expected|Which is|actual|GPU [0-9.e+-]+, model' "$OUT/ctest-gpu.log" | head -30
ctest --test-dir build/gpu -R 'CgReduce|LessonCommands' -j 8 --output-on-failure >"$OUT/ctest-cpu.log" 2>&1
note "cg-reduce cpu tests and lesson commands (on the GPU): $(grep -E 'tests passed|tests failed' "$OUT/ctest-cpu.log")"
grep -E '\(Failed\)|Failure|Expected|Which is|stderr' "$OUT/ctest-cpu.log" | head -20

# The default run: wall time including CUDA start-up (goal < 1 s), five runs.
wall_ms cg-reduce
"$bin" cg-reduce --color never >"$OUT/cg-reduce.txt" 2>&1
note "default run: exit $?, $(tail -1 "$OUT/cg-reduce.txt")"
sed -n '/== the ladder/,/checks:/p' "$OUT/cg-reduce.txt"
grep -E 'whole reduce|\[FAIL\]' "$OUT/cg-reduce.txt" | head -10
"$bin" cg-reduce --n 1000000 --block 128 --part trace --trace-warp 1 --color never >>"$OUT/cg-reduce.txt" 2>&1
note "trace run: exit $?, $(tail -1 "$OUT/cg-reduce.txt")"
"$bin" cg-reduce --part grid-sync --grid 1000000000 --n 100000 --color never >>"$OUT/cg-reduce.txt" 2>&1
note "grid-sync with a grid too large: exit $?"
grep -A3 '== waived' "$OUT/cg-reduce.txt" | head -4

# The sweep: 2^20 ... 2^28, float and double.
t0=$(date +%s)
"$bin" cg-reduce --bench --color never --json="$OUT/bench.json" >"$OUT/bench.txt" 2>&1
note "bench: exit $?, $(( $(date +%s) - t0 )) s, $(tail -1 "$OUT/bench.txt")"
# Two more block sizes, large sizes only: the best kernel at 2^28 for each.
for b in 256 512; do
  "$bin" cg-reduce --bench --sizes 26,28 --dtype float --block "$b" --color never >"$OUT/bench-block-$b.txt" 2>&1
  note "bench --block $b: $(sed -n '/the highest kernel/,/^$/p' "$OUT/bench-block-$b.txt" | grep -E '^ *2\^28' | sed 's/^ *//')"
done

# compute-sanitizer on small runs of every rung (and the traced kernels).
for tool in memcheck racecheck synccheck; do
  sanitize "$tool" "every rung, traced" cg-reduce --backend gpu --n 5003 --block 64 \
    --part shared,syncwarp,shfl,cg,two-pass,static,grid-sync,cub,trace --trace-block 2
done

echo
sed -n '/== bench: float/,/measurement/p' "$OUT/bench.txt" | head -60
sed -n '/== bench: double/,/measurement/p' "$OUT/bench.txt" | head -60
gpu_end

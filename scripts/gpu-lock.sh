#!/usr/bin/env bash
# The lock lesson on a GPU machine, in one call: build (preset gpu, sm_90), the lock GPU tests, the
# lesson's own CPU tests and every lesson-text command (which run on the GPU there), the default run
# timed, the issue's own commands, --bench, and compute-sanitizer memcheck on the correct variants.
# Logs go to $OUT (at most 8 files); the summary is printed last.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-lib.sh
gpu_begin lock
gpu_build

start=$(date +%s)
ctest --test-dir build/gpu -L gpu -R '^Lock[A-Z]' --output-on-failure >"$OUT/ctest-gpu.log" 2>&1
note "lock gpu tests: $(grep -E 'tests passed|tests failed' "$OUT/ctest-gpu.log"), $(( $(date +%s) - start )) s"
grep -E 'SKIPPED|\(Failed\)|Failure|Expected|Which is|actual|gave up|variant [0-9]|answer' "$OUT/ctest-gpu.log" | head -30
ctest --test-dir build/gpu -R '^Lock[A-Z]|LessonCommands|ChildProcess' -L cpu -j 8 --output-on-failure \
  >"$OUT/ctest-cpu.log" 2>&1
note "lock cpu tests, child-process tests and lesson commands (on the GPU): $(grep -E 'tests passed|tests failed' "$OUT/ctest-cpu.log")"
grep -E '\(Failed\)|Failure|Expected|Which is|stderr' "$OUT/ctest-cpu.log" | head -20

# The default run: wall time including CUDA start-up and the part-4 child (goal < 1 s), five runs.
wall_ms lock
"$bin" lock --color never >"$OUT/lock.txt" 2>&1
note "default run: exit $?, $(tail -1 "$OUT/lock.txt")"
grep -E '\[FAIL\]|verdict|count after|lost updates|time per|~CudaKernelLock|combining / CAS|critical sections served' \
  "$OUT/lock.txt" | head -30

# The issue's own commands, and part 6 at 132 x 128.
{
  echo "### lock --part stale-reads --blocks 132 --iters 10000"
  t0=$(date +%s%N)
  "$bin" lock --part stale-reads --blocks 132 --iters 10000 --color never
  echo "exit $?, $(( ($(date +%s%N) - t0) / 1000000 )) ms"
  echo "### lock --part warp-deadlock --model lockstep"
  "$bin" lock --part warp-deadlock --model lockstep --color never
  echo "exit $?"
  echo "### lock --part warp-deadlock --threads 1024 --iters 20"
  "$bin" lock --part warp-deadlock --threads 1024 --iters 20 --color never
  echo "exit $?"
  echo "### lock --part combining --threads 128 --iters 10"
  "$bin" lock --part combining --threads 128 --iters 10 --color never
  echo "exit $?"
} >"$OUT/examples.txt" 2>&1
note "issue commands and part 6 at 132 x 128: $(grep -cE '^exit 0' "$OUT/examples.txt") of 4 exit 0"
sed -n '/lost updates per variant/,/^$/p' "$OUT/examples.txt"
grep -E '^exit|combining / CAS|critical sections served|<<<1, 1024>>>' "$OUT/examples.txt" | head -12

# The bench before the sanitizer: figures from a GPU nothing else is using.
t0=$(date +%s)
"$bin" lock --bench --color never --json="$OUT/bench.json" >"$OUT/bench.txt" 2>&1
note "bench: exit $?, $(( $(date +%s) - t0 )) s, $(tail -1 "$OUT/bench.txt")"
while read -r l; do note "$l"; done < <(grep -E 'best lock' -A2 "$OUT/bench.txt" | sed 's/^ *//' | head -8)
while read -r l; do note "$l"; done < <(grep -E 'critical sections per lock handoff' -A1 "$OUT/bench.txt" | sed 's/^ *//')

# compute-sanitizer memcheck on the correct variants, small shapes (the copy-destructor child frees
# its mutex on purpose: only this process is checked, where the fixes run).
sanitize memcheck "lock-class, thread-lock" lock --backend gpu --part lock-class,thread-lock --blocks 8 --iters 3
sanitize memcheck "warp-deadlock" lock --backend gpu --part warp-deadlock --threads 32 --iters 3
sanitize memcheck "stale-reads" lock --backend gpu --part stale-reads --blocks 8 --iters 3 --runs 1
sanitize memcheck "copy-destructor" lock --backend gpu --part copy-destructor
sanitize memcheck "combining" lock --backend gpu --part combining --blocks 6 --threads 40 --iters 3

echo
sed -n '/ns per update, median/,/^$/p' "$OUT/bench.txt"
sed -n '/x CAS lock (median/,/^$/p' "$OUT/bench.txt"
gpu_end

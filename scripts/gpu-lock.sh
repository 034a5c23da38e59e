#!/usr/bin/env bash
# The lock lesson on a GPU machine, in one call: build (preset gpu, sm_90), the lock GPU tests, the
# lesson's own CPU tests and every lesson-text command (which run on the GPU there), the default run
# timed, larger runs of some parts, --bench, and compute-sanitizer memcheck on the correct variants
# (the shared Mutex of part 6 among them: no kernel may touch freed memory).
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

# The default run: wall time including CUDA start-up and the part-5 child (goal < 1 s), five runs.
wall_ms lock
"$bin" lock --color never >"$OUT/lock.txt" 2>&1
note "default run: exit $?, $(tail -1 "$OUT/lock.txt")"
grep -E '\[FAIL\]|verdict|count after|lost updates|time per|~CudaKernelLock|~Mutex|combining / CAS|critical sections served|lost with a delay' \
  "$OUT/lock.txt" | head -40
sed -n '/lost updates with a delay, and with a fix/,/^$/p' "$OUT/lock.txt"
sed -n '/the GPU run, step by step/,/^$/p' "$OUT/lock.txt"

# Larger runs: stale reads over 1.32 million acquisitions, the lockstep model, 1024 lanes, part 8 at
# 132 x 128, and part 4 with a 100 us delay.
{
  echo "### lock --part stale-reads --blocks 132 --iterations 10000"
  t0=$(date +%s%N)
  "$bin" lock --part stale-reads --blocks 132 --iterations 10000 --color never
  echo "exit $?, $(( ($(date +%s%N) - t0) / 1000000 )) ms"
  echo "### lock --part warp-deadlock --model lockstep"
  "$bin" lock --part warp-deadlock --model lockstep --color never
  echo "exit $?"
  echo "### lock --part warp-deadlock --threads 1024 --iterations 20"
  "$bin" lock --part warp-deadlock --threads 1024 --iterations 20 --color never
  echo "exit $?"
  echo "### lock --part combining --threads 128 --iterations 10"
  "$bin" lock --part combining --threads 128 --iterations 10 --color never
  echo "exit $?"
  echo "### lock --part delay-fix --delays 100000 --iterations 5"
  "$bin" lock --part delay-fix --delays 100000 --iterations 5 --color never
  echo "exit $?"
} >"$OUT/examples.txt" 2>&1
note "larger runs: $(grep -cE '^exit 0' "$OUT/examples.txt") of 5 exit 0"
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
sanitize memcheck "lock-class, thread-lock" lock --backend gpu --part lock-class,thread-lock --blocks 8 --iterations 3
sanitize memcheck "warp-deadlock" lock --backend gpu --part warp-deadlock --threads 32 --iterations 3
sanitize memcheck "stale-reads" lock --backend gpu --part stale-reads --blocks 8 --iterations 3 --runs 1
sanitize memcheck "copy-destructor" lock --backend gpu --part copy-destructor
sanitize memcheck "combining" lock --backend gpu --part combining --blocks 6 --threads 40 --iterations 3
sanitize memcheck "shared-mutex" lock --backend gpu --part shared-mutex
sanitize memcheck "delay-fix" lock --backend gpu --part delay-fix --blocks 8 --iterations 3 --runs 1

echo
sed -n '/ns per update, median/,/^$/p' "$OUT/bench.txt"
sed -n '/x CAS lock (median/,/^$/p' "$OUT/bench.txt"
gpu_end

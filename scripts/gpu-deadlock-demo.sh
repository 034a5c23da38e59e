#!/usr/bin/env bash
# The deadlock-demo lesson on a GPU machine, in one call: build (preset gpu, sm_90), the lesson's GPU
# tests and the core deadline/co-residency ones, the lesson's CPU tests and every lesson-text
# command (which run on the GPU there), the default run timed five times, the issue's own commands,
# the --sanitize run (compute-sanitizer synccheck on the divergent __syncthreads child), and
# compute-sanitizer memcheck on the scenarios and their fixes. Logs go to $OUT (at most 8 files);
# the summary is printed last.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-lib.sh
gpu_begin deadlock-demo
gpu_build

start=$(date +%s)
timeout 200 ctest --test-dir build/gpu -L gpu -R 'DeadlockDemo|DeadlineGpu|OccupancyGpu|CoresidencyGpu' --output-on-failure \
  >"$OUT/ctest-gpu.log" 2>&1
note "gpu tests (deadlock-demo, deadline, co-residency): $(grep -E 'tests passed|tests failed' "$OUT/ctest-gpu.log"), $(( $(date +%s) - start )) s"
grep -E 'SKIPPED|\(Failed\)|Failure|Expected|Which is|actual|gave up|GPU:' "$OUT/ctest-gpu.log" | head -30
start=$(date +%s)
timeout 300 ctest --test-dir build/gpu -L cpu -R 'DeadlockDemo|LessonCommands|ChildProcess' -j 8 --output-on-failure \
  >"$OUT/ctest-cpu.log" 2>&1
note "deadlock-demo cpu tests, child-process tests and every lesson command (on the GPU): $(grep -E 'tests passed|tests failed' "$OUT/ctest-cpu.log"), $(( $(date +%s) - start )) s"
grep -E '\(Failed\)|Failure|Expected|Which is|stderr' "$OUT/ctest-cpu.log" | head -20

# The default run: wall time including CUDA start-up and both children (goal well under 5 s), five runs.
wall_ms deadlock-demo
"$bin" deadlock-demo --color never --json="$OUT/default.json" >"$OUT/default.txt" 2>&1
note "default run: exit $?, $(tail -1 "$OUT/default.txt")"
grep -E '\[FAIL\]' -A3 "$OUT/default.txt" | head -30
while read -r l; do note "$l"; done < <(grep -E 'this GPU: who was stuck|this GPU, the cycle: who|^  this GPU  |as the model reads|fix 1:|fix 2:|fix: tickets|fix: both|child process  |counter at the end|tickets equal' "$OUT/default.txt" | sed 's/^ *//' | cut -c1-230)
sed -n '/32 lanes of one warp/,/^$/p' "$OUT/default.txt"

# The issue's own commands.
{
  echo "### deadlock-demo --scenario grid-oversubscribed --blocks 4000 --deadline-ms 200"
  t0=$(date +%s%N)
  "$bin" deadlock-demo --scenario grid-oversubscribed --blocks 4000 --deadline-ms 200 --color never
  echo "exit $?, $(( ($(date +%s%N) - t0) / 1000000 )) ms"
  echo "### deadlock-demo --scenario warp-spinlock --model lockstep"
  "$bin" deadlock-demo --scenario warp-spinlock --model lockstep --color never
  echo "exit $?"
  echo "### deadlock-demo --json (jq '.report' where jq exists)"
  if command -v jq >/dev/null; then "$bin" deadlock-demo --json | jq '.report' >/dev/null; else "$bin" deadlock-demo --json >/dev/null; fi
  echo "exit $?"
  echo "### deadlock-demo --scenario producer-before-consumer --blocks 3000"
  "$bin" deadlock-demo --scenario producer-before-consumer --blocks 3000 --color never
  echo "exit $?"
} >"$OUT/examples.txt" 2>&1
note "issue commands: $(grep -cE '^exit 0' "$OUT/examples.txt") of 4 exit 0"
while read -r l; do note "$l"; done < <(grep -E '^exit|this GPU: who was stuck' "$OUT/examples.txt" | sed 's/^ *//' | cut -c1-230)

# --sanitize: the divergent __syncthreads child under compute-sanitizer synccheck.
t0=$(date +%s)
"$bin" deadlock-demo --scenario divergent-syncthreads --sanitize --color never >"$OUT/sanitize.txt" 2>&1
note "--sanitize run: exit $?, $(( $(date +%s) - t0 )) s; $(grep -E 'synccheck says' "$OUT/sanitize.txt" | sed 's/^ *//')"
sed -n '/compute-sanitizer --tool synccheck, its report/,/^$/p' "$OUT/sanitize.txt" | head -40

# compute-sanitizer memcheck on every scenario this process runs, and their fixes (grids that fit,
# so that every launch completes or ends at its deadline; a generous deadline for the slow tool).
for args in "--scenario grid-oversubscribed --blocks 64" "--scenario producer-before-consumer --blocks 64" \
            "--scenario warp-spinlock,lock-order"; do
  sanitize memcheck "$args" deadlock-demo --backend gpu $args --deadline-ms 1000
done

gpu_end

#!/usr/bin/env bash
# The lock lesson on a GPU machine, in one call: build (preset gpu, sm_90), the GPU tests, the
# lesson's own CPU tests and every lesson-text command (which run on the GPU there), the default run
# timed, the issue's own commands, compute-sanitizer memcheck on the correct variants, and --bench.
# Logs go to $OUT (at most 8 files); the summary is printed last.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/cudasync-lock}
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

start=$(date +%s)
ctest --preset gpu --output-on-failure >"$OUT/ctest-gpu.log" 2>&1
note "gpu tests: $(grep -E 'tests passed|tests failed' "$OUT/ctest-gpu.log"), $(( $(date +%s) - start )) s"
grep -E 'SKIPPED|\(Failed\)|Failure|Expected|Which is|actual|gave up|variant [0-9]' "$OUT/ctest-gpu.log" | head -30
ctest --test-dir build/gpu -R 'Lock|LessonCommands|ChildProcess|NamedBarriersMisuse' -j 8 --output-on-failure \
  >"$OUT/ctest-cpu.log" 2>&1
note "lock cpu tests, child-process tests and lesson commands (on the GPU): $(grep -E 'tests passed|tests failed' "$OUT/ctest-cpu.log")"
grep -E '\(Failed\)|Failure|Expected|Which is|stderr' "$OUT/ctest-cpu.log" | head -20

# The default run: wall time including CUDA start-up and the part-4 child (goal < 1 s), five runs.
times=()
for i in 1 2 3 4 5; do
  t0=$(date +%s%N); "$bin" lock >/dev/null 2>&1; t1=$(date +%s%N)
  times+=("$(( (t1 - t0) / 1000000 ))")
done
note "wall ms for 'cudasync lock': ${times[*]}"
"$bin" lock --color never >"$OUT/lock.txt" 2>&1
note "default run: exit $?, $(tail -1 "$OUT/lock.txt")"
grep -E '\[FAIL\]|verdict|count after|lost updates|time per|~CudaKernelLock|best lock' "$OUT/lock.txt" | head -30
sed -n '/lost updates per variant/,/^$/p' "$OUT/lock.txt"
sed -n '/the child process: the seed/,/^$/p' "$OUT/lock.txt"

# The issue's own commands.
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
} >"$OUT/examples.txt" 2>&1
note "issue commands: $(grep -cE '^exit 0' "$OUT/examples.txt") of 3 exit 0"
sed -n '/lost updates per variant/,/^$/p' "$OUT/examples.txt"
grep -E '^exit|this GPU beside' -A3 "$OUT/examples.txt" | grep -E 'exit|<<<1, 1024>>>' | head -8

# The bench before the sanitizer: figures from a GPU nothing else is using.
t0=$(date +%s)
"$bin" lock --bench --color never --json="$OUT/bench.json" >"$OUT/bench.txt" 2>&1
note "bench: exit $?, $(( $(date +%s) - t0 )) s, $(tail -1 "$OUT/bench.txt")"
while read -r l; do note "$l"; done < <(grep -E 'best lock' -A2 "$OUT/bench.txt" | sed 's/^ *//' | head -8)

# compute-sanitizer memcheck on the correct variants, small shapes (the copy-destructor child frees
# its mutex on purpose: only this process is checked, where the fixes run).
for args in "--part lock-class,thread-lock --blocks 8 --iters 3" \
            "--part warp-deadlock --threads 32 --iters 3" \
            "--part stale-reads --blocks 8 --iters 3 --runs 1" \
            "--part copy-destructor"; do
  timeout 120 compute-sanitizer --tool memcheck --target-processes application-only --error-exitcode 99 \
    "$bin" lock --backend gpu $args --color never >"$OUT/san.tmp" 2>&1
  rc=$?
  note "memcheck lock $args: exit $rc, $(grep -E 'ERROR SUMMARY' "$OUT/san.tmp" | tail -1 | sed 's/^=* *//')"
  { echo "### $args"; cat "$OUT/san.tmp"; } >>"$OUT/sanitizer.log"
done
rm -f "$OUT/san.tmp"

echo
sed -n '/ns per update, median/,/^$/p' "$OUT/bench.txt"
sed -n '/x CAS spin lock/,/^$/p' "$OUT/bench.txt"
echo
echo "SUMMARY"
printf '%s\n' "${summary[@]}"

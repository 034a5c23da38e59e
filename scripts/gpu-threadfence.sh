#!/usr/bin/env bash
# The threadfence lesson on a GPU machine, in one call: build (preset gpu, sm_90), the GPU tests, the
# lesson's own CPU tests and the lesson-text commands (which run on the GPU there), the default run
# timed, the issue's commands, compute-sanitizer on the correct variants, and the --bench run. Logs go
# to $OUT; the summary is printed last.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-lib.sh
gpu_begin threadfence
gpu_build

t0=$(date +%s)
ctest --preset gpu -j 4 --output-on-failure >"$OUT/ctest-gpu.log" 2>&1
note "gpu tests: $(grep -E 'tests passed|tests failed' "$OUT/ctest-gpu.log"), $(( $(date +%s) - t0 )) s"
grep -E 'SKIPPED|\(Failed\)|Failure|Expected|Which is|actual|is forbidden' "$OUT/ctest-gpu.log" | head -30
t0=$(date +%s)
ctest --test-dir build/gpu -R 'Threadfence|KernelListing|Sweep|ShownCommands.*threadfence' -j 8 --output-on-failure >"$OUT/ctest-cpu.log" 2>&1
note "threadfence cpu tests, listing and lesson commands (on the GPU): $(grep -E 'tests passed|tests failed' "$OUT/ctest-cpu.log"), $(( $(date +%s) - t0 )) s"
grep -E '\(Failed\)|Failure|Expected|Which is|stderr' "$OUT/ctest-cpu.log" | head -20

# The default run: wall time including CUDA start-up (goal < 1 s), five runs.
wall_ms threadfence
wall_ms --help
# The default run's text opens commands.txt (at most 8 files come back from a device call).
"$bin" threadfence --color never --json="$OUT/default.json" >"$OUT/commands.txt" 2>&1
note "default run: exit $?, $(tail -1 "$OUT/commands.txt")"
grep -E 'FAIL|FINDING' "$OUT/commands.txt" | head -10
# The issue's commands.
{
  echo "### --part litmus --test mp --fence none --iterations 1000000"
  "$bin" threadfence --part litmus --test mp --fence none --iterations 1000000 --color never
  echo "exit $?"
  echo "### --part litmus --test sb,lb --iterations 2000000"
  "$bin" threadfence --part litmus --test sb,lb --iterations 2000000 --color never
  echo "exit $?"
  echo "### --test mp --fence rel-acq,none / none,rel-acq / device,block"
  for f in rel-acq,none none,rel-acq device,block; do
    "$bin" threadfence --part litmus --test mp --fence "$f" --iterations 1000000 --color never | grep -E '^  mp '
  done
  echo "exit $?"
  echo "### --part ptx"
  "$bin" threadfence --part ptx --color never
  echo "exit $?"
  echo "### --part last-block"
  "$bin" threadfence --part last-block --color never
  echo "exit $?"
  echo "### --part litmus --placement same-block"
  "$bin" threadfence --part litmus --placement same-block --color never
  echo "exit $?"
  echo "### --part litmus --access volatile"
  "$bin" threadfence --part litmus --access volatile --color never
  echo "exit $?"
  echo "### --part work-queue-race (seeds 1 and 2)"
  "$bin" threadfence --part work-queue-race --color never
  echo "exit $?"
  "$bin" threadfence --part work-queue-race --seed 2 --color never | grep -E 'no __sync|__syncthreads\(\) +each|FAIL|note'
  echo "exit $?"
  echo "### --part last-block-partial (a child process)"
  "$bin" threadfence --part last-block-partial --color never
  echo "exit $?"
  echo "### --part host-observer, default and --bench"
  "$bin" threadfence --part host-observer --color never
  echo "exit $?"
  "$bin" threadfence --part host-observer --bench --color never | grep -E '^  (no fence|__thread)|FAIL|checks:'
  echo "exit $?"
} >>"$OUT/commands.txt" 2>&1
note "issue commands: exits $(grep -E '^exit ' "$OUT/commands.txt" | awk '{print $2}' | tr '\n' ' ')"

# The --bench run: every part with more repetitions (10^6 instances per litmus row).
t0=$(date +%s)
"$bin" threadfence --bench --color never --json="$OUT/bench.json" >"$OUT/bench.txt" 2>&1
note "bench: exit $?, $(( $(date +%s) - t0 )) s, $(tail -1 "$OUT/bench.txt")"

# compute-sanitizer on the correct variants (the broken lastBlock guards run in the same kernels'
# launches but touch nothing out of bounds either).
san() { sanitize "$1" "${*:2}" threadfence --backend gpu "${@:2}"; }
san memcheck --part litmus --fence device --iterations 1000
san memcheck --part litmus --test mp,sb,lb --fence rel-acq --iterations 1000
san memcheck --part last-block,work-queue,cost
san racecheck --part last-block,work-queue
san synccheck --part last-block,work-queue
san memcheck --part work-queue-race,host-observer
# racecheck: the no-barrier loop races on its __shared__ item on purpose; the barrier loop must show none
san racecheck --part work-queue-race

echo
sed -n '/== litmus tests/,/== scopes/p' "$OUT/bench.txt" | grep -vE '^  [a-z].{60,}$' | head -60
sed -n '/== scopes/,/== cost/p' "$OUT/bench.txt" | grep -E '^  (mp|case|test|wait|sb|lb|pairs)' | head -30
sed -n '/== cost/,/== lastBlock/p' "$OUT/bench.txt" | grep -vE '^  [A-Z].{60,}' | head -50
sed -n '/== lastBlock/,$p' "$OUT/bench.txt" | grep -E 'guard|wrong|slowest|a-priori /|alone|FAIL|checks:' | head -20
gpu_end

#!/usr/bin/env bash
# named-barriers on a GPU machine, in one call: build (preset gpu: sm_90, -Werror), the GPU tests,
# the CPU tests against the GPU binary (every lesson command then runs on the GPU), the lesson's
# commands, compute-sanitizer racecheck / synccheck / memcheck on the correct parts, wall times,
# and the --bench table. Logs go to $OUT (at most 8 files); the last lines are the summary.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/cudasync-named-barriers}
mkdir -p "$OUT"
summary=()
note() { summary+=("$*"); echo "== $*"; }

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
nvcc --version | tail -1
start=$(date +%s)
if ! { cmake --preset gpu -DCUDASYNC_WERROR=ON && cmake --build build/gpu -j 16; } >"$OUT/build.log" 2>&1; then
  grep -E 'error|Error' "$OUT/build.log" | head -30; tail -30 "$OUT/build.log"
  echo "BUILD FAILED"
  exit 1
fi
note "build: $(( $(date +%s) - start )) s; $(grep -m1 'kernel listing with' "$OUT/build.log" | sed 's/^-- //')"
bin=build/gpu/src/cudasync

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

# Correct parts under compute-sanitizer (the misuse part is wrong on purpose and is left out).
: >"$OUT/sanitizer.log"
correct=bar-sync,producer-consumer,bar-red,cuda-barrier
for run in "racecheck $correct" "synccheck $correct,cost" "memcheck $correct"; do
  set -- $run
  compute-sanitizer --tool "$1" --error-exitcode 99 "$bin" named-barriers --backend gpu --part "$2" --trace \
    >"$OUT/san.tmp" 2>&1
  rc=$?
  note "compute-sanitizer $1 ($2): exit $rc, $(grep -E 'SUMMARY' "$OUT/san.tmp" | tail -1 | sed 's/^=* *//')"
  { echo "### $1 $2 (exit $rc)"; cat "$OUT/san.tmp"; } >>"$OUT/sanitizer.log"
done
rm -f "$OUT/san.tmp"

for args in "named-barriers" "--help"; do
  times=()
  for i in 1 2 3 4 5; do
    t0=$(date +%s%N); "$bin" $args >/dev/null 2>&1; t1=$(date +%s%N)
    times+=("$(( (t1 - t0) / 1000000 ))")
  done
  note "wall ms for 'cudasync $args': ${times[*]}"
done

"$bin" named-barriers --bench --part cost --color never --json="$OUT/bench.json" >"$OUT/bench.txt" 2>&1
note "bench: exit $?"
sed -n '/measurement/,$p' "$OUT/bench.txt"

echo
echo "SUMMARY"
printf '%s\n' "${summary[@]}"

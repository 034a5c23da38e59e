#!/usr/bin/env bash
# One call on a GPU machine: configure + build (default preset: sm_75..sm_90 + PTX), the whole
# test suite (GPU tests run for real), compute-sanitizer, start-up timings and the benchmark.
# Logs go to $OUT (the device tool brings them back); the last lines are the summary.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/cudasync-gpu-suite}
mkdir -p "$OUT"
summary=()
note() { summary+=("$*"); echo "== $*"; }

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
nvcc --version | tail -1

start=$(date +%s)
if ! { cmake --preset default -DCUDASYNC_WERROR=ON && cmake --build --preset default -j 16; } >"$OUT/build.log" 2>&1; then
  tail -60 "$OUT/build.log"
  echo "BUILD FAILED"
  exit 1
fi
note "build: $(( $(date +%s) - start )) s"
bin=build/default/src/cudasync

ctest --preset default -L gpu --output-on-failure >"$OUT/ctest.log" 2>&1
note "gpu tests: $(grep -E 'tests passed|tests failed' "$OUT/ctest.log")"
grep -E 'SKIPPED|Failed|\*\*\*' "$OUT/ctest.log" | head -20
ctest --preset default -j 8 --output-on-failure >"$OUT/ctest-all.tmp" 2>&1
note "all tests: $(grep -E 'tests passed|tests failed' "$OUT/ctest-all.tmp")"
grep -E 'Failed|\*\*\*' "$OUT/ctest-all.tmp" | head -20
cat "$OUT/ctest-all.tmp" >>"$OUT/ctest.log" && rm "$OUT/ctest-all.tmp"

# Correct variants run clean under memcheck and racecheck; the seed's racy loop must be caught.
sanitize() {  # tool, label, args...
  local tool=$1 label=$2; shift 2
  compute-sanitizer --tool "$tool" --error-exitcode 99 "$bin" "$@" >"$OUT/sanitizer-$tool-$label.tmp" 2>&1
  local rc=$?
  note "compute-sanitizer $tool ($label): exit $rc, $(grep -E 'SUMMARY' "$OUT/sanitizer-$tool-$label.tmp" | tail -1 | sed 's/^=* *//')"
  { echo "### $tool $label"; cat "$OUT/sanitizer-$tool-$label.tmp"; } >>"$OUT/sanitizer.log"; rm "$OUT/sanitizer-$tool-$label.tmp"
}
sanitize memcheck all warp-primitives --backend gpu --variant guarded,registers
sanitize racecheck correct warp-primitives --backend gpu --variant guarded,registers
sanitize racecheck racy warp-primitives --backend gpu --op syncwarp --variant racy
sanitize synccheck correct warp-primitives --backend gpu --variant guarded,registers

# Wall time of the default run including CUDA start-up, and of --help (five runs each).
for args in "warp-primitives" "--help"; do
  times=()
  for i in 1 2 3 4 5; do
    t0=$(date +%s%N); "$bin" $args >/dev/null 2>&1; t1=$(date +%s%N)
    times+=("$(( (t1 - t0) / 1000000 ))")
  done
  note "wall ms for 'cudasync $args': ${times[*]}"
done

"$bin" warp-primitives --color never >"$OUT/warp-primitives.txt" 2>&1
note "default run: $(tail -1 "$OUT/warp-primitives.txt")"
"$bin" warp-primitives --bench --op cost --json="$OUT/bench.json" >"$OUT/bench.txt" 2>&1
sed -n '/measurement/,$p' "$OUT/bench.txt"
"$bin" devices >>"$OUT/bench.txt" 2>&1

echo
echo "SUMMARY"
printf '%s\n' "${summary[@]}"

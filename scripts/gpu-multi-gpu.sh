#!/usr/bin/env bash
# multi-gpu on a GPU machine, in one call, with one GPU or several: build (preset gpu: sm_90,
# -Werror), the GPU tests (label gpu: host-flag on the GPU and, with one GPU, the waive path; label
# multigpu: skipped below two GPUs, with the reason), the lesson's CPU tests and every lesson command
# (which run on the GPU there), the default run, host-flag under each fence, the two-GPU parts (run,
# or waived with exit 77), the 80-column check of every part's text, compute-sanitizer memcheck on
# host-flag (and on peer-flag and barrier with two GPUs), --bench, and doctor's multi-gpu line. Logs
# go to $OUT (build.log, ctest-gpu.log, ctest-cpu.log, runs.txt, sanitizer.log, bench.txt,
# bench.json); the summary is printed last.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-lib.sh
gpu_begin multi-gpu
gpu_build
gpus=$(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l)
note "GPUs visible: $gpus"

t0=$(date +%s)
ctest --test-dir build/gpu -L 'gpu' -R 'MultiGpu' --output-on-failure >"$OUT/ctest-gpu.log" 2>&1
note "multi-gpu gpu and multigpu tests ($(( $(date +%s) - t0 )) s): $(grep -E 'tests passed|tests failed' "$OUT/ctest-gpu.log")"
grep -E '\*\*\*Failed|Failure|Expected|Which is|needs 2 GPUs' "$OUT/ctest-gpu.log" | sort | uniq -c | head -20
t0=$(date +%s)
ctest --test-dir build/gpu -R 'MultiGpu|ShownCommands.*multi_gpu|CitedLesson.*multi_gpu|LessonCommands|Doctor|BenchReadme|CliExitCodes' \
  -L cpu -j 4 --output-on-failure >"$OUT/ctest-cpu.log" 2>&1
note "multi-gpu cpu tests, its lesson commands, doctor, bench README, on the GPU ($(( $(date +%s) - t0 )) s): $(grep -E 'tests passed|tests failed' "$OUT/ctest-cpu.log")"
grep -E '\*\*\*Failed|Failure|Expected|Which is|stderr' "$OUT/ctest-cpu.log" | head -20

runs="$OUT/runs.txt"
: >"$runs"
run() {  # run LABEL ARGS...: one command into runs.txt, its exit code and last line into the summary
  local label=$1 t0 rc
  shift
  { echo; echo "### cudasync $*"; } >>"$runs"
  t0=$(date +%s%N)
  "$bin" "$@" --color never >>"$runs" 2>&1
  rc=$?
  note "$label: exit $rc in $(( ($(date +%s%N) - t0) / 1000000 )) ms, $(tail -1 "$runs" | cut -c1-150)"
}
run "default run" multi-gpu
run "host-flag, every fence, 200000 handoffs" multi-gpu --part host-flag --iterations 200000
run "peer-flag, every fence pair" multi-gpu --part peer-flag --iterations 200000
run "barrier" multi-gpu --part barrier --phases 64
run "all-reduce 256 MiB" multi-gpu --part all-reduce --mib 256
run "--devices 0,0 (expect 2)" multi-gpu --devices 0,0
run "--device 0,1 (expect 2)" multi-gpu --device 0,1
run "doctor" doctor
# The text fits 80 columns on the GPU too (its tables hold counts and times there).
wide=0
for args in "multi-gpu" "multi-gpu --part host-flag --fence device" "multi-gpu --part peer-flag --fence none" \
    "multi-gpu --part barrier --phases 32" "multi-gpu --part all-reduce --mib 256" "multi-gpu --bench"; do
  # shellcheck disable=SC2086
  n=$(COLUMNS=80 "$bin" $args --color never 2>/dev/null | awk 'length>80' | wc -l)
  [ "$n" -eq 0 ] || echo "wider than 80 columns: cudasync $args ($n lines)"
  wide=$((wide + n))
done
note "lines wider than 80 columns in 6 runs: $wide"
grep -E 'multi-gpu' "$runs" | grep -E 'GPU|NCCL' | head -4
# The outcome tables of the flag parts, and the barrier and all-reduce methods.
sed -n '/what the consumer read once it saw the flag/,/^$/p' "$runs" | head -40
sed -n '/the computation under each barrier/,/^$/p; /the all-reduce, each way/,/^$/p' "$runs" | head -20
grep -E '\[FAIL\]|FORBIDDEN|waived' "$runs" | head -12

sanitize memcheck "host-flag" multi-gpu --backend gpu --part host-flag --iterations 2000
if [ "$gpus" -ge 2 ]; then
  sanitize memcheck "peer-flag" multi-gpu --backend gpu --part peer-flag --iterations 2000
  sanitize memcheck "barrier" multi-gpu --backend gpu --part barrier --blocks 8 --phases 8
fi

t0=$(date +%s)
"$bin" multi-gpu --bench --color never --json="$OUT/bench.json" >"$OUT/bench.txt" 2>&1
note "bench: exit $?, $(( $(date +%s) - t0 )) s, $(tail -1 "$OUT/bench.txt")"
sed -n '/ns per barrier, median/,/^$/p; /all-reduce GB\/s, median/,/^$/p; /x nccl/,/^$/p' "$OUT/bench.txt" | head -40
gpu_end

#!/usr/bin/env bash
# The whole tree on a machine of two GPUs, in one device call, most important first, each step
# under a time limit so that the summary always comes back: the sm_90 build (NCCL where the
# toolkit has it), every GPU test (label gpu, the two-GPU ones of label multigpu among them), each
# lesson's default run and the tour (timed), the multi-gpu lesson's parts and --bench on two GPUs,
# then the fuzz test's GPU variant (a few hundred argvs with --backend gpu, compute-sanitizer
# memcheck on a sample). With one GPU it runs the same and the two-GPU parts are waived (77).
# Logs go to $OUT (build.log, ctest.log, runs.txt, bench.txt, fuzz.log); the summary is printed last.
set -uo pipefail
cd "$(dirname "$0")/.."
export NCCL_NVLS_ENABLE=0   # NVLink multicast stays off, in every child process too
source scripts/gpu-lib.sh
end=$(( $(date +%s) + ${TOTAL_S:-560} ))   # the whole script ends by then (the device tool's limit is 600 s)
limit() {  # limit SECONDS: SECONDS, or what is left before $end if that is less (at least 1)
  local left=$(( end - $(date +%s) - 10 ))
  (( left < $1 )) && set -- "$left"
  (( $1 < 1 )) && set -- 1
  echo "$1"
}
gpu_begin gpu-two
gpus=$(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l)
note "GPUs visible: $gpus ($(nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c | xargs))"
gpu_build
grep -E 'cudasync: (NCCL|GPU)' "$OUT/build.log" | head -3

t0=$(date +%s)
timeout "$(limit 220)" ctest --test-dir build/gpu -L gpu -LE fuzz --timeout 120 --output-on-failure \
  >"$OUT/ctest.log" 2>&1
note "gpu tests, label gpu (multigpu included), $(( $(date +%s) - t0 )) s: $(grep -E 'tests passed|tests failed' "$OUT/ctest.log" || echo 'cut by the time limit')"
grep -E '\(Failed\)|\*\*\*Failed|\(Timeout\)|\*\*\*Skipped' "$OUT/ctest.log" | head -20
grep -E '^tour on ' "$OUT/ctest.log" | head -2

runs="$OUT/runs.txt"
: >"$runs"
run() {  # run LABEL ARGS...: one command into runs.txt; its exit code, time and checks line noted
  local label=$1 t0 rc
  shift
  { echo; echo "### cudasync $*"; } >>"$runs"
  t0=$(date +%s%N)
  timeout "$(limit 120)" "$bin" "$@" --color never >"$OUT/run.tmp" 2>&1
  rc=$?
  cat "$OUT/run.tmp" >>"$runs"
  note "$label: exit $rc, $(( ($(date +%s%N) - t0) / 1000000 )) ms, $(grep -E '^checks:' "$OUT/run.tmp" | tail -1)"
}
for l in $("$bin" --cli-spec | python3 -c 'import json,sys; print(" ".join(c["name"] for c in json.load(sys.stdin)["commands"] if c.get("lesson")))'); do
  run "$l" "$l"
done
for i in 1 2 3; do
  t0=$(date +%s%N); "$bin" tour --backend gpu --json >"$OUT/tour.json" 2>/dev/null; rc=$?
  note "tour --backend gpu --json: exit $rc, $(( ($(date +%s%N) - t0) / 1000000 )) ms"
done

run "multi-gpu host-flag, 200000 handoffs" multi-gpu --part host-flag --iterations 200000
run "multi-gpu peer-flag, 200000 handoffs" multi-gpu --part peer-flag --iterations 200000
run "multi-gpu barrier, 64 phases" multi-gpu --part barrier --phases 64
run "multi-gpu all-reduce, 256 MiB" multi-gpu --part all-reduce --mib 256
sed -n '/what the consumer read once it saw the flag/,/^$/p' "$runs" | head -30
sed -n '/the computation under each barrier/,/^$/p; /the all-reduce, each way/,/^$/p' "$runs" | head -24
t0=$(date +%s)
COLUMNS=80 timeout "$(limit 150)" "$bin" multi-gpu --bench --color never --json="$OUT/bench.json" >"$OUT/bench.txt" 2>&1
note "multi-gpu --bench: exit $?, $(( $(date +%s) - t0 )) s"
wide=$(awk 'length>80' "$OUT/bench.txt" | wc -l)
for args in "multi-gpu --part peer-flag --fence none" "multi-gpu --part barrier --phases 32"; do
  # shellcheck disable=SC2086
  n=$(COLUMNS=80 timeout "$(limit 60)" "$bin" $args --color never 2>/dev/null | awk 'length>80' | wc -l)
  wide=$((wide + n))
done
note "multi-gpu lines wider than 80 columns (peer-flag, barrier, --bench): $wide"

t0=$(date +%s)
timeout "$(limit 130)" python3 tests/fuzz/fuzz_cli.py --binary "$bin" --schema schema/report-v2.json \
  --backend gpu --runs 300 --jobs 8 --budget 50 --bench-timeout 60 --memcheck 6 >"$OUT/fuzz.log" 2>&1
note "gpu fuzz: exit $?, $(( $(date +%s) - t0 )) s"
grep -E '^fuzz:' "$OUT/fuzz.log" | tail -6
rm -f "$OUT/run.tmp"
gpu_end

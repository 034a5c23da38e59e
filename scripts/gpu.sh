#!/usr/bin/env bash
# The GPU suite in one call on a machine with one or more NVIDIA GPUs, as that machine comes:
#   1. scripts/setup.sh --gpu (apt-get, or the .offline/ bundle where there is no registry);
#   2. the gpu preset (sm_90; CUDASYNC_GPU_ARCHS overrides it), warnings as errors;
#   3. every GPU test (label gpu; the two-GPU ones run where two GPUs are visible), one at a time:
#      several at once share the GPU, and the tests of co-residency and timing assume they do not;
#   4. each lesson's default run on the GPU (lessons from `cudasync --cli-spec`): exit code, time
#      and its checks line, and the tour;
#   5. every lesson's --bench in one run (cudasync bench --out $OUT/results: the files of
#      docs/results/), unless GPU_SH_BENCH=0;
#   6. start-up times (scripts/startup-bench.sh, GPU_SH_STARTUP_RUNS runs of each, 5 unless
#      set), unless GPU_SH_STARTUP=0;
#   7. the fuzz test's GPU variant (argvs with --backend gpu, memcheck on a sample), unless
#      GPU_SH_FUZZ=0.
# Each step runs under what is left of TOTAL_S (default 560: the device tool's limit is 600), so
# the summary always comes back. Logs in $OUT (build.log, ctest.log, runs.txt, startup.md,
# results/, fuzz.log; setup.log when setup fails): the device tool brings back eight files at
# most. The summary is printed last.
set -uo pipefail
cd "$(dirname "$0")/.."
export NCCL_NVLS_ENABLE=0   # NVLink multicast stays off, in every child process too
OUT=${OUT:-/tmp/cudasync-gpu}
mkdir -p "$OUT"
end=$(( $(date +%s) + ${TOTAL_S:-560} ))
limit() {  # limit SECONDS: SECONDS, or what is left before $end if that is less (at least 1)
  local left=$(( end - $(date +%s) - 10 ))
  (( left < $1 )) && set -- "$left"
  (( $1 < 1 )) && set -- 1
  echo "$1"
}
summary=()
note() { summary+=("$*"); echo "== $*"; }
python=/usr/bin/python3
[ -x "$python" ] || python=python3

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
gpus=$(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l)
note "GPUs visible: $gpus ($(nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c | xargs)), $(nvcc --version | tail -1)"

t0=$(date +%s)
if ! scripts/setup.sh --gpu >"$OUT/setup.log" 2>&1; then
  tail -20 "$OUT/setup.log"; note "setup FAILED"; printf '%s\n' SUMMARY "${summary[@]}"; exit 1
fi
note "setup --gpu: $(( $(date +%s) - t0 )) s ($(tail -1 "$OUT/setup.log"))"
rm -f "$OUT/setup.log"

t0=$(date +%s)
archs=()
[ -n "${CUDASYNC_GPU_ARCHS:-}" ] && archs=("-DCMAKE_CUDA_ARCHITECTURES=$CUDASYNC_GPU_ARCHS")
if ! { cmake --preset gpu "${archs[@]}" && cmake --build build/gpu -j "$(nproc)"; } >"$OUT/build.log" 2>&1; then
  grep -E 'error|Error' "$OUT/build.log" | head -40; tail -20 "$OUT/build.log"
  note "build FAILED"; printf '%s\n' SUMMARY "${summary[@]}"; exit 1
fi
note "build (preset gpu): $(( $(date +%s) - t0 )) s"
bin=build/gpu/src/cudasync

t0=$(date +%s)
timeout "$(limit 200)" ctest --test-dir build/gpu -L gpu -LE fuzz --timeout 120 --output-on-failure \
  >"$OUT/ctest.log" 2>&1
note "gpu tests (label gpu), $(( $(date +%s) - t0 )) s: $(grep -E 'tests passed|tests failed' "$OUT/ctest.log" || echo 'cut by the time limit')"
grep -E '\(Failed\)|\*\*\*Failed|\(Timeout\)|\*\*\*Skipped' "$OUT/ctest.log" | head -20

runs="$OUT/runs.txt"
: >"$runs"
lessons=$("$bin" --cli-spec | "$python" -c 'import json,sys; print(" ".join(c["name"] for c in json.load(sys.stdin)["commands"] if c.get("lesson")))')
for l in $lessons; do
  { echo; echo "### cudasync $l --backend gpu"; } >>"$runs"
  t0=$(date +%s%N)
  timeout "$(limit 120)" "$bin" "$l" --backend gpu --color never >"$OUT/run.tmp" 2>&1
  rc=$?
  cat "$OUT/run.tmp" >>"$runs"
  note "$l: exit $rc, $(( ($(date +%s%N) - t0) / 1000000 )) ms, $(grep -E '^checks:' "$OUT/run.tmp" | tail -1)"
done
rm -f "$OUT/run.tmp"
t0=$(date +%s%N)
timeout "$(limit 60)" "$bin" tour --backend gpu --json >/tmp/cudasync-tour.json 2>/dev/null
note "tour --backend gpu --json: exit $?, $(( ($(date +%s%N) - t0) / 1000000 )) ms"

if [ "${GPU_SH_BENCH:-1}" != 0 ]; then
  t0=$(date +%s)
  timeout "$(limit 150)" "$bin" bench --out "$OUT/results" --force >"$OUT/bench.tmp" 2>&1
  note "bench --out results: exit $?, $(( $(date +%s) - t0 )) s"
  tail -3 "$OUT/bench.tmp"; rm -f "$OUT/bench.tmp"
fi

if [ "${GPU_SH_STARTUP:-1}" != 0 ]; then
  t0=$(date +%s)
  timeout "$(limit 200)" scripts/startup-bench.sh "$bin" "${GPU_SH_STARTUP_RUNS:-5}" >"$OUT/startup.md" 2>&1
  note "startup bench: exit $?, $(( $(date +%s) - t0 )) s (startup.md)"
fi

if [ "${GPU_SH_FUZZ:-1}" != 0 ]; then
  t0=$(date +%s)
  # The system Python: setup.sh put jsonschema there, so each document is validated too.
  timeout "$(limit 130)" "$python" tests/fuzz/fuzz_cli.py --binary "$bin" --schema schema/report-v2.json \
    --backend gpu --runs "${GPU_SH_FUZZ_RUNS:-300}" --jobs 8 --budget 50 --memcheck 6 >"$OUT/fuzz.log" 2>&1
  note "gpu fuzz: exit $?, $(( $(date +%s) - t0 )) s"
  grep -E '^fuzz:' "$OUT/fuzz.log" | tail -6
fi

echo
echo SUMMARY
printf '%s\n' "${summary[@]}"

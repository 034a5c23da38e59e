#!/usr/bin/env bash
# Start-up and default-run wall times of a cudasync binary, the way a student meets them: each
# command run RUNS times (default 5), output discarded, min / median / max in ms, with every GPU
# visible and with one (CUDA_VISIBLE_DEVICES=0). Then where the time of each lesson's default run
# goes (-v: the GPU probe, the device's context, each part). The figures go to
# docs/measurements.md with the command that made them and the GPU.
#
#   scripts/startup-bench.sh build/gpu/src/cudasync [RUNS]
set -uo pipefail
bin=${1:?usage: startup-bench.sh BINARY [RUNS]}
runs=${2:-5}
lessons=$("$bin" --cli-spec | python3 -c 'import json,sys; print(" ".join(c["name"] for c in json.load(sys.stdin)["commands"] if c.get("lesson")))')
gpus=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | wc -l)

# time_ms VISIBLE ARGS...: RUNS wall times in ms of `cudasync ARGS` (VISIBLE: "all" or a list)
time_ms() {
  local visible=$1 t0 t1 i
  shift
  for ((i = 0; i < runs; i++)); do
    t0=$(date +%s%N)
    if [ "$visible" = all ]; then "$bin" "$@" --color never >/dev/null 2>&1
    else CUDA_VISIBLE_DEVICES=$visible "$bin" "$@" --color never >/dev/null 2>&1; fi
    t1=$(date +%s%N)
    echo $(( (t1 - t0) / 1000000 ))
  done
}
# row VISIBLE ARGS...: one Markdown row: command, GPUs visible, min, median, max
row() {
  local visible=$1 shown
  shift
  shown=$([ "$visible" = all ] && echo "$gpus" || echo "1")
  time_ms "$visible" "$@" | sort -n | awk -v cmd="cudasync $*" -v g="$shown" \
    '{t[NR]=$1} END {printf "| `%s` | %s | %d | %d | %d |\n", cmd, g, t[1], t[int((NR+1)/2)], t[NR]}'
}

echo "GPUs visible: $gpus ($(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | sort | uniq -c | xargs))"
echo "runs per command: $runs; wall time in ms, CUDA start-up included"
echo
echo "| command | GPUs visible | min | median | max |"
echo "|---|---:|---:|---:|---:|"
row all --version
row all explain lock
row all devices
for l in $lessons; do row all "$l"; done
row all tour
for l in $lessons; do row all "$l" --backend model; done
if [ "$gpus" -gt 1 ]; then
  row 0 devices
  for l in $lessons; do row 0 "$l"; done
fi
echo
echo "Where the time goes (-v, one run each, every GPU visible):"
for l in $lessons; do
  echo "## $l"
  "$bin" "$l" -v --color never 2>&1 >/dev/null | grep -E 'GPU probe|selected|set up in|: part |finished in' | sed 's/^/    /'
done

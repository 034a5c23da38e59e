# shellcheck shell=bash
# What every GPU script does the same way, sourced after `cd` to the repository root:
#
#   source scripts/gpu-lib.sh
#   gpu_begin lock            # $OUT (default /tmp/cudasync-lock), the GPU and nvcc lines
#   gpu_build                 # preset gpu (sm_90), warnings as errors; stops the script on failure; sets $bin
#   note "gpu tests: ..."     # a line for the summary, echoed now as well
#   wall_ms lock              # five default runs, wall time with CUDA start-up, as a summary line
#   sanitize memcheck "label" lock --part x   # compute-sanitizer with a timeout, one summary line
#   gpu_end                   # prints SUMMARY and the lines noted (gpu-all.sh reads from SUMMARY on)
#
# The device tool brings back at most 8 files from $OUT: scripts keep to build.log, a few logs and
# sanitizer.log.

summary=()
note() { summary+=("$*"); echo "== $*"; }

gpu_begin() {
  OUT=${OUT:-/tmp/cudasync-$1}
  mkdir -p "$OUT"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total --format=csv,noheader
  nvcc --version | tail -1
}

# gpu_build [preset]: configure and build; on failure print the errors and end the script (exit 1).
# CUDASYNC_CMAKE_ARGS adds configure arguments (the GPU machine's python3, for the schema checks).
gpu_build() {
  local preset=${1:-gpu} start
  start=$(date +%s)
  scripts/setup.sh --gpu >"$OUT/setup.log" 2>&1 || { tail -20 "$OUT/setup.log"; echo "SETUP FAILED"; exit 1; }
  # shellcheck disable=SC2086
  if ! { cmake --preset "$preset" -DCUDASYNC_WERROR=ON ${CUDASYNC_CMAKE_ARGS:-} && cmake --build "build/$preset" -j "$(nproc)"; } \
      >"$OUT/build.log" 2>&1; then
    grep -E 'error|Error' "$OUT/build.log" | head -40
    tail -30 "$OUT/build.log"
    echo "BUILD FAILED"
    exit 1
  fi
  note "build ($preset): $(( $(date +%s) - start )) s"
  bin=build/$preset/src/cudasync
}

# wall_ms ARGS...: five runs of `cudasync ARGS`, output discarded; the wall times in ms.
wall_ms() {
  local times=() i t0 t1
  for i in 1 2 3 4 5; do
    t0=$(date +%s%N); "$bin" "$@" >/dev/null 2>&1; t1=$(date +%s%N)
    times+=("$(( (t1 - t0) / 1000000 ))")
  done
  note "wall ms for 'cudasync $*': ${times[*]}"
}

# sanitize TOOL LABEL ARGS...: `compute-sanitizer --tool TOOL cudasync ARGS` (killed after 300 s, a
# cap against a hang, not an expectation), its summary line noted, its whole output appended to
# $OUT/sanitizer.log.
sanitize() {
  local tool=$1 label=$2 rc
  shift 2
  timeout 300 compute-sanitizer --tool "$tool" --target-processes application-only --error-exitcode 99 \
    "$bin" "$@" --color never >"$OUT/san.tmp" 2>&1
  rc=$?
  note "compute-sanitizer $tool ($label): exit $rc, $(grep -E 'SUMMARY' "$OUT/san.tmp" | tail -1 | sed 's/^=* *//')"
  { echo "### $tool $label: cudasync $* (exit $rc)"; cat "$OUT/san.tmp"; } >>"$OUT/sanitizer.log"
  rm -f "$OUT/san.tmp"
}

gpu_end() {
  echo
  echo "SUMMARY"
  printf '%s\n' "${summary[@]}"
}

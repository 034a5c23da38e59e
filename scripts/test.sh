#!/usr/bin/env bash
# The test command (CI runs it on a fresh clone, 2 cores, no GPU). Two builds, each for a reason:
#   1. ci (preset ci): the tool as it ships, CUDA built in (compute capability 7.5 only, to stay
#      fast), and every test: the reference model, the CLI, the renderers, the schema, the lesson
#      texts and commands, pages in a headless browser, the terminal, the package (.deb, install
#      tree, lintian, completions, man page), and the fuzz test. The GPU tests compile and skip,
#      saying why, where no GPU is present; on a GPU machine scripts/gpu.sh runs them for real.
#   2. model-asan (preset model-asan): the build without CUDA, under AddressSanitizer and
#      UndefinedBehaviorSanitizer, with the tests of the tool's logic and the fuzz test (any report
#      fails them). It is also the build a machine without the CUDA toolkit makes, so a change that
#      breaks the model-only configuration fails here.
# Each stage prints its time; the last line sums them.
set -euo pipefail
cd "$(dirname "$0")/.."

start=$(date +%s)
stage_start=$start
times=()
stage() {  # stage NAME: closes the stage before it, with its time
  local now
  now=$(date +%s)
  [ -n "${current:-}" ] && times+=("$current $((now - stage_start)) s") && echo "test: $current took $((now - stage_start)) s"
  current=$1
  stage_start=$now
  [ -n "$current" ] && echo "test: $current"
  return 0
}

stage "setup (scripts/setup.sh --tests)"
scripts/setup.sh --tests

if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export CUDACXX=/usr/local/cuda/bin/nvcc
fi
if command -v nvcc >/dev/null 2>&1 || [ -n "${CUDACXX:-}" ]; then
  stage "ci: configure and build"
  cmake --preset ci >/dev/null
  cmake --build --preset ci
  stage "ci: tests"
  ctest --preset ci
else
  echo "test: no CUDA toolkit on this machine: the model-only build takes the ci build's place"
  stage "model-only: configure and build"
  cmake --preset model-only >/dev/null
  cmake --build --preset model-only
  stage "model-only: tests"
  ctest --preset model-only
fi

stage "model-asan: configure and build"
cmake --preset model-asan >/dev/null
cmake --build --preset model-asan
stage "model-asan: tests"
ctest --preset model-asan
stage ""

echo "test: stage times: $(IFS=';'; echo "${times[*]}" | sed 's/;/; /g')"
echo "test: all stages passed in $(( $(date +%s) - start )) s"

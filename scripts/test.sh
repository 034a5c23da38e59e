#!/usr/bin/env bash
# The test command: builds and tests three builds on this machine.
#   1. model-only (no CUDA): the reference model, CLI, renderers, schema, lesson commands, and the
#      fuzz test (tests/fuzz: argument vectors drawn from `cudasync --cli-spec`);
#   2. model-asan: the same build with AddressSanitizer and UndefinedBehaviorSanitizer, running
#      the CPU tests and the fuzz test (any sanitizer report fails them);
#   3. CUDA built in (one architecture, to stay fast): the same CPU tests against the GPU-capable
#      binary; its GPU tests skip with a reason where no GPU is present.
# On a GPU machine use scripts/gpu-suite.sh, which runs the GPU suite for real.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake --workflow --preset model-only
cmake --workflow --preset model-asan
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export CUDACXX=/usr/local/cuda/bin/nvcc
fi
if command -v nvcc >/dev/null 2>&1 || [ -n "${CUDACXX:-}" ]; then
  cmake --workflow --preset ci-cuda
else
  echo "test: no CUDA toolkit on this machine, so only the model-only build was tested"
fi

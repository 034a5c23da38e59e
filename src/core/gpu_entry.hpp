#pragma once
// A lesson declares each GPU entry point once, in its <lesson>_gpu.hpp:
//
//   CUDASYNC_GPU_ENTRY(Lanes, gpu_shuffle, (const ShuffleSpec& spec))
//
// In a CUDA build that is the declaration, defined by the lesson's kernels (.cu). A model-only
// build has no kernels: there the same line defines a body that throws NoGpuError. So a lesson
// calls its GPU side under `if (ctx.gpu)` with no #if of its own, and the choice between GPU and
// no-GPU code is made once, here, as the device probe makes it (device_probe_cuda.cpp /
// device_probe_none.cpp). ctx.gpu is never true in a model-only build, so the body never runs;
// it is the one place that would say so if a lesson called its GPU side without a GPU.
#include "core/errors.hpp"

namespace cudasync {
[[noreturn]] void gpu_not_built_in(const char* entry);
}

#if CUDASYNC_HAVE_CUDA
#define CUDASYNC_GPU_ENTRY(ret, name, params) ret name params;
#else
#define CUDASYNC_GPU_ENTRY(ret, name, params)                                  \
  _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Wunused-parameter\"") \
  [[noreturn]] inline ret name params { ::cudasync::gpu_not_built_in(#name); } \
  _Pragma("GCC diagnostic pop")
#endif

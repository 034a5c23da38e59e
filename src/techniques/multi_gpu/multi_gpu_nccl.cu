// NCCL for a pair of GPUs driven from one thread: the communicators (ncclCommInitAll), an
// all-reduce of one integer used as a barrier, and the all-reduce of a large array. Built only
// where CMake found NCCL (cmake/nccl.cmake); elsewhere every entry throws WaivedError with the
// reason. NCCL_NVLS_ENABLE=0 (NVLink SHARP, which uses NVLink multicast, stays off) is set by the
// lesson before the first NCCL call, so that every child process inherits it too.
#include "core/errors.hpp"
#include "techniques/multi_gpu/multi_gpu_cuda.cuh"
#include "techniques/multi_gpu/multi_gpu_gpu.hpp"
#include "techniques/multi_gpu/multi_gpu_nccl.cuh"

#if CUDASYNC_HAVE_NCCL
#include <nccl.h>

#include <cstdlib>
#include <string>

namespace cudasync::multi_gpu {

namespace {

#define NCCL_CHECK(call)                                                                                  \
  do {                                                                                                    \
    const ncclResult_t r_ = (call);                                                                       \
    if (r_ != ncclSuccess)                                                                                \
      throw Error(ExitCode::no_gpu, "nccl", std::string(#call) + " failed: " + ncclGetErrorString(r_)); \
  } while (0)

}  // namespace

struct NcclComms {
  int devices[kGpus] = {0, 1};
  ncclComm_t comm[kGpus] = {nullptr, nullptr};
  int* one[kGpus] = {nullptr, nullptr};  // the barrier's integer on each GPU
  ~NcclComms() {
    for (int g = 0; g < kGpus; ++g) {
      if (comm[g]) ncclCommDestroy(comm[g]);
      if (one[g]) {
        CUDA_CHECK_NOTHROW(cudaSetDevice(devices[g]));
        CUDA_CHECK_NOTHROW(cudaFree(one[g]));
      }
    }
  }
};

std::shared_ptr<NcclComms> gpu_nccl_open(int a, int b) {
  DeviceGuard keep;
  if (const char* nvls = std::getenv("NCCL_NVLS_ENABLE"); !nvls || std::string(nvls) != "0")
    setenv("NCCL_NVLS_ENABLE", "0", 1);  // the lesson sets it first; this is the last line of defence
  auto c = std::make_shared<NcclComms>();
  c->devices[0] = a;
  c->devices[1] = b;
  NCCL_CHECK(ncclCommInitAll(c->comm, kGpus, c->devices));
  for (int g = 0; g < kGpus; ++g) {
    CUDA_CHECK(cudaSetDevice(c->devices[g]));
    CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&c->one[g]), sizeof(int)));
    CUDA_CHECK(cudaMemset(c->one[g], 0, sizeof(int)));
  }
  return c;
}

int gpu_nccl_version() {
  int v = 0;
  NCCL_CHECK(ncclGetVersion(&v));
  return v;
}

void nccl_barrier(NcclComms& c, const cudaStream_t streams[kGpus]) {
  NCCL_CHECK(ncclGroupStart());
  for (int g = 0; g < kGpus; ++g)
    NCCL_CHECK(ncclAllReduce(c.one[g], c.one[g], 1, ncclInt32, ncclSum, c.comm[g], streams[g]));
  NCCL_CHECK(ncclGroupEnd());
}

void nccl_all_reduce(NcclComms& c, const std::uint32_t* const in[kGpus], std::uint32_t* const out[kGpus],
                     std::size_t elements, const cudaStream_t streams[kGpus]) {
  NCCL_CHECK(ncclGroupStart());
  for (int g = 0; g < kGpus; ++g)
    NCCL_CHECK(ncclAllReduce(in[g], out[g], elements, ncclUint32, ncclSum, c.comm[g], streams[g]));
  NCCL_CHECK(ncclGroupEnd());
}

}  // namespace cudasync::multi_gpu

#else  // no NCCL in this build

namespace cudasync::multi_gpu {

namespace {
[[noreturn]] void not_built_in() {
  throw WaivedError("NCCL is not built into this cudasync (CMake found no nccl.h and libnccl: install libnccl-dev, "
                    "or a CUDA toolkit that ships NCCL, and rebuild)");
}
}  // namespace

struct NcclComms {};
std::shared_ptr<NcclComms> gpu_nccl_open(int, int) { not_built_in(); }
int gpu_nccl_version() { not_built_in(); }
void nccl_barrier(NcclComms&, const cudaStream_t*) { not_built_in(); }
void nccl_all_reduce(NcclComms&, const std::uint32_t* const*, std::uint32_t* const*, std::size_t, const cudaStream_t*) {
  not_built_in();
}

}  // namespace cudasync::multi_gpu

#endif

#pragma once
// NCCL as the other .cu files of multi-gpu call it (multi_gpu_nccl.cu): both GPUs' halves of one
// collective, enqueued from this one thread inside ncclGroupStart / ncclGroupEnd. Without NCCL
// built in, each throws WaivedError.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "techniques/multi_gpu/multi_gpu.hpp"

namespace cudasync::multi_gpu {

struct NcclComms;

// An all-reduce of one integer on both GPUs: their streams wait until both have got there.
void nccl_barrier(NcclComms& comms, const cudaStream_t streams[kGpus]);
// ncclAllReduce(in[g], out[g], elements, ncclUint32, ncclSum) on both GPUs.
void nccl_all_reduce(NcclComms& comms, const std::uint32_t* const in[kGpus], std::uint32_t* const out[kGpus],
                     std::size_t elements, const cudaStream_t streams[kGpus]);

}  // namespace cudasync::multi_gpu

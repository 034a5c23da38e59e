#pragma once
// The GPU side of multi-gpu behind a plain C++ interface (no CUDA or NCCL types), one
// CUDASYNC_GPU_ENTRY line per entry point (core/gpu_entry.hpp): the parts call them under
// `if (run.ctx.gpu)` and need no CUDA headers. Every entry leaves the calling thread's current
// device as it found it.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/coresidency.hpp"
#include "core/gpu_entry.hpp"
#include "techniques/multi_gpu/multi_gpu.hpp"

namespace cudasync::multi_gpu {

// What the runtime says about a pair of GPUs. (multi_gpu_peer.cu)
struct PeerInfo {
  bool a_to_b = false;          // cudaDeviceCanAccessPeer(a, b): a kernel on a may touch b's memory
  bool b_to_a = false;
  bool native_atomics = false;  // cudaDevP2PAttrNativeAtomicSupported (a -> b)
  int performance_rank = -1;    // cudaDevP2PAttrPerformanceRank (a -> b): lower is faster
  std::string a_name, b_name;
};
CUDASYNC_GPU_ENTRY(PeerInfo, gpu_peer_info, (int a, int b))

// `instances` instances at least (whole rounds) of the flag handoff from GPU `producer` to a kernel
// on GPU `consumer`, both kernels running at once; every wait gives up after `budget_ns`.
// (multi_gpu_flag_kernels.cu)
CUDASYNC_GPU_ENTRY(FlagCounts, gpu_peer_flag, (const FlagSpec& spec, int producer, int consumer, long long instances,
                                               std::uint64_t budget_ns))
// The same handoff from one thread on GPU `device` to this host thread, through pinned host memory
// mapped into the GPU, one instance after the other.
CUDASYNC_GPU_ENTRY(FlagCounts, gpu_host_flag, (const FlagSpec& spec, int device, long long instances,
                                               std::uint64_t budget_ns))

// The co-residency of the peer barrier's kernels on GPU `device` (multi_gpu_barrier_kernels.cu).
CUDASYNC_GPU_ENTRY(Coresidency, gpu_barrier_coresidency, (int device, int threads))

// NCCL's communicators for a pair of GPUs, opened once per run (ncclCommInitAll) and destroyed with
// the last owner. Opaque here; defined in multi_gpu_nccl.cu. gpu_nccl_open throws WaivedError when
// NCCL is not built in.
struct NcclComms;
CUDASYNC_GPU_ENTRY(std::shared_ptr<NcclComms>, gpu_nccl_open, (int a, int b))
// The NCCL library's own version (ncclGetVersion), e.g. 22809.
CUDASYNC_GPU_ENTRY(int, gpu_nccl_version, ())

// The multi-phase computation on GPUs a and b from the starting values x0 (both halves) under
// method m. `nccl` is needed by Method::nccl only.
CUDASYNC_GPU_ENTRY(BarrierRun, gpu_barrier_run, (Method m, int a, int b, const BarrierSpec& spec,
                                                 const std::vector<std::uint32_t>& x0, NcclComms* nccl))
// ns per barrier: the method runs k1 and k2 barriers with no work between them, host-timed from the
// first launch to the end on both GPUs, (t2 - t1) / (k2 - k1), so the launch and the final
// synchronization cancel. For nccl and event a barrier includes one kernel launch per GPU: they
// order kernels, not threads inside one.
CUDASYNC_GPU_ENTRY(BarrierTiming, gpu_barrier_ns, (Method m, int a, int b, const BarrierSpec& spec, int reps, int k1,
                                                   int k2, NcclComms* nccl))

// All-reduce (sum) of `elements` 32-bit integers per GPU, inputs input_value(seed, gpu, i), with
// method r: every output element is compared on the GPU with reduced_value(seed, i), and `reps`
// samples of the time per all-reduce are taken, each over `iterations` back-to-back all-reduces.
// (multi_gpu_reduce_kernels.cu)
CUDASYNC_GPU_ENTRY(ReduceRun, gpu_all_reduce, (Reduce r, int a, int b, std::uint64_t elements, std::uint64_t seed,
                                               int reps, int iterations, std::uint64_t deadline_ns, NcclComms* nccl))

}  // namespace cudasync::multi_gpu

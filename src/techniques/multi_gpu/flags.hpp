#pragma once
// multi-gpu's flag handoff (parts host-flag and peer-flag): what the kernels (flags.cu) and the host
// (flags.cpp) share; nvcc compiles it too, so plain C++. Every GPU entry leaves the calling
// thread's current device as it found it.
#include <cstdint>

#include "core/gpu_entry.hpp"

namespace cudasync::multi_gpu {

// ---- a flag handed across the system ------------------------------------------------------------
// One instance: the producer stores 1 into `data`, then 1 into `flag`; the consumer waits until it
// sees the flag, then reads `data`. Stale: the flag seen, the data still 0.
//   peer-flag: producer on GPU A, data and flag in GPU B's memory (written through peer access),
//              consumer on GPU B.
//   host-flag: producer on the GPU, data and flag in pinned host memory, consumer a host thread.
// What sits on each side between the two accesses:
enum class Fence : int {
  none = 0,        // nothing: the flag is a volatile store / load (relaxed, system scope)
  device,          // __threadfence()          membar.gl  = fence.sc.gpu
  system,          // __threadfence_system()   membar.sys = fence.sc.sys
  rel_acq_device,  // cuda::atomic_ref<unsigned, thread_scope_device> release store / acquire load
  rel_acq_system,  // cuda::atomic_ref<unsigned, thread_scope_system> release store / acquire load
};
inline constexpr int kFences = 5;

enum class Consumer : int {
  peer_gpu = 0,  // a kernel on the other GPU
  host,          // a host thread: its load of the flag is a C++ acquire load
};

struct FlagSpec {
  Fence producer = Fence::none;
  Fence consumer = Fence::none;  // peer-flag only: the host's side is always an acquire load
  Consumer where = Consumer::peer_gpu;
};

// What the GPU observed for one configuration.
struct FlagCounts {
  std::uint64_t fresh = 0;      // the flag seen, the data written
  std::uint64_t stale = 0;      // the flag seen, the data still 0
  std::uint64_t timed_out = 0;  // instances not completed: a wait gave up at its deadline
  std::uint64_t instances = 0;  // every instance run, timed out ones included
  int blocks = 0;               // each kernel's grid (host-flag: one thread)
  int threads = 0;
  int rounds = 0;
  std::uint64_t completed() const { return fresh + stale; }
};

// `instances` instances at least (whole rounds) of the flag handoff from GPU `producer` to a kernel
// on GPU `consumer`, both kernels running at once; every wait gives up after `budget_ns`.
CUDASYNC_GPU_ENTRY(FlagCounts, gpu_peer_flag, (const FlagSpec& spec, int producer, int consumer, long long instances,
                                               std::uint64_t budget_ns))
// The same handoff from one thread on GPU `device` to this host thread, through pinned host memory
// mapped into the GPU, one instance after the other.
CUDASYNC_GPU_ENTRY(FlagCounts, gpu_host_flag, (const FlagSpec& spec, int device, long long instances,
                                               std::uint64_t budget_ns))

}  // namespace cudasync::multi_gpu

// The flag handoff across the system: from a kernel on one GPU to a kernel on another (peer-flag),
// and from a kernel to a host thread (host-flag). Every wait goes through spin_until
// (core/cuda/deadline.cuh) on the GPU, or a steady_clock deadline on the host: nothing here hangs.
#include <algorithm>
#include <chrono>
#include <vector>

#include "core/cuda/mapped_buffer.hpp"
#include "techniques/multi_gpu/flags.hpp"
#include "techniques/multi_gpu/pair.cuh"

namespace cudasync::multi_gpu {

namespace {

// The data's accesses are weak (ld.global / st.global, no scope), as inline PTX so that the compiler
// keeps their order and number exactly as written: the look before the handoff, the data itself.
__device__ __forceinline__ unsigned ld_weak(const unsigned* p) {
  unsigned v;
  asm volatile("ld.global.u32 %0, [%1];" : "=r"(v) : "l"(__cvta_generic_to_global(p)) : "memory");
  return v;
}
// The producer's side: data = 1, the fence, flag = 1 (a release store for the rel-acq fences, else
// a relaxed store at system scope, which is what a volatile store is to the memory model).
__device__ __forceinline__ void produce(unsigned* data, unsigned* flag, Fence f) {
  asm volatile("st.global.u32 [%0], %1;" ::"l"(__cvta_generic_to_global(data)), "r"(1u) : "memory");
  if (f == Fence::device) __threadfence();
  if (f == Fence::system) __threadfence_system();
  if (f == Fence::rel_acq_device) DevRef(*flag).store(1u, ::cuda::memory_order_release);
  else if (f == Fence::rel_acq_system) SysRef(*flag).store(1u, ::cuda::memory_order_release);
  else SysRef(*flag).store(1u, ::cuda::memory_order_relaxed);
}

// The consumer's load of the flag (an acquire load for the rel-acq fences, else relaxed at system
// scope), and its fence once the flag is seen.
__device__ __forceinline__ unsigned flag_load(unsigned* flag, Fence f) {
  if (f == Fence::rel_acq_device) return DevRef(*flag).load(::cuda::memory_order_acquire);
  if (f == Fence::rel_acq_system) return SysRef(*flag).load(::cuda::memory_order_acquire);
  return SysRef(*flag).load(::cuda::memory_order_relaxed);
}
__device__ __forceinline__ void consumer_fence(Fence f) {
  if (f == Fence::device) __threadfence();
  if (f == Fence::system) __threadfence_system();
}

constexpr int kFlagThreads = 256;
constexpr unsigned char kFresh = 1, kStale = 2;  // 0: not completed

struct PeerFlagArgs {
  unsigned* data;          // per instance, in the consumer's memory: 0, then 1
  unsigned* flag;          // per instance, in the consumer's memory
  unsigned* ready;         // per instance, in the consumer's memory: the consumer has looked at data
  unsigned char* result;   // per instance, in the consumer's memory
  unsigned* gave_up;       // the launching GPU's own
  unsigned long long pairs;  // instances per round: one per thread
  int rounds;
  Fence fence;
  unsigned long long budget_ns;
};

// On the consumer's GPU. For each instance: a look at the data first (its line is now in this SM's
// L1, as in a program that polls), "ready" for the producer, the wait for the flag, the fence, the
// data. The branch keeps the look (ptxas drops a load whose value nobody uses); data is 0 until the
// producer, which waits for "ready", writes it.
__global__ void peer_consumer_kernel(PeerFlagArgs a) {
  const unsigned long long t = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
  const cuda::SpinDeadline d{a.budget_ns, a.gave_up};
  for (int r = 0; r < a.rounds; ++r) {
    const unsigned long long i = static_cast<unsigned long long>(r) * a.pairs + t;
    if (ld_weak(a.data + i) > 1u) return;
    SysRef(a.ready[i]).store(1u, ::cuda::memory_order_relaxed);
    unsigned* flag = a.flag + i;
    if (!cuda::spin_until([&] { return flag_load(flag, a.fence) != 0u; }, d)) return;
    consumer_fence(a.fence);
    a.result[i] = ld_weak(a.data + i) != 0u ? kFresh : kStale;
  }
}

// On the producer's GPU; data, flag and ready are peer pointers into the consumer's memory.
__global__ void peer_producer_kernel(PeerFlagArgs a) {
  const unsigned long long t = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
  const cuda::SpinDeadline d{a.budget_ns, a.gave_up};
  for (int r = 0; r < a.rounds; ++r) {
    const unsigned long long i = static_cast<unsigned long long>(r) * a.pairs + t;
    unsigned* ready = a.ready + i;
    if (!cuda::spin_until([&] { return SysRef(*ready).load(::cuda::memory_order_relaxed) != 0u; }, d)) return;
    produce(a.data + i, a.flag + i, a.fence);
  }
}

// One thread: for each instance, wait until the host says it is ready, then data, fence, flag, all
// in pinned host memory mapped into the GPU.
__global__ void host_producer_kernel(unsigned* data, unsigned* flag, unsigned* ready, long long n, Fence f,
                                     unsigned long long budget_ns, unsigned* gave_up) {
  const cuda::SpinDeadline d{budget_ns, gave_up};
  for (long long i = 0; i < n; ++i) {
    unsigned* r = ready + i;
    if (!cuda::spin_until([&] { return SysRef(*r).load(::cuda::memory_order_relaxed) != 0u; }, d)) return;
    produce(data + i, flag + i, f);
  }
}

}  // namespace

FlagCounts gpu_peer_flag(const FlagSpec& spec, int producer, int consumer, long long instances,
                         std::uint64_t budget_ns) {
  DeviceGuard keep;
  enable_peer_access(producer, consumer);
  int sms_p = 0, sms_c = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&sms_p, cudaDevAttrMultiProcessorCount, producer));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms_c, cudaDevAttrMultiProcessorCount, consumer));
  // One block per SM of the smaller GPU: every block of both kernels resident at once, since each
  // consumer thread waits for its producer thread and the other way round.
  FlagCounts c;
  c.blocks = std::min(sms_p, sms_c);
  c.threads = kFlagThreads;
  const unsigned long long pairs = static_cast<unsigned long long>(c.blocks) * kFlagThreads;
  c.rounds = static_cast<int>(std::max(1LL, (instances + static_cast<long long>(pairs) - 1) / static_cast<long long>(pairs)));
  const std::size_t n = static_cast<std::size_t>(pairs) * static_cast<std::size_t>(c.rounds);
  c.instances = n;

  OnDevice<unsigned> data(consumer, n), flag(consumer, n), ready(consumer, n), gave_up_c(consumer, 1);
  OnDevice<unsigned char> result(consumer, n);
  OnDevice<unsigned> gave_up_p(producer, 1);
  DeviceStream sc(consumer), sp(producer);
  PeerFlagArgs a{data.get(), flag.get(), ready.get(), result.get(), gave_up_c.get(), pairs, c.rounds,
                 spec.consumer, budget_ns};
  CUDA_CHECK(cudaSetDevice(consumer));
  peer_consumer_kernel<<<c.blocks, kFlagThreads, 0, sc.get()>>>(a);
  CUDA_CHECK_LAUNCH();
  a.fence = spec.producer;
  a.gave_up = gave_up_p.get();
  CUDA_CHECK(cudaSetDevice(producer));
  peer_producer_kernel<<<c.blocks, kFlagThreads, 0, sp.get()>>>(a);
  CUDA_CHECK_LAUNCH();
  sp.sync();
  sc.sync();

  std::vector<unsigned char> r(n);
  CUDA_CHECK(cudaMemcpy(r.data(), result.get(), n, cudaMemcpyDeviceToHost));
  for (unsigned char x : r) {
    if (x == kFresh) ++c.fresh;
    else if (x == kStale) ++c.stale;
    else ++c.timed_out;
  }
  return c;
}

FlagCounts gpu_host_flag(const FlagSpec& spec, int device, long long instances, std::uint64_t budget_ns) {
  DeviceGuard keep;
  CUDA_CHECK(cudaSetDevice(device));
  const std::size_t n = static_cast<std::size_t>(std::max(1LL, instances));
  cuda::MappedBuffer<unsigned> data(n, 0), flag(n, 0), ready(n, 0);
  OnDevice<unsigned> gave_up(device, 1);
  DeviceStream s(device);
  FlagCounts c;
  c.blocks = 1;
  c.threads = 1;
  c.rounds = static_cast<int>(n);
  c.instances = n;
  host_producer_kernel<<<1, 1, 0, s.get()>>>(data.dev(), flag.dev(), ready.dev(), static_cast<long long>(n),
                                             spec.producer, budget_ns, gave_up.get());
  CUDA_CHECK_LAUNCH();

  // The host's side: ready, then the flag with an acquire load (on x86 an ordinary load: loads are
  // not reordered with loads), then the data.
  using Clock = std::chrono::steady_clock;
  const auto budget = std::chrono::nanoseconds(budget_ns);
  std::size_t i = 0;
  for (; i < n; ++i) {
    __atomic_store_n(ready.host() + i, 1u, __ATOMIC_RELEASE);
    const auto start = Clock::now();
    bool seen = false;
    for (unsigned spin = 0;; ++spin) {
      if (__atomic_load_n(flag.host() + i, __ATOMIC_ACQUIRE) != 0u) {
        seen = true;
        break;
      }
      if ((spin & 1023u) == 0u && Clock::now() - start > budget) break;
    }
    if (!seen) break;
    if (__atomic_load_n(data.host() + i, __ATOMIC_RELAXED) != 0u) ++c.fresh;
    else ++c.stale;
  }
  c.timed_out = n - i;
  for (std::size_t j = i; j < n; ++j) __atomic_store_n(ready.host() + j, 1u, __ATOMIC_RELEASE);  // let it finish
  s.sync();
  return c;
}

}  // namespace cudasync::multi_gpu

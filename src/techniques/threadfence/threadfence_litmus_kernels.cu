// The litmus kernels: many concurrent instances of one test, each on fresh locations, and the
// histogram of their outcomes. Kernels fill plain arrays and never print. Every wait goes through
// spin_until (deadline.cuh): nothing here can hang.
#include <algorithm>

#include "core/cuda/check.hpp"
#include "core/cuda/deadline.cuh"
#include "core/cuda/device_buffer.hpp"
#include "core/cuda/occupancy.cuh"
#include "techniques/threadfence/threadfence_access.cuh"
#include "techniques/threadfence/threadfence_gpu.hpp"

namespace cudasync::threadfence {

using cuda::DeviceBuffer;

namespace {

constexpr int kLitmusThreads = 256;
constexpr unsigned char kNotWritten = 0xFF;
constexpr long long kMaxInstancesPerLaunch = 1LL << 22;

struct LitmusArgs {
  int test, fence0, fence1, access, same_block, weak_wait;
  unsigned* x;          // per instance, 0 at the start
  unsigned* y;          // per instance, 0 at the start
  unsigned* go;         // per instance: the two sides' rendezvous
  unsigned char* r0;    // per instance, kNotWritten until the test wrote it
  unsigned char* r1;
  unsigned* sm;         // per block: the SM it ran on
  unsigned* gave_up;    // raised by any wait that reached its deadline
  unsigned long long pairs;  // pairs per round
  int rounds;
  unsigned long long budget_ns;
};

// Side 0 and side 1 of pair p: blocks 2k and 2k+1 (thread t of each), or the two halves of a block
// (warp w of the first half with warp w of the second). Lane l meets lane l.
__device__ __forceinline__ void pair_of(const LitmusArgs& a, int& side, unsigned long long& p) {
  const unsigned t = threadIdx.x, T = blockDim.x;
  if (a.same_block) {
    const unsigned half = T / 2;
    side = t >= half ? 1 : 0;
    p = static_cast<unsigned long long>(blockIdx.x) * half + (t - (side ? half : 0u));
  } else {
    side = static_cast<int>(blockIdx.x & 1u);
    p = static_cast<unsigned long long>(blockIdx.x >> 1) * T + t;
  }
}

__global__ void litmus_kernel(LitmusArgs a) {
  if (threadIdx.x == 0) a.sm[blockIdx.x] = smid();
  int side = 0;
  unsigned long long p = 0;
  pair_of(a, side, p);
  const int f = side ? a.fence1 : a.fence0;
  const bool ra = f == static_cast<int>(Fence::rel_acq);
  const int k = ra ? kRelAcq : a.access;  // sb, lb, corr: every access of the side
  const cuda::SpinDeadline d{a.budget_ns, a.gave_up};
  const Test test = static_cast<Test>(a.test);
  for (int r = 0; r < a.rounds; ++r) {
    const unsigned long long i = static_cast<unsigned long long>(r) * a.pairs + p;
    unsigned* x = a.x + i;
    unsigned* y = a.y + i;
    // mp: the consumer has looked at the data before, as a polling program would; with plain
    // loads the line may now sit in its SM's L1. The branch keeps the load (ptxas drops a load
    // whose value nobody uses) and makes it complete here: x is 0 until the producer, which is
    // still before the rendezvous, writes it.
    if (test == Test::mp && side == 1 && load(x, a.access) > 1u) return;
    // Both sides meet first, so that they run the test at the same moment (Alglave et al.'s
    // "thread synchronisation" incantation). The one that arrives first waits, with a deadline.
    if (atomicAdd(a.go + i, 1u) == 0u) {
      unsigned* go = a.go + i;
      if (!cuda::spin_until([&] { return ld_volatile(go) >= 2u; }, d)) return;
    }
    switch (test) {
      case Test::mp:
        if (side == 0) {
          store(x, 1u, a.access);
          fence(f);
          store(y, 1u, ra ? kRelAcq : kVolatile);
        } else {
          const int wk = ra ? kRelAcq : a.weak_wait ? kPlain : kVolatile;
          if (!cuda::spin_until([&] { return load(y, wk) != 0u; }, d)) return;
          fence(f);
          const unsigned v = load(x, a.access);
          a.r0[i] = 1;
          a.r1[i] = v != 0u ? 1 : 0;
        }
        break;
      case Test::sb: {
        store(side ? y : x, 1u, k);
        fence(f);
        const unsigned v = load(side ? x : y, k);
        (side ? a.r1 : a.r0)[i] = v != 0u ? 1 : 0;
        break;
      }
      case Test::lb: {
        const unsigned v = load(side ? y : x, k);
        fence(f);
        store(side ? x : y, 1u, k);
        (side ? a.r1 : a.r0)[i] = v != 0u ? 1 : 0;
        break;
      }
      case Test::corr:
        if (side == 0) {
          fence(f);
          store(x, 1u, k);
        } else {
          const unsigned v0 = load(x, k);
          fence(f);
          const unsigned v1 = load(x, k);
          a.r0[i] = v0 != 0u ? 1 : 0;
          a.r1[i] = v1 != 0u ? 1 : 0;
        }
        break;
    }
  }
}

// counts[0..3]: outcome r0 * 2 + r1; counts[4]: instances not completed.
__global__ void histogram_kernel(const unsigned char* r0, const unsigned char* r1, unsigned long long n,
                                 unsigned long long* counts) {
  __shared__ unsigned long long c[kOutcomes + 1];
  if (threadIdx.x <= kOutcomes) c[threadIdx.x] = 0;
  __syncthreads();
  for (unsigned long long i = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<unsigned long long>(gridDim.x) * blockDim.x) {
    const unsigned a = r0[i], b = r1[i];
    atomicAdd(&c[a > 1u || b > 1u ? kOutcomes : a * 2u + b], 1ull);
  }
  __syncthreads();
  if (threadIdx.x <= kOutcomes) atomicAdd(&counts[threadIdx.x], c[threadIdx.x]);
}

struct LitmusGrid {
  int blocks = 0;
  unsigned long long pairs = 0;
};

LitmusGrid litmus_grid(Placement placement) {
  int dev = 0;
  CUDA_CHECK(cudaGetDevice(&dev));
  // Every block must be resident at once: a side waits for its partner, which must be running.
  const cuda::Occupancy o = cuda::occupancy_of(litmus_kernel, kLitmusThreads, 0, dev);
  LitmusGrid g;
  g.blocks = std::max(2, o.max_coresident_blocks());
  if (placement == Placement::different_blocks) g.blocks &= ~1;
  g.pairs = placement == Placement::same_block
                ? static_cast<unsigned long long>(g.blocks) * (kLitmusThreads / 2)
                : static_cast<unsigned long long>(g.blocks / 2) * kLitmusThreads;
  return g;
}

}  // namespace

LitmusCounts gpu_litmus(const LitmusSpec& spec, long long iterations, unsigned long long wait_budget_ns) {
  const LitmusGrid g = litmus_grid(spec.placement);
  LitmusCounts c;
  c.blocks = g.blocks;
  c.threads = kLitmusThreads;
  c.pairs_per_round = g.pairs;
  const long long pairs = static_cast<long long>(g.pairs);
  const long long rounds_total = std::max(1LL, (iterations + pairs - 1) / pairs);
  const long long per_launch = std::max(1LL, std::min(rounds_total, kMaxInstancesPerLaunch / pairs));
  const std::size_t n = static_cast<std::size_t>(per_launch * pairs);
  DeviceBuffer<unsigned> x(n), y(n), go(n), sm(static_cast<std::size_t>(g.blocks)), gave_up(1);
  DeviceBuffer<unsigned char> r0(n), r1(n);
  DeviceBuffer<unsigned long long> counts(kOutcomes + 1);
  counts.fill_bytes(0);
  gave_up.fill_bytes(0);
  std::vector<unsigned> sm_first;
  for (long long done = 0; done < rounds_total; done += per_launch) {
    const long long rounds = std::min(per_launch, rounds_total - done);
    const std::size_t bytes_u = static_cast<std::size_t>(rounds * pairs) * sizeof(unsigned);
    const std::size_t bytes_c = static_cast<std::size_t>(rounds * pairs);
    CUDA_CHECK(cudaMemsetAsync(x.get(), 0, bytes_u));
    CUDA_CHECK(cudaMemsetAsync(y.get(), 0, bytes_u));
    CUDA_CHECK(cudaMemsetAsync(go.get(), 0, bytes_u));
    CUDA_CHECK(cudaMemsetAsync(r0.get(), kNotWritten, bytes_c));
    CUDA_CHECK(cudaMemsetAsync(r1.get(), kNotWritten, bytes_c));
    LitmusArgs a{};
    a.test = static_cast<int>(spec.test);
    a.fence0 = static_cast<int>(spec.fence[0]);
    a.fence1 = static_cast<int>(spec.fence[1]);
    a.access = static_cast<int>(spec.access);
    a.same_block = spec.placement == Placement::same_block ? 1 : 0;
    a.weak_wait = spec.weak_wait ? 1 : 0;
    a.x = x.get();
    a.y = y.get();
    a.go = go.get();
    a.r0 = r0.get();
    a.r1 = r1.get();
    a.sm = sm.get();
    a.gave_up = gave_up.get();
    a.pairs = g.pairs;
    a.rounds = static_cast<int>(rounds);
    a.budget_ns = wait_budget_ns;
    litmus_kernel<<<g.blocks, kLitmusThreads>>>(a);
    CUDA_CHECK_LAUNCH();
    histogram_kernel<<<256, 256>>>(r0.get(), r1.get(), static_cast<unsigned long long>(rounds * pairs), counts.get());
    CUDA_CHECK_LAUNCH();
    if (done == 0) sm_first = sm.download();
    c.rounds += static_cast<int>(rounds);
    c.instances += static_cast<std::uint64_t>(rounds * pairs);
  }
  const std::vector<unsigned long long> h = counts.download();
  for (int o = 0; o < kOutcomes; ++o) c.outcome[o] = h[static_cast<std::size_t>(o)];
  c.timed_out = h[kOutcomes];
  // Which pairs had both sides on one SM (the first launch's blocks).
  c.pairs_checked = g.pairs;
  if (spec.placement == Placement::same_block) {
    c.pairs_same_sm = g.pairs;
  } else {
    for (int b = 0; b + 1 < g.blocks; b += 2)
      if (sm_first[static_cast<std::size_t>(b)] == sm_first[static_cast<std::size_t>(b + 1)])
        c.pairs_same_sm += kLitmusThreads;
  }
  return c;
}

}  // namespace cudasync::threadfence

// The kernels of threadfence's fences: the litmus tests (many concurrent instances of one test,
// each on fresh locations, and the histogram of their outcomes), a host thread watching the GPU
// through mapped pinned host memory, the fence-cost loops and the probe kernels the ptx part reads
// back from the listing. Kernels fill plain arrays and never print. Every wait has a deadline
// (spin_until, deadline.cuh; the host's on its steady clock): nothing here can hang.
//
// The memory accesses are in one place. The plain and volatile ones are inline PTX, so the order
// and kind of every access is exactly what the model reasons about (the compiler may not merge,
// move or cache them):
//   ld.global / st.global                  weak ("plain"): may be served by the SM's L1
//   ld.volatile.global / st.volatile.global relaxed at system scope (what C++ volatile compiles to)
// The fences are the CUDA intrinsics themselves (__threadfence_block / __threadfence /
// __threadfence_system) and release/acquire is cuda::atomic_ref, as a student would write them.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <numeric>

#include <cuda/atomic>

#include "core/cuda/check.hpp"
#include "core/cuda/deadline.cuh"
#include "core/cuda/device_buffer.hpp"
#include "core/cuda/mapped_buffer.hpp"
#include "core/cuda/occupancy.cuh"
#include "techniques/threadfence/fences.hpp"

namespace cudasync::threadfence {

using cuda::DeviceBuffer;

namespace {

using Ref = ::cuda::atomic_ref<unsigned, ::cuda::thread_scope_device>;

__device__ __forceinline__ size_t gaddr(const void* p) { return __cvta_generic_to_global(p); }

__device__ __forceinline__ unsigned ld_plain(const unsigned* p) {
  unsigned v;
  asm volatile("ld.global.u32 %0, [%1];" : "=r"(v) : "l"(gaddr(p)) : "memory");
  return v;
}
__device__ __forceinline__ unsigned ld_volatile(const unsigned* p) {
  unsigned v;
  asm volatile("ld.volatile.global.u32 %0, [%1];" : "=r"(v) : "l"(gaddr(p)) : "memory");
  return v;
}
__device__ __forceinline__ void st_plain(unsigned* p, unsigned v) {
  asm volatile("st.global.u32 [%0], %1;" ::"l"(gaddr(p)), "r"(v) : "memory");
}
__device__ __forceinline__ void st_volatile(unsigned* p, unsigned v) {
  asm volatile("st.volatile.global.u32 [%0], %1;" ::"l"(gaddr(p)), "r"(v) : "memory");
}

// k: 0 plain, 1 volatile, 2 release (stores) / acquire (loads)
constexpr int kPlain = 0, kVolatile = 1, kRelAcq = 2;

__device__ __forceinline__ unsigned load(unsigned* p, int k) {
  if (k == kRelAcq) return Ref(*p).load(::cuda::memory_order_acquire);
  return k == kVolatile ? ld_volatile(p) : ld_plain(p);
}
__device__ __forceinline__ void store(unsigned* p, unsigned v, int k) {
  if (k == kRelAcq) Ref(*p).store(v, ::cuda::memory_order_release);
  else if (k == kVolatile) st_volatile(p, v);
  else st_plain(p, v);
}
__device__ __forceinline__ void fence(int f) {
  switch (static_cast<Fence>(f)) {
    case Fence::block: __threadfence_block(); break;
    case Fence::device: __threadfence(); break;
    case Fence::system: __threadfence_system(); break;
    default: break;  // none; rel_acq puts its ordering in the accesses
  }
}

__device__ __forceinline__ unsigned smid() {
  unsigned s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}

// ---- litmus ----------------------------------------------------------------------------------------

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

// ---- cost --------------------------------------------------------------------------------------------

constexpr int kChainLength = 1 << 16;  // 256 KiB: in L2, and __ldcg does not allocate in L1
constexpr unsigned kChainStride = 4099;  // words: every step lands on another cache line

template <int V>
__global__ void cost_kernel(unsigned* words, unsigned* chain, int iterations, long long* cycles) {
  unsigned* mine = words + blockIdx.x * blockDim.x + threadIdx.x;
  unsigned v = (threadIdx.x * 977u + blockIdx.x * 131u) % kChainLength;
  const long long c0 = clock64();
  for (int i = 0; i < iterations; ++i) {
    const unsigned u = static_cast<unsigned>(i);
    if constexpr (V == static_cast<int>(CostVariant::none)) {
      st_plain(mine, u);
    } else if constexpr (V == static_cast<int>(CostVariant::block)) {
      st_plain(mine, u);
      __threadfence_block();
    } else if constexpr (V == static_cast<int>(CostVariant::device)) {
      st_plain(mine, u);
      __threadfence();
    } else if constexpr (V == static_cast<int>(CostVariant::system)) {
      st_plain(mine, u);
      __threadfence_system();
    } else if constexpr (V == static_cast<int>(CostVariant::acq_rel)) {
      st_plain(mine, u);
      ::cuda::atomic_thread_fence(::cuda::memory_order_acq_rel, ::cuda::thread_scope_device);
    } else if constexpr (V == static_cast<int>(CostVariant::release_store)) {
      Ref(*mine).store(u, ::cuda::memory_order_release);
    } else if constexpr (V == static_cast<int>(CostVariant::l2_load_chain)) {
      v = __ldcg(chain + v);
    } else if constexpr (V == static_cast<int>(CostVariant::device_alone)) {
      __threadfence();
    } else {
      v = atomicAdd(chain + v, 0u);
    }
  }
  const long long c1 = clock64();
  if (threadIdx.x == 0) cycles[blockIdx.x] = c1 - c0;
  if (v == 0xFFFFFFFFu) *mine = v;  // keeps the chains' loads alive; never true
}

// The SM clock against %globaltimer over 200 us: ns per clock64 cycle.
__global__ void calibrate_kernel(double* ns_per_cycle) {
  const unsigned long long g0 = cuda::globaltimer_ns();
  const long long c0 = clock64();
  unsigned long long g1 = g0;
  while (g1 - g0 < 200000ull) g1 = cuda::globaltimer_ns();  // bounded by the clock
  const long long c1 = clock64();
  *ns_per_cycle = static_cast<double>(g1 - g0) / static_cast<double>(c1 - c0);
}

// cost_kernel<V> runs the loop of CostVariant V: the table is in CostVariant's order.
using CostKernel = void (*)(unsigned*, unsigned*, int, long long*);
const CostKernel kCostKernels[kCostVariants] = {cost_kernel<0>, cost_kernel<1>, cost_kernel<2>,
                                                cost_kernel<3>, cost_kernel<4>, cost_kernel<5>,
                                                cost_kernel<6>, cost_kernel<7>, cost_kernel<8>};

// ---- host observer -------------------------------------------------------------------------------------
constexpr std::size_t kLineWords = 32;  // one 128-byte line: every word below sits on a line of its own

struct HostArgs {
  unsigned* data;         // mapped: [round][word] at a line each
  unsigned* flag;         // mapped: [round] at a line each
  const unsigned* ready;  // mapped: [round], written by the host
  int rounds;
  int fence;
  cuda::SpinDeadline deadline;
};

__global__ void host_observer_kernel(HostArgs a) {
  for (int k = 0; k < a.rounds; ++k) {
    const unsigned* ready = a.ready + static_cast<std::size_t>(k) * kLineWords;
    if (!cuda::spin_until([&] { return ld_volatile(ready) != 0u; }, a.deadline)) return;
    for (int w = 0; w < kHostDataWords; ++w)
      st_plain(a.data + (static_cast<std::size_t>(k) * kHostDataWords + w) * kLineWords, static_cast<unsigned>(k + 1));
    fence(a.fence);
    st_volatile(a.flag + static_cast<std::size_t>(k) * kLineWords, 1u);
  }
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

// ---- probes: never launched; the ptx part (--part ptx) reads what they compiled to ------------
// One fence or atomic each, between plain accesses, in plain CUDA C++ (external linkage, so the
// compiler keeps them).
namespace probes {
__global__ void probe_threadfence_block(unsigned* p) {
  p[0] = 1;
  __threadfence_block();
  p[1] = 1;
}
__global__ void probe_threadfence(unsigned* p) {
  p[0] = 1;
  __threadfence();
  p[1] = 1;
}
__global__ void probe_threadfence_system(unsigned* p) {
  p[0] = 1;
  __threadfence_system();
  p[1] = 1;
}
__global__ void probe_fence_sc_gpu(unsigned* p) {
  p[0] = 1;
  asm volatile("fence.sc.gpu;" ::: "memory");
  p[1] = 1;
}
__global__ void probe_fence_acq_rel_gpu(unsigned* p) {
  p[0] = 1;
  ::cuda::atomic_thread_fence(::cuda::memory_order_acq_rel, ::cuda::thread_scope_device);
  p[1] = 1;
}
__global__ void probe_store_release(unsigned* p) {
  p[0] = 1;
  Ref(p[1]).store(1, ::cuda::memory_order_release);
}
__global__ void probe_load_acquire(unsigned* p) {
  const unsigned v = Ref(p[1]).load(::cuda::memory_order_acquire);
  p[2] = p[0] + v;
}
__global__ void probe_store_seq_cst(unsigned* p) {
  p[0] = 1;
  Ref(p[1]).store(1, ::cuda::memory_order_seq_cst);
}
__global__ void probe_volatile(unsigned* p) {
  volatile unsigned* v = p;
  v[0] = 1;
  p[2] = v[1];
}
__global__ void probe_atomic_add(unsigned* p) { p[1] = atomicAdd(p, 1u); }
__global__ void probe_atomic_add_unused(unsigned* p) { atomicAdd(p, 1u); }
__global__ void probe_fetch_add_acq_rel(unsigned* p) { p[1] = Ref(p[0]).fetch_add(1, ::cuda::memory_order_acq_rel); }
}  // namespace probes

double gpu_ns_per_cycle() {
  DeviceBuffer<double> out(1);
  calibrate_kernel<<<1, 1>>>(out.get());
  CUDA_CHECK_LAUNCH();
  double v = 0;
  out.download(&v, 1);
  return v;
}

std::vector<double> gpu_cost_ns(CostVariant variant, CostShape shape, int iterations, int reps) {
  int dev = 0, sms = 0;
  CUDA_CHECK(cudaGetDevice(&dev));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  const int blocks = shape == CostShape::one_thread ? 1 : sms;
  const int threads = shape == CostShape::one_thread ? 1 : kWarpSize;
  DeviceBuffer<unsigned> words(static_cast<std::size_t>(blocks * threads));
  words.fill_bytes(0);
  std::vector<unsigned> chain_h(kChainLength);
  for (unsigned i = 0; i < static_cast<unsigned>(kChainLength); ++i) chain_h[i] = (i + kChainStride) % kChainLength;
  DeviceBuffer<unsigned> chain(chain_h.size());
  chain.upload(chain_h);
  DeviceBuffer<long long> cycles(static_cast<std::size_t>(blocks));
  const double ns_per_cycle = gpu_ns_per_cycle();
  const CostKernel k = kCostKernels[static_cast<int>(variant)];
  std::vector<double> out;
  for (int rep = -1; rep < reps; ++rep) {  // rep -1: warm-up
    k<<<blocks, threads>>>(words.get(), chain.get(), iterations, cycles.get());
    CUDA_CHECK_LAUNCH();
    if (rep < 0) continue;
    const std::vector<long long> c = cycles.download();
    const double mean = static_cast<double>(std::accumulate(c.begin(), c.end(), 0LL)) / static_cast<double>(c.size());
    out.push_back(mean / iterations * ns_per_cycle);
  }
  return out;
}

HostObserverRun gpu_host_observer(const HostObserverSpec& spec, Fence fence) {
  using Clock = std::chrono::steady_clock;
  const auto rounds = static_cast<std::size_t>(spec.rounds);
  cuda::MappedBuffer<unsigned> data(rounds * kHostDataWords * kLineWords, 0), flag(rounds * kLineWords, 0),
      ready(rounds * kLineWords, 0);
  cuda::DeviceBuffer<unsigned> gave_up(1);
  gave_up.fill_bytes(0);
  HostArgs a{data.dev(), flag.dev(), ready.dev(), spec.rounds, static_cast<int>(fence),
             cuda::SpinDeadline{spec.device_budget_ns, gave_up.get()}};
  host_observer_kernel<<<1, 1>>>(a);
  CUDA_CHECK(cudaGetLastError());
  // The observer: this thread. A volatile load of the flag, an acquire fence, then the data.
  volatile unsigned* const f = flag.host();
  volatile unsigned* const d = data.host();
  volatile unsigned* const r = ready.host();
  const auto budget = std::chrono::milliseconds(spec.host_budget_ms);
  HostObserverRun out;
  const auto t0 = Clock::now();
  for (std::size_t k = 0; k < rounds; ++k) {
    r[k * kLineWords] = 1u;
    const auto start = Clock::now();
    while (f[k * kLineWords] == 0u)
      if (Clock::now() - start > budget) break;
    if (f[k * kLineWords] == 0u) {
      out.host_gave_up = true;
      break;
    }
    std::atomic_thread_fence(std::memory_order_acquire);
    std::uint64_t stale = 0;
    for (std::size_t w = 0; w < kHostDataWords; ++w)
      stale += d[(k * kHostDataWords + w) * kLineWords] != static_cast<unsigned>(k + 1) ? 1 : 0;
    out.stale_words += stale;
    out.stale += stale > 0 ? 1 : 0;
    ++out.rounds;
  }
  out.ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  CUDA_CHECK(cudaDeviceSynchronize());  // the kernel ends: its waits have deadlines
  unsigned g = 0;
  gave_up.download(&g, 1);
  out.device_gave_up = g != 0;
  return out;
}

}  // namespace cudasync::threadfence

// What a fence costs: a loop of stores with a fence after each, beside two peers (a dependent L2
// load, a dependent atomicAdd); the SM clock against %globaltimer; and the probe kernels the ptx
// part reads back from the listing.
#include <numeric>

#include "core/cuda/check.hpp"
#include "core/cuda/deadline.cuh"
#include "core/cuda/device_buffer.hpp"
#include "techniques/threadfence/threadfence_access.cuh"
#include "techniques/threadfence/threadfence_gpu.hpp"

namespace cudasync::threadfence {

using cuda::DeviceBuffer;

namespace {

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

using CostKernel = void (*)(unsigned*, unsigned*, int, long long*);
CostKernel cost_kernel_of(CostVariant v) {
  switch (v) {
    case CostVariant::none: return cost_kernel<0>;
    case CostVariant::block: return cost_kernel<1>;
    case CostVariant::device: return cost_kernel<2>;
    case CostVariant::system: return cost_kernel<3>;
    case CostVariant::acq_rel: return cost_kernel<4>;
    case CostVariant::release_store: return cost_kernel<5>;
    case CostVariant::l2_load_chain: return cost_kernel<6>;
    case CostVariant::atomic_chain: return cost_kernel<7>;
    case CostVariant::device_alone: return cost_kernel<8>;
  }
  return cost_kernel<0>;
}

}  // namespace

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
  const CostKernel k = cost_kernel_of(variant);
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

}  // namespace cudasync::threadfence

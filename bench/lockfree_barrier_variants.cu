// lockfree-barrier's variants probe (sm_90 only, not part of cudasync): the flat grid barrier
// with each arrival and poll, its counters, two-level barriers on thread-block clusters, and a
// gather barrier (one slot per block, one master warp, one release word), timed side by side
// with grid.sync() in one process, so that the lesson's own barriers are chosen from
// measurements. ns per barrier = (t(k2) - t(k1)) / (k2 - k1), median of REPS; the variants marked
// "checked" also run the lesson's multi-phase kernel (its mix(), 33 phases) and compare every
// value with a CPU replay (X: a value differed). docs/measurements.md keeps the figures. Built
// with every CUDA build (bench/CMakeLists.txt); `GPU_SH_COST=1 scripts/gpu.sh lockfree-barrier`
// runs build/gpu/bench/lockfree_barrier_variants.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/cuda/cluster.cuh"
#include "core/cuda/ptx_memory.cuh"
#include "core/cuda/vector_load.cuh"
#include "techniques/lockfree_barrier/barriers.hpp"

using namespace cudasync::lockfree_barrier;
namespace cg = cooperative_groups;
typedef unsigned u32;

#define CK(x)                                                                                       \
  do {                                                                                              \
    cudaError_t e_ = (x);                                                                           \
    if (e_ != cudaSuccess) {                                                                        \
      printf("CUDA %s at %s:%d: %s\n", cudaGetErrorString(e_), __FILE__, __LINE__, #x);            \
      exit(1);                                                                                      \
    }                                                                                               \
  } while (0)

__device__ __forceinline__ unsigned long long gt() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
// The PTX memory operations, as the lesson's barriers spell them (core/cuda/ptx_memory.cuh).
namespace ptx = cudasync::cuda;
__device__ __forceinline__ u32 ld_relaxed(const u32* p) { return ptx::ld_relaxed_gpu(p); }
__device__ __forceinline__ u32 ld_acquire(const u32* p) { return ptx::ld_acquire_gpu(p); }
__device__ __forceinline__ void st_release(u32* p, u32 v) { ptx::st_release_gpu(p, v); }
__device__ __forceinline__ void st_relaxed(u32* p, u32 v) { ptx::st_relaxed_gpu(p, v); }
__device__ __forceinline__ void red_release(u32* p) { ptx::red_release_gpu_add(p, 1u); }
__device__ __forceinline__ void red_relaxed(u32* p) { ptx::red_relaxed_gpu_add(p, 1u); }
__device__ __forceinline__ void fence_acq_rel() { ptx::fence_acq_rel_gpu(); }
__device__ __forceinline__ void fence_acquire() { ptx::fence_acquire_gpu(); }
__device__ __forceinline__ bool reached(u32 v, u32 g) { return static_cast<int>(v - g) >= 0; }
using cudasync::cuda::cluster_arrive_relaxed;
using cudasync::cuda::cluster_arrive_release;
using cudasync::cuda::cluster_block_rank;
using cudasync::cuda::cluster_wait_acquire;
using cudasync::cuda::load4_acquire;
using cudasync::cuda::load4_relaxed;
__device__ __forceinline__ u32 cl_id() {
  u32 r;
  asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(r));
  return r;
}
__device__ __forceinline__ u32 cl_count() {
  u32 r;
  asm volatile("mov.u32 %0, %%nclusterid.x;" : "=r"(r));
  return r;
}

struct A {
  u32* words;  // counter l at words + l * 64
  u32* abort;
  unsigned long long budget;
  u32* buf0;
  u32* buf1;
  int C;   // counters
  int cs;  // cluster size (1: none)
};

enum V : int {
  GRID = 0,
  FLAT_RED_RELAXEDPOLL,   // the shipped own at C = 1: red.release, ld.relaxed polls, fence.acquire
  FLAT_RED_ACQPOLL,       // red.release, ld.acquire polls
  FLAT_FENCE_RED,         // fence.acq_rel + red.relaxed, ld.relaxed + fence.acquire
  FLAT_FENCE_ATOM,        // fence.acq_rel + atomicAdd (returns), ld.relaxed + fence.acquire
  FLAT_NOFENCE,           // red.relaxed, ld.relaxed, no fence at all: wrong for data, the price of the fences
  FLAT_WARP_C,            // warp 0 polls C counters (the shipped own at C > 1)
  FLAT_T0_C2,             // two counters, thread 0 polls both with two independent loads (no warp votes)
  CL_ARRIVE,              // cluster barrier, leader red.release + poll, cluster barrier
  CL_ARRIVE_LEADREL,      // the same, second cluster barrier: release only in the leader block
  CL_RELEASE,             // every block red.release, leader polls, one cluster barrier releases the peers
  CL_RELEASE_NOREL,       // the same, leader arrives relaxed (formally incomplete: the price of that release)
  CL_ONLY,                // a cluster barrier alone (not a grid barrier): its latency
  GATHER_ACQ,             // gather: st.release into the block's own slot, master warp polls with ld.acquire.v4
  GATHER_RLX,             // gather: the same, master polls with ld.relaxed.v4 and one fence.acquire after
  GATHER_FENCE_ST,        // gather: fence.acq_rel + st.relaxed into the slot, master as GATHER_RLX
};

template <class R>
__device__ __forceinline__ bool wait1(R ready, const A& a) {
  const unsigned long long s = gt();
  unsigned tries = 0;
  while (!ready()) {
    if (gt() - s > a.budget) {
      atomicExch(a.abort, 1u);
      return false;
    }
    if ((++tries & 1023u) == 0 && ld_relaxed(a.abort) != 0) return false;
  }
  return true;
}

// Warp 0 (all 32 lanes) polls counters 0..C-1 until each reaches k * share(l).
__device__ __forceinline__ bool warp_poll(const A& a, int k, int arrivers) {
  const int lane = threadIdx.x & 31;
  const int C = a.C;
  const u32 goal = lane < C ? static_cast<u32>(k) * static_cast<u32>((arrivers - lane + C - 1) / C) : 0u;
  const u32* mine = a.words + (lane < C ? lane : 0) * 64;
  bool ok = lane >= C;
  const unsigned long long s = gt();
  unsigned tries = 0;
  while (true) {
    if (!ok) ok = reached(ld_relaxed(mine), goal);
    if (__all_sync(0xffffffffu, ok)) return true;
    const bool late = gt() - s > a.budget;
    const bool stop = (++tries & 1023u) == 0 && ld_relaxed(a.abort) != 0;
    if (__any_sync(0xffffffffu, late || stop)) {
      if (lane == 0 && late) atomicExch(a.abort, 1u);
      return false;
    }
  }
}

// The leader's arrive + wait at gpu scope, for `arrivers` arrivals spread over a.C counters.
// Thread 0 alone for C == 1; warp 0 otherwise (the caller is all of warp 0 then).
__device__ __forceinline__ bool gpu_level(const A& a, int k, int arrivers, int who, bool arrive) {
  u32* ctr = a.words;
  if (a.C == 1) {
    if (arrive) red_release(ctr);
    const u32 goal = static_cast<u32>(k) * static_cast<u32>(arrivers);
    const bool ok = wait1([&] { return reached(ld_relaxed(ctr), goal); }, a);
    fence_acquire();
    return ok;
  }
  if (arrive && (threadIdx.x & 31) == 0) red_release(ctr + (who % a.C) * 64);
  const bool ok = warp_poll(a, k, arrivers);
  fence_acquire();
  return ok;
}

// Thread 0's verdict for the whole block (two slots by parity: one __syncthreads() is enough).
__device__ __forceinline__ bool block_ok(bool ok, int k) {
  __shared__ int s_ok[2];
  if (threadIdx.x == 0) s_ok[k & 1] = ok;
  __syncthreads();
  return s_ok[k & 1] != 0;
}

__device__ __forceinline__ int& fail_flag() {
  __shared__ int s_fail;
  return s_fail;
}

// Gather barrier. No read-modify-write on a shared word: block b's thread 0 publishes the
// generation k in its own slot (slots = a.words + 64, one u32 per block, 16-byte aligned); warp 0
// of block 0 reads every slot with 16-byte loads (lane l owns vectors l, l + 32, ...: 132 slots =
// 33 vectors, 1056 = 264, at most 9 per lane) until all hold k, then lane 0 stores k into one
// release word (a.words[0]) that every block's thread 0 polls with ld.acquire.
// Why it is correct (PTX memory model): a block's writes come before its thread 0's release store
// by __syncthreads(); a master lane's acquire load (or relaxed load + fence.acquire) that sees k
// synchronises with that store; __syncwarp() orders every lane's acquisition before lane 0's
// st.release of the release word, and release is cumulative, so each block's thread 0 that
// acquires the word, and after __syncthreads() its whole block, sees every block's phase.
// The master's own block needs no extra fence: its lane 0 reads the word it wrote itself, after
// the __syncwarp() that already ordered the other lanes' acquisitions, then __syncthreads().
// Unlike Xiao & Feng's lock-free barrier (one master thread per slot, so N <= blockDim, a
// __syncthreads() inside the master block, then one Arrayout flag written per block), one warp
// checks all slots with vector loads and warp votes, and one word releases every block.
template <int VV>
__device__ __forceinline__ bool gather_barrier(const A& a, int k) {
  const int N = static_cast<int>(gridDim.x);
  u32* rel = a.words;
  u32* slots = a.words + 64;
  const u32 gen = static_cast<u32>(k);
  __syncthreads();
  if (threadIdx.x == 0) {
    if constexpr (VV == GATHER_FENCE_ST) {
      fence_acq_rel();
      st_relaxed(slots + blockIdx.x, gen);
    } else {
      st_release(slots + blockIdx.x, gen);
    }
  }
  bool ok = true;
  if (blockIdx.x == 0 && threadIdx.x < 32) {
    const int lane = static_cast<int>(threadIdx.x);
    const int nv = (N + 3) / 4;
    u32 todo = 0;  // bit j: vector lane + 32 j not yet seen complete
    for (int j = 0; lane + 32 * j < nv; ++j) todo |= 1u << j;
    const unsigned long long s = gt();
    unsigned tries = 0;
    bool done = false;
    while (true) {
      for (int j = 0; j < 9; ++j) {
        if (!(todo & (1u << j))) continue;
        const int v = lane + 32 * j;
        const uint4 w = VV == GATHER_ACQ ? load4_acquire(slots + 4 * v) : load4_relaxed(slots + 4 * v);
        const int b = 4 * v;  // slots past N (the last vector's padding) count as arrived
        if (reached(w.x, gen) && (b + 1 >= N || reached(w.y, gen)) && (b + 2 >= N || reached(w.z, gen)) &&
            (b + 3 >= N || reached(w.w, gen)))
          todo &= ~(1u << j);
      }
      if (__all_sync(0xffffffffu, todo == 0)) {
        done = true;
        break;
      }
      const bool late = gt() - s > a.budget;
      const bool stop = (++tries & 1023u) == 0 && ld_relaxed(a.abort) != 0;
      if (__any_sync(0xffffffffu, late || stop)) {
        if (lane == 0 && late) atomicExch(a.abort, 1u);
        break;
      }
    }
    if constexpr (VV != GATHER_ACQ) fence_acquire();
    __syncwarp();
    if (lane == 0 && done) st_release(rel, gen);
    ok = done;
  }
  if (threadIdx.x == 0 && ok) ok = wait1([&] { return reached(ld_acquire(rel), gen); }, a);
  return block_ok(ok, k);
}

template <int VV>
__device__ __forceinline__ bool barrier(const A& a, int k) {
  const int N = static_cast<int>(gridDim.x);
  if constexpr (VV == GRID) {
    cg::this_grid().sync();
    return true;
  } else if constexpr (VV >= GATHER_ACQ) {
    return gather_barrier<VV>(a, k);
  } else if constexpr (VV >= FLAT_RED_RELAXEDPOLL && VV <= FLAT_NOFENCE) {
    __syncthreads();
    bool ok = true;
    if (threadIdx.x == 0) {
      u32* ctr = a.words;
      const u32 goal = static_cast<u32>(k) * static_cast<u32>(N);
      if constexpr (VV == FLAT_RED_RELAXEDPOLL) {
        red_release(ctr);
        ok = wait1([&] { return reached(ld_relaxed(ctr), goal); }, a);
        fence_acquire();
      } else if constexpr (VV == FLAT_RED_ACQPOLL) {
        red_release(ctr);
        ok = wait1([&] { return reached(ld_acquire(ctr), goal); }, a);
      } else if constexpr (VV == FLAT_FENCE_RED) {
        fence_acq_rel();
        red_relaxed(ctr);
        ok = wait1([&] { return reached(ld_relaxed(ctr), goal); }, a);
        fence_acquire();
      } else if constexpr (VV == FLAT_FENCE_ATOM) {
        fence_acq_rel();
        atomicAdd(ctr, 1u);
        ok = wait1([&] { return reached(ld_relaxed(ctr), goal); }, a);
        fence_acquire();
      } else {
        red_relaxed(ctr);
        ok = wait1([&] { return reached(ld_relaxed(ctr), goal); }, a);
      }
    }
    return block_ok(ok, k);
  } else if constexpr (VV == FLAT_T0_C2) {
    __syncthreads();
    bool ok = true;
    if (threadIdx.x == 0) {
      u32* c0 = a.words;
      u32* c1 = a.words + 64;
      red_release((blockIdx.x & 1u) ? c1 : c0);
      const u32 g0 = static_cast<u32>(k) * static_cast<u32>((N + 1) / 2), g1 = static_cast<u32>(k) * static_cast<u32>(N / 2);
      ok = wait1(
          [&] {
            const u32 v0 = ld_relaxed(c0), v1 = ld_relaxed(c1);  // both loads in flight at once
            return reached(v0, g0) && reached(v1, g1);
          },
          a);
      fence_acquire();
    }
    return block_ok(ok, k);
  } else if constexpr (VV == FLAT_WARP_C) {
    __syncthreads();
    bool ok = true;
    if (threadIdx.x < 32) ok = gpu_level(a, k, N, static_cast<int>(blockIdx.x), true);
    return block_ok(ok, k);
  } else {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    // Failure reaches the peers through a flag the leader writes into their shared memory before
    // its release arrival: nothing is written on the good path.
    int& s_fail = fail_flag();
    const bool leader_block = cluster_block_rank() == 0;
    const int clusters = static_cast<int>(cl_count());
    const int cid = static_cast<int>(cl_id());
    bool ok = true;
    if constexpr (VV == CL_ONLY) {
      cluster_arrive_release();
      cluster_wait_acquire();
      return true;
    } else if constexpr (VV == CL_ARRIVE || VV == CL_ARRIVE_LEADREL) {
      cluster_arrive_release();
      cluster_wait_acquire();
      if (leader_block && threadIdx.x < (a.C == 1 ? 1u : 32u)) ok = gpu_level(a, k, clusters, cid, true);
      if (leader_block && threadIdx.x == 0 && !ok) {
        cg::cluster_group cl = cg::this_cluster();
        for (unsigned r = 1; r < cl.num_blocks(); ++r) *cl.map_shared_rank(&s_fail, r) = 1;
      }
      __syncwarp();  // the .aligned arrive wants the warp converged after the leader's poll
      if (VV == CL_ARRIVE || leader_block) cluster_arrive_release();
      else cluster_arrive_relaxed();
      cluster_wait_acquire();
    } else {
      __syncthreads();
      if (threadIdx.x == 0) {
        if (a.C == 1) red_release(a.words);
        else red_release(a.words + (blockIdx.x % a.C) * 64);
      }
      if (leader_block && threadIdx.x < (a.C == 1 ? 1u : 32u)) ok = gpu_level(a, k, N, 0, false);
      if (leader_block && threadIdx.x == 0 && !ok) {
        cg::cluster_group cl = cg::this_cluster();
        for (unsigned r = 1; r < cl.num_blocks(); ++r) *cl.map_shared_rank(&s_fail, r) = 1;
      }
      __syncwarp();
      if (VV == CL_RELEASE && leader_block) cluster_arrive_release();
      else cluster_arrive_relaxed();
      cluster_wait_acquire();
    }
    return block_ok(ok && s_fail == 0, k);
#else
    return false;
#endif
  }
}

template <int VV>
__global__ void __launch_bounds__(1024) kern(A a, int barriers, int data) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  // s_fail is zeroed before this block's first arrival, so no leader's write can come before it.
  if constexpr (VV >= CL_ARRIVE && VV <= CL_ONLY)
    if (threadIdx.x == 0) fail_flag() = 0;
#endif
  for (int p = 1; p <= barriers + 1; ++p) {
    if (data) {
      const u32* in = (p - 1) % 2 == 0 ? a.buf0 : a.buf1;
      u32* out = p % 2 == 0 ? a.buf0 : a.buf1;
      const unsigned N = gridDim.x, T = blockDim.x, b = blockIdx.x, t = threadIdx.x;
      out[b * T + t] = mix(in[b * T + t], in[((b + 1) % N) * T + t], in[((b + N - 1) % N) * T + (t + 1) % T],
                           static_cast<u32>(p));
    }
    if (p == barriers + 1) break;
    if (!barrier<VV>(a, p)) break;  // every block of a cluster leaves at the same barrier
  }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if constexpr (VV >= CL_ARRIVE && VV <= CL_ONLY) {
    cluster_arrive_relaxed();  // nobody exits while a leader may still write into its shared memory
    cluster_wait_acquire();
  }
#endif
}

struct Dev {
  u32 *words, *abort, *buf0, *buf1;
};

template <int VV>
cudaError_t launch(const A& a, int blocks, int threads, int barriers, int data) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(blocks);
  cfg.blockDim = dim3(threads);
  cudaLaunchAttribute attr[1];
  cfg.attrs = attr;
  cfg.numAttrs = 0;
  if (VV == GRID) {
    attr[0].id = cudaLaunchAttributeCooperative;
    attr[0].val.cooperative = 1;
    cfg.numAttrs = 1;
  } else if (a.cs > 1) {
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = a.cs;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.numAttrs = 1;
  }
  return cudaLaunchKernelEx(&cfg, kern<VV>, a, barriers, data);
}

template <int VV>
int max_blocks(int threads, int cs) {
  if (VV >= CL_ARRIVE && VV <= CL_ONLY) {
    CK(cudaFuncSetAttribute(kern<VV>, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(cs * 64);
    cfg.blockDim = dim3(threads);
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = cs;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    int n = 0;
    if (cudaOccupancyMaxActiveClusters(&n, kern<VV>, &cfg) != cudaSuccess) {
      (void)cudaGetLastError();
      return 0;
    }
    return n * cs;
  }
  int per = 0, sms = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, kern<VV>, threads, 0));
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  return per * sms;
}

static Dev g;
static int g_checks_passed = 0, g_checks_failed = 0;
static const int REPS = 11, K1 = 200, K2 = 1200;

A make_args(int C, int cs) {
  A a;
  a.words = g.words;
  a.abort = g.abort;
  a.budget = 200'000'000ull;
  a.buf0 = g.buf0;
  a.buf1 = g.buf1;
  a.C = C;
  a.cs = cs;
  return a;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <int VV>
bool check(int blocks, int threads, int C, int cs, int phases, std::string& why) {
  A a = make_args(C, cs);
  const auto x0 = [&] {
    std::vector<u32> x(static_cast<size_t>(blocks) * threads);
    for (size_t i = 0; i < x.size(); ++i) x[i] = initial_value(7, static_cast<u32>(i));
    return x;
  }();
  std::vector<u32> cur = x0, nxt(x0.size());
  for (int p = 1; p <= phases; ++p) {
    for (int b = 0; b < blocks; ++b)
      for (int t = 0; t < threads; ++t)
        nxt[static_cast<size_t>(b) * threads + t] =
            mix(cur[static_cast<size_t>(b) * threads + t], cur[static_cast<size_t>((b + 1) % blocks) * threads + t],
                cur[static_cast<size_t>((b + blocks - 1) % blocks) * threads + (t + 1) % threads], static_cast<u32>(p));
    cur.swap(nxt);
  }
  CK(cudaMemcpy(g.buf0, x0.data(), x0.size() * 4, cudaMemcpyHostToDevice));
  CK(cudaMemset(g.buf1, 0, x0.size() * 4));
  CK(cudaMemset(g.words, 0, 64 * 4 * 40));
  CK(cudaMemset(g.abort, 0, 4));
  CK(launch<VV>(a, blocks, threads, phases - 1, 1));
  CK(cudaDeviceSynchronize());
  std::vector<u32> got(x0.size());
  CK(cudaMemcpy(got.data(), phases % 2 == 0 ? g.buf0 : g.buf1, got.size() * 4, cudaMemcpyDeviceToHost));
  u32 ab = 0;
  CK(cudaMemcpy(&ab, g.abort, 4, cudaMemcpyDeviceToHost));
  size_t wrong = 0;
  for (size_t i = 0; i < got.size(); ++i) wrong += got[i] != cur[i];
  why = "wrong " + std::to_string(wrong) + (ab ? ", deadline" : "");
  return wrong == 0 && ab == 0;
}

template <int VV>
double time_ns(int blocks, int threads, int C, int cs, bool& dl) {
  A a = make_args(C, cs);
  cudaEvent_t e0, e1, e2;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  CK(cudaEventCreate(&e2));
  CK(cudaMemset(g.abort, 0, 4));
  CK(cudaMemset(g.words, 0, 64 * 4 * 40));
  CK(launch<VV>(a, blocks, threads, K1, 0));
  std::vector<double> s;
  for (int r = 0; r < REPS; ++r) {
    CK(cudaMemsetAsync(g.words, 0, 64 * 4 * 40));
    CK(cudaEventRecord(e0));
    CK(launch<VV>(a, blocks, threads, K1, 0));
    CK(cudaEventRecord(e1));
    CK(cudaMemsetAsync(g.words, 0, 64 * 4 * 40));
    CK(cudaEventRecord(e2));  // the memset is timed in neither
    CK(launch<VV>(a, blocks, threads, K2, 0));
    cudaEvent_t e3;
    CK(cudaEventCreate(&e3));
    CK(cudaEventRecord(e3));
    CK(cudaEventSynchronize(e3));
    float t1 = 0, t2 = 0;
    CK(cudaEventElapsedTime(&t1, e0, e1));
    CK(cudaEventElapsedTime(&t2, e2, e3));
    s.push_back((t2 - t1) * 1e6 / (K2 - K1));
    CK(cudaEventDestroy(e3));
  }
  u32 ab = 0;
  CK(cudaMemcpy(&ab, g.abort, 4, cudaMemcpyDeviceToHost));
  dl = ab != 0;
  return median(s);
}

template <int VV>
void row(const char* name, const std::vector<int>& sizes, int threads, int C_or_0, int cs, double* grid_ref,
         bool do_check) {
  printf("%-34s", name);
  for (size_t i = 0; i < sizes.size(); ++i) {
    const int n = sizes[i];
    const int C = C_or_0 > 0 ? C_or_0 : std::min(32, std::max(1, (n / std::max(1, cs) + 63) / 64));
    // gather: slots after the release word must fit g.words (2560 words), 9 vectors per lane at most
    const bool no_room = VV >= GATHER_ACQ && (64 + n > 2560 || n > 4 * 32 * 9);
    if (no_room || (cs > 1 && n % cs != 0) || max_blocks<VV>(threads, cs) < n) {
      printf(" %16s", "-");
      continue;
    }
    bool dl = false;
    const double ns = time_ns<VV>(n, threads, C, cs, dl);
    std::string why = "";
    bool ok = true;
    if (do_check) {
      ok = check<VV>(n, threads, C, cs, 33, why);
      (ok ? g_checks_passed : g_checks_failed) += 1;
    }
    char cell[64];
    snprintf(cell, sizeof cell, "%.0f(%.3f)%s%s", ns, grid_ref ? ns / grid_ref[i] : 1.0, dl ? "D" : "",
             ok ? "" : "X");
    printf(" %16s", cell);
    if (!ok) printf("[%s]", why.c_str());
  }
  printf("\n");
}

int main() {
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  printf("device: %s, %d SMs, cc %d.%d\n", prop.name, prop.multiProcessorCount, prop.major, prop.minor);
  const int threads = 256;
  const int sms = prop.multiProcessorCount;
  const std::vector<int> sizes = {sms, 2 * sms, 4 * sms, 8 * sms};
  const size_t vals = static_cast<size_t>(8 * sms) * 1024;
  CK(cudaMalloc(&g.words, 64 * 4 * 40));
  CK(cudaMalloc(&g.abort, 4));
  CK(cudaMalloc(&g.buf0, vals * 4));
  CK(cudaMalloc(&g.buf1, vals * 4));
  printf("max blocks at once: grid.sync %d, flat %d, in clusters of 2: %d, 4: %d, 8: %d, 16: %d\n",
         max_blocks<GRID>(threads, 1), max_blocks<FLAT_RED_RELAXEDPOLL>(threads, 1), max_blocks<CL_ARRIVE>(threads, 2),
         max_blocks<CL_ARRIVE>(threads, 4), max_blocks<CL_ARRIVE>(threads, 8), max_blocks<CL_ARRIVE>(threads, 16));
  printf("ns per barrier, median of %d, (x grid.sync); X = failed the data check, D = deadline\n", REPS);
  printf("%-34s", "variant");
  for (int n : sizes) printf(" %16d", n);
  printf("\n");
  double grid[8];
  {
    printf("%-34s", "grid.sync");
    for (size_t i = 0; i < sizes.size(); ++i) {
      bool dl = false;
      grid[i] = time_ns<GRID>(sizes[i], threads, 1, 1, dl);
      printf(" %16.0f", grid[i]);
    }
    printf("\n");
  }
  // Gather needs one slot per block after the release word's line, in g.words (2560 words).
  row<GATHER_ACQ>("gather st.rel / master ld.acq.v4", sizes, threads, 1, 1, grid, true);
  row<GATHER_RLX>("gather st.rel / ld.rlx.v4+f.acq", sizes, threads, 1, 1, grid, true);
  row<GATHER_FENCE_ST>("gather f.acq_rel+st.rlx / rlx+f", sizes, threads, 1, 1, grid, true);
  row<FLAT_RED_RELAXEDPOLL>("flat red.rel / ld.rlx+f.acq C=1", sizes, threads, 1, 1, grid, true);
  row<FLAT_RED_ACQPOLL>("flat red.rel / ld.acquire C=1", sizes, threads, 1, 1, grid, false);
  row<FLAT_FENCE_RED>("flat f.acq_rel+red.rlx C=1", sizes, threads, 1, 1, grid, false);
  row<FLAT_FENCE_ATOM>("flat f.acq_rel+atomicAdd C=1", sizes, threads, 1, 1, grid, false);
  row<FLAT_NOFENCE>("flat NO FENCES (wrong) C=1", sizes, threads, 1, 1, grid, false);
  row<FLAT_T0_C2>("flat thread0 polls 2 counters", sizes, threads, 2, 1, grid, true);
  for (int C : {2, 4, 8, 16}) {
    char name[64];
    snprintf(name, sizeof name, "flat warp0 C=%d", C);
    row<FLAT_WARP_C>(name, sizes, threads, C, 1, grid, C == 2);
  }
  for (int cs : {2, 4, 8, 16}) {
    char name[64];
    snprintf(name, sizeof name, "cluster barrier alone cs=%d", cs);
    row<CL_ONLY>(name, sizes, threads, 1, cs, grid, false);
    snprintf(name, sizeof name, "cl-arrive cs=%d C=1", cs);
    row<CL_ARRIVE>(name, sizes, threads, 1, cs, grid, true);
    snprintf(name, sizeof name, "cl-arrive-leadrel cs=%d C=1", cs);
    row<CL_ARRIVE_LEADREL>(name, sizes, threads, 1, cs, grid, true);
    for (int C : {1, 2}) {
      snprintf(name, sizeof name, "cl-release cs=%d C=%d", cs, C);
      row<CL_RELEASE>(name, sizes, threads, C, cs, grid, true);
    }
    snprintf(name, sizeof name, "cl-release-norel cs=%d C=1", cs);
    row<CL_RELEASE_NOREL>(name, sizes, threads, 1, cs, grid, false);
  }
  printf("data checks: %d passed, %d failed\n", g_checks_passed, g_checks_failed);
  return g_checks_failed == 0 ? 0 : 1;
}

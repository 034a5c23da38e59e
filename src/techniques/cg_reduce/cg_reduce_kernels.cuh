#pragma once
// The rungs of Fan's reduction ladder (ch. 10) (10.2-10.5) as kernels, as close to the book's code as
// correctness allows (its typos fixed and named in lessons/cg-reduce), plus the vector kernel
// and the grid.sync kernel. Device code only: cg_reduce_kernels.cu launches them. Kernels fill
// device memory and never print.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include "techniques/cg_reduce/cg_reduce.hpp"

namespace cudasync::cg_reduce::kernels {

namespace cg = cooperative_groups;

constexpr unsigned FULL_MASK = 0xffffffffu;

// The book's `extern __shared__ real s_y[];`, for a template: one raw array, viewed as T.
template <typename T>
__device__ T* shared_array() {
  extern __shared__ __align__(16) unsigned char cg_reduce_smem[];
  return reinterpret_cast<T*>(cg_reduce_smem);
}

// The trace part: which block and warp record, and where. Compiled out of the kernels that time.
template <typename T>
struct Tracer {
  T* out = nullptr;
  int block = 0;
  int warp = 0;
};

template <bool kTrace, typename T>
__device__ void record_block(const Tracer<T>& tr, int step, T v) {
  if constexpr (kTrace) {
    if (static_cast<int>(blockIdx.x) == tr.block) tr.out[step * blockDim.x + threadIdx.x] = v;
  }
}

template <bool kTrace, typename T>
__device__ void record_warp(const Tracer<T>& tr, int step, T v) {
  if constexpr (kTrace) {
    if (static_cast<int>(blockIdx.x) == tr.block && static_cast<int>(threadIdx.x / 32) == tr.warp)
      tr.out[step * 32 + threadIdx.x % 32] = v;
  }
}

// ---- rung 1: chapter 9's shared-memory tree, __syncthreads after every step, atomicAdd ----------
template <typename T>
__global__ void reduce_shared(const T* d_x, T* d_y, const int N) {
  const int tid = threadIdx.x;
  const int bid = blockIdx.x;
  const int n = bid * blockDim.x + tid;
  T* s_y = shared_array<T>();
  s_y[tid] = (n < N) ? d_x[n] : T(0);
  __syncthreads();
  for (int offset = blockDim.x >> 1; offset > 0; offset >>= 1) {
    if (tid < offset) s_y[tid] += s_y[tid + offset];
    __syncthreads();
  }
  if (tid == 0) atomicAdd(d_y, s_y[0]);
}

// Rungs 2-4 begin alike: one element per thread in s_y (zero past the end), then the block steps
// s_y[tid] += s_y[tid + offset] for offset = blockDim.x/2 ... 32, __syncthreads() after each.
// With kRecord the traced block records s_y[tid] before the first step and after each.
template <bool kRecord, typename T>
__device__ T* load_and_fold_to_warp(const T* d_x, const int N, const Tracer<T>& tr, int& step) {
  const int tid = threadIdx.x;
  const int n = blockIdx.x * blockDim.x + tid;
  T* s_y = shared_array<T>();
  s_y[tid] = (n < N) ? d_x[n] : T(0);
  __syncthreads();
  record_block<kRecord>(tr, step++, s_y[tid]);
  for (int offset = blockDim.x >> 1; offset >= 32; offset >>= 1) {
    if (tid < offset) s_y[tid] += s_y[tid + offset];
    __syncthreads();
    record_block<kRecord>(tr, step++, s_y[tid]);
  }
  return s_y;
}

// ---- rung 2: Fan 10.2 reduce_syncwarp (the transcription: `offset=blockDim.x>1`, `offset>=1`) --------------
template <typename T, bool kTrace>
__global__ void reduce_syncwarp(const T* d_x, T* d_y, const int N, Tracer<T> tr) {
  const int tid = threadIdx.x;
  int step = 0;
  T* s_y = load_and_fold_to_warp<kTrace>(d_x, N, tr, step);
  for (int offset = 16; offset > 0; offset >>= 1) {
    if (tid < offset) s_y[tid] += s_y[tid + offset];
    __syncwarp();
    record_block<kTrace>(tr, step++, s_y[tid]);
  }
  if (tid == 0) atomicAdd(d_y, s_y[0]);
}

// ---- rung 3: Fan 10.3.2 reduce_shfl, and the same with __shfl_xor_sync -------------------------
template <typename T, bool kXor, bool kTrace>
__global__ void reduce_shfl(const T* d_x, T* d_y, const int N, Tracer<T> tr) {
  const int tid = threadIdx.x;
  int step = 0;
  T y = load_and_fold_to_warp<false>(d_x, N, tr, step)[tid];
  step = 0;
  record_warp<kTrace>(tr, step++, y);
  for (int offset = 16; offset > 0; offset >>= 1) {
    if constexpr (kXor) y += __shfl_xor_sync(FULL_MASK, y, offset);
    else y += __shfl_down_sync(FULL_MASK, y, offset);
    record_warp<kTrace>(tr, step++, y);
  }
  if (tid == 0) atomicAdd(d_y, y);
}

// ---- rung 4: Fan 10.4.2 reduce_cp (the transcription: `g.shfl_down(y.i)`), and cg::reduce ------------------
template <typename T, bool kCgReduce>
__global__ void reduce_tile(const T* d_x, T* d_y, const int N) {
  int step = 0;
  T y = load_and_fold_to_warp<false>(d_x, N, Tracer<T>{}, step)[threadIdx.x];
  cg::thread_block_tile<32> g = cg::tiled_partition<32>(cg::this_thread_block());
  if constexpr (kCgReduce) {
    y = cg::reduce(g, y, cg::plus<T>());
  } else {
    for (int i = g.size() >> 1; i > 0; i >>= 1) y += g.shfl_down(y, i);
  }
  if (threadIdx.x == 0) atomicAdd(d_y, y);
}

// ---- rung 5: Fan 10.5.1 reduce_cp: grid-stride in a register, d_y[bid] instead of atomicAdd ----
// Called twice: <<<grid, block>>> into d_y, then <<<1, 1024>>> over d_y in place (one block reads
// everything before its first __syncthreads and writes d_y[0] after its last, so that is safe).
template <typename T, bool kTrace>
__global__ void reduce_cp(const T* d_x, T* d_y, const int N, Tracer<T> tr) {
  const int tid = threadIdx.x;
  const int bid = blockIdx.x;
  T* s_y = shared_array<T>();
  T y = 0.0;
  const int stride = blockDim.x * gridDim.x;
  for (int n = bid * blockDim.x + tid; n < N; n += stride) y += d_x[n];
  record_warp<kTrace>(tr, 0, y);
  s_y[tid] = y;
  __syncthreads();
  for (int offset = blockDim.x >> 1; offset >= 32; offset >>= 1) {
    if (tid < offset) s_y[tid] += s_y[tid + offset];
    __syncthreads();
  }
  y = s_y[tid];
  int step = 1;
  record_warp<kTrace>(tr, step++, y);
  cg::thread_block_tile<32> g = cg::tiled_partition<32>(cg::this_thread_block());
  for (int i = g.size() >> 1; i > 0; i >>= 1) {
    y += g.shfl_down(y, i);
    record_warp<kTrace>(tr, step++, y);
  }
  if (tid == 0) d_y[bid] = y;
}

// ---- the vector kernel: 16-byte loads, kUnroll of them in flight, warp sums first -------------
template <typename T>
struct Vec;
template <>
struct Vec<float> {
  using type = float4;
  static constexpr int width = 4;
  __device__ static float4 zero() { return make_float4(0.0f, 0.0f, 0.0f, 0.0f); }
  __device__ static void add(float4& a, const float4& r) {
    a.x += r.x;
    a.y += r.y;
    a.z += r.z;
    a.w += r.w;
  }
  __device__ static float combine(const float4& a) { return (a.x + a.y) + (a.z + a.w); }
};
template <>
struct Vec<double> {
  using type = double2;
  static constexpr int width = 2;
  __device__ static double2 zero() { return make_double2(0.0, 0.0); }
  __device__ static void add(double2& a, const double2& r) {
    a.x += r.x;
    a.y += r.y;
  }
  __device__ static double combine(const double2& a) { return a.x + a.y; }
};

// Each warp's sum by shuffles, then warp 0 adds the warp sums: thread 0 returns the block's sum.
template <typename T>
__device__ T block_sum_warp_first(T y, T* s_warp) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  for (int offset = 16; offset > 0; offset >>= 1) y += tile.shfl_down(y, offset);
  if (tile.thread_rank() == 0) s_warp[tile.meta_group_rank()] = y;
  block.sync();
  if (tile.meta_group_rank() == 0) {
    y = tile.thread_rank() < tile.meta_group_size() ? s_warp[tile.thread_rank()] : T(0);
    for (int offset = 16; offset > 0; offset >>= 1) y += tile.shfl_down(y, offset);
  }
  return y;
}

// This thread's sum of vectors t, t + S, ... (S the grid's threads), kUnroll loads in flight.
template <typename T>
__device__ __forceinline__ T vector_thread_sum(const T* __restrict__ d_x, const int N) {
  using V = typename Vec<T>::type;
  constexpr int W = Vec<T>::width;
  const V* __restrict__ xv = reinterpret_cast<const V*>(d_x);  // cudaMalloc: 256-byte aligned
  const int vectors = N / W;
  const int stride = blockDim.x * gridDim.x;
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  V a = Vec<T>::zero();
  int v = t;
  for (; v + (kUnroll - 1) * stride < vectors; v += kUnroll * stride) {
    V r[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) r[u] = xv[v + u * stride];  // all loads issued first
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) Vec<T>::add(a, r[u]);       // then added in order
  }
  for (; v < vectors; v += stride) Vec<T>::add(a, xv[v]);
  T y = Vec<T>::combine(a);
  if (t < N - vectors * W) y += d_x[vectors * W + t];  // the n % W leftover elements
  return y;
}

template <typename T>
__global__ void reduce_vector(const T* __restrict__ d_x, T* __restrict__ d_y, const int N) {
  __shared__ T s_warp[32];
  const T y = block_sum_warp_first(vector_thread_sum(d_x, N), s_warp);
  if (threadIdx.x == 0) d_y[blockIdx.x] = y;
}

// ---- the bench's one-pass candidate: reduce_vector, and the last block adds the partials --------
// Each block writes its partial sum and draws a ticket (atomicInc wraps to 0 after gridDim.x - 1,
// ready for the next call); the fences around the ticket make every partial visible to the block
// that draws the last one (threadfence's lastBlock pattern). That block adds them in a fixed order.
template <typename T>
__global__ void __launch_bounds__(kOnePassBlock) reduce_one_pass(const T* __restrict__ d_x, T* d_partial,
                                                                 unsigned* ticket, T* d_y, const int N) {
  __shared__ T s_warp[32];
  __shared__ bool s_last;
  const T y = block_sum_warp_first(vector_thread_sum(d_x, N), s_warp);
  if (threadIdx.x == 0) {
    d_partial[blockIdx.x] = y;
    __threadfence();  // release: the partial before the ticket
    s_last = atomicInc(ticket, gridDim.x - 1) == gridDim.x - 1;
    __threadfence();  // acquire: the other blocks' partials after their tickets
  }
  __syncthreads();
  if (!s_last) return;
  T z = T(0);
  for (int i = threadIdx.x; i < static_cast<int>(gridDim.x); i += blockDim.x) z += __ldcg(d_partial + i);
  z = block_sum_warp_first(z, s_warp);
  if (threadIdx.x == 0) *d_y = z;
}

// ---- rung 7: one cooperative launch; block sums, grid.sync(), block 0 finishes -----------------
template <typename T>
__device__ T block_sum_cg(T y, T* s_warp) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  const T w = cg::reduce(tile, y, cg::plus<T>());
  if (tile.thread_rank() == 0) s_warp[tile.meta_group_rank()] = w;
  block.sync();
  T total = T(0);
  if (tile.meta_group_rank() == 0) {
    const T mine = tile.thread_rank() < tile.meta_group_size() ? s_warp[tile.thread_rank()] : T(0);
    total = cg::reduce(tile, mine, cg::plus<T>());
  }
  return total;
}

template <typename T>
__global__ void reduce_grid_sync(const T* d_x, T* d_partial, T* d_y, const int N) {
  cg::grid_group grid = cg::this_grid();
  __shared__ T s_warp[32];
  T y = T(0);
  const int stride = blockDim.x * gridDim.x;
  for (int n = blockIdx.x * blockDim.x + threadIdx.x; n < N; n += stride) y += d_x[n];
  y = block_sum_cg(y, s_warp);
  if (threadIdx.x == 0) d_partial[blockIdx.x] = y;
  grid.sync();  // every block's sum is written and visible to every block
  if (blockIdx.x == 0) {
    T z = T(0);
    for (int i = threadIdx.x; i < static_cast<int>(gridDim.x); i += blockDim.x) z += d_partial[i];
    z = block_sum_cg(z, s_warp);
    if (threadIdx.x == 0) *d_y = z;
  }
}

}  // namespace cudasync::cg_reduce::kernels

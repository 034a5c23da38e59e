// The rungs of Fan's reduction ladder (ch. 10, 10.2-10.5) as kernels, as close to the book's code as
// correctness allows (its typos fixed and named in lessons/cg-reduce), plus the vector kernel and the
// grid.sync kernel; and their launchers and CUB's behind the plain entry points of ladder.hpp: one
// upload per input, one call, timing, the book's whole reduce() wrapper, and the traced launches.
// Kernels fill device memory and never print.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cub/device/device_reduce.cuh>
#include <cuda/std/functional>

#include <chrono>
#include <string>

#include "core/cost/stream_read.cuh"
#include "core/cuda/check.hpp"
#include "core/cuda/device_buffer.hpp"
#include "core/cuda/event_timer.hpp"
#include "core/cuda/occupancy.cuh"
#include "core/errors.hpp"
#include "core/words/words.hpp"
#include "techniques/cg_reduce/ladder.hpp"

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

namespace cudasync::cg_reduce {

using cuda::DeviceBuffer;
using namespace kernels;

namespace {

// ---- rung 6: Fan 10.5.2's static buffer: __device__ real static_y[grid_size] -----------------
__device__ float static_y_float[kSeedGrid];
__device__ double static_y_double[kSeedGrid];

template <typename T>
T* static_y_address() {
  void* p = nullptr;
  if constexpr (sizeof(T) == sizeof(float)) CUDA_CHECK(cudaGetSymbolAddress(&p, static_y_float));
  else CUDA_CHECK(cudaGetSymbolAddress(&p, static_y_double));
  return static_cast<T*>(p);
}

template <typename T>
void fill_grids(GpuGrids& g, int block, int device) {
  const auto smem = static_cast<std::size_t>(block) * sizeof(T);
  g.occupancy_grid = cuda::occupancy_of(reduce_cp<T, false>, block, smem, device).max_coresident_blocks();
  g.vector_grid = cuda::occupancy_of(reduce_vector<T>, block, 0, device).max_coresident_blocks();
  g.grid_sync_limit = cuda::occupancy_of(reduce_grid_sync<T>, block, 0, device).max_coresident_blocks();
  g.one_pass_grid = cuda::occupancy_of(reduce_one_pass<T>, kOnePassBlock, 0, device).max_coresident_blocks();
}

}  // namespace

GpuGrids gpu_grids(Dtype dtype, int block, int device) {
  GpuGrids g;
  int coop = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, device));
  g.cooperative_launch = coop != 0;
  if (dtype == Dtype::f32) fill_grids<float>(g, block, device);
  else fill_grids<double>(g, block, device);
  return g;
}

std::size_t gpu_free_bytes() {
  std::size_t free_bytes = 0, total = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total));
  return free_bytes;
}

// What the entry points hold: one input, in its type, on the device.
class GpuInput {
 public:
  virtual ~GpuInput() = default;
  virtual double sum(Kernel k, const Plan& plan) = 0;
  virtual std::vector<double> time_ms(Kernel k, const Plan& plan, int reps, int warmup) = 0;
  virtual std::vector<double> wrapper_us(Kernel k, const Plan& plan, int reps) = 0;
  virtual double cub_reduce_plus() = 0;
  virtual std::vector<double> read_ns(int reps, int warmup) = 0;
};

namespace {

template <typename T>
class GpuReduce final : public GpuInput {
 public:
  GpuReduce(const std::vector<T>& x, int count) : n(static_cast<int>(x.size())) {
    ticket.fill_bytes(0);
    copies.emplace_back(x.size());
    copies[0].upload(x);
    for (int i = 1; i < count; ++i) {
      copies.emplace_back(x.size());
      CUDA_CHECK(cudaMemcpy(copies.back().get(), copies[0].get(), copies[0].bytes(), cudaMemcpyDeviceToDevice));
    }
    CUDA_CHECK(cudaDeviceSynchronize());
  }

  double sum(Kernel k, const Plan& plan) override {
    launch(k, plan, copies[0].get());
    CUDA_CHECK(cudaDeviceSynchronize());
    return read(result_of(k, plan));
  }

  std::vector<double> time_ms(Kernel k, const Plan& plan, int reps, int warmup) override {
    return cuda::time_repeated_ms(
        [&] { launch(k, plan, copies[rotation++ % copies.size()].get()); }, reps, warmup);
  }

  std::vector<double> wrapper_us(Kernel k, const Plan& plan, int reps) override {
    const int B = plan.block;
    const int grid = plan.seed_grid;
    const auto smem = static_cast<std::size_t>(B) * sizeof(T);
    const Tracer<T> none{};
    const auto call = [&](const T* x) {
      T h_y[1] = {0};
      T* d_y = nullptr;
      if (k == Kernel::static_buffer) d_y = static_y_address<T>();  // cudaGetSymbolAddress, every call
      else CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&d_y), sizeof(T) * grid));
      reduce_cp<T, false><<<grid, B, smem>>>(x, d_y, n, none);
      CUDA_CHECK_LAUNCH();
      reduce_cp<T, false><<<1, kSecondPassBlock, kSecondPassBlock * sizeof(T)>>>(d_y, d_y, grid, none);
      CUDA_CHECK_LAUNCH();
      CUDA_CHECK(cudaMemcpy(h_y, d_y, sizeof(T), cudaMemcpyDeviceToHost));
      if (k != Kernel::static_buffer) CUDA_CHECK(cudaFree(d_y));
      return h_y[0];
    };
    for (int i = 0; i < 2; ++i) (void)call(copies[0].get());  // warm-up
    std::vector<double> samples;
    for (int i = 0; i < reps; ++i) {
      const T* x = copies[rotation++ % copies.size()].get();
      const auto t0 = std::chrono::steady_clock::now();
      (void)call(x);
      const auto t1 = std::chrono::steady_clock::now();
      samples.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    }
    return samples;
  }

  double cub_reduce_plus() override {
    const T* x = copies[0].get();
    std::size_t bytes = 0;
    CUDA_CHECK(cub::DeviceReduce::Reduce(nullptr, bytes, x, out.get(), n, ::cuda::std::plus<>{}, T(0)));
    DeviceBuffer<unsigned char> temp(bytes > 0 ? bytes : 1);
    CUDA_CHECK(cub::DeviceReduce::Reduce(temp.get(), bytes, x, out.get(), n, ::cuda::std::plus<>{}, T(0)));
    CUDA_CHECK(cudaDeviceSynchronize());
    return read(out.get());
  }

  // The cost model's "bytes": a plain streaming read of the same input, rotating through the copies
  // as the rungs' timing does, ns per call.
  std::vector<double> read_ns(int reps, int warmup) override {
    const int grid = cost::stream_read_grid();
    const auto bytes = static_cast<long long>(n) * static_cast<long long>(sizeof(T));
    const auto one_read = [&] {
      cost::launch_stream_read(copies[rotation++ % copies.size()].get(), bytes, ticket.get() + 1, grid);
    };
    std::vector<double> ns = cuda::time_repeated_ms(one_read, reps, warmup);
    for (double& v : ns) v *= 1e6;
    return ns;
  }

  Trace<T> trace(const Plan& plan, int block_index, int warp) {
    const int B = plan.block;
    int steps = 1;
    for (int o = B >> 1; o > 0; o >>= 1) ++steps;
    const auto smem = static_cast<std::size_t>(B) * sizeof(T);
    const int blocks = (n + B - 1) / B;
    const T* x = copies[0].get();
    Trace<T> t;
    t.block_index = block_index;
    t.warp = warp;
    t.block = B;

    DeviceBuffer<T> tree(static_cast<std::size_t>(steps * B));
    DeviceBuffer<T> shuffle(kShuffleSteps * kWarpSize);
    CUDA_CHECK(cudaMemset(out.get(), 0, sizeof(T)));
    reduce_syncwarp<T, true><<<blocks, B, smem>>>(x, out.get(), n, Tracer<T>{tree.get(), block_index, warp});
    CUDA_CHECK_LAUNCH();
    reduce_shfl<T, false, true><<<blocks, B, smem>>>(x, out.get(), n, Tracer<T>{shuffle.get(), block_index, warp});
    CUDA_CHECK_LAUNCH();
    if (block_index < plan.seed_grid) {
      DeviceBuffer<T> gs(kGridStrideSteps * kWarpSize);
      reduce_cp<T, true><<<plan.seed_grid, B, smem>>>(x, partials_for(plan.seed_grid), n,
                                                      Tracer<T>{gs.get(), block_index, warp});
      CUDA_CHECK_LAUNCH();
      CUDA_CHECK(cudaDeviceSynchronize());
      t.grid_stride = gs.download();
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    t.shared_tree = tree.download();
    t.shuffle = shuffle.download();
    return t;
  }

 private:
  std::vector<DeviceBuffer<T>> copies;
  int n = 0;
  DeviceBuffer<T> out{1};
  DeviceBuffer<T> partials;
  DeviceBuffer<unsigned char> cub_temp;
  DeviceBuffer<unsigned> ticket{2};  // the one-pass candidate's ticket; [1]: the stream read's sink
  std::size_t cub_temp_bytes = 0;
  std::size_t rotation = 0;

  T* partials_for(int grid) {
    if (partials.size() < static_cast<std::size_t>(grid)) partials = DeviceBuffer<T>(static_cast<std::size_t>(grid));
    return partials.get();
  }

  void prepare_cub(const T* x) {
    if (cub_temp.size() > 0) return;
    CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, cub_temp_bytes, x, out.get(), n));
    cub_temp = DeviceBuffer<unsigned char>(cub_temp_bytes > 0 ? cub_temp_bytes : 1);
  }

  // Launches kernel k on x; the result ends in result_of(k). No synchronization.
  void launch(Kernel k, const Plan& p, const T* x) {
    const int B = p.block;
    const auto smem = static_cast<std::size_t>(B) * sizeof(T);
    const int blocks = (n + B - 1) / B;
    const Tracer<T> none{};
    switch (k) {
      case Kernel::shared_atomic:
      case Kernel::syncwarp_atomic:
      case Kernel::shfl_down_atomic:
      case Kernel::shfl_xor_atomic:
      case Kernel::tile_shfl_down_atomic:
      case Kernel::cg_reduce_atomic:
        CUDA_CHECK(cudaMemsetAsync(out.get(), 0, sizeof(T)));
        if (k == Kernel::shared_atomic) reduce_shared<T><<<blocks, B, smem>>>(x, out.get(), n);
        else if (k == Kernel::syncwarp_atomic) reduce_syncwarp<T, false><<<blocks, B, smem>>>(x, out.get(), n, none);
        else if (k == Kernel::shfl_down_atomic) reduce_shfl<T, false, false><<<blocks, B, smem>>>(x, out.get(), n, none);
        else if (k == Kernel::shfl_xor_atomic) reduce_shfl<T, true, false><<<blocks, B, smem>>>(x, out.get(), n, none);
        else if (k == Kernel::tile_shfl_down_atomic) reduce_tile<T, false><<<blocks, B, smem>>>(x, out.get(), n);
        else reduce_tile<T, true><<<blocks, B, smem>>>(x, out.get(), n);
        CUDA_CHECK_LAUNCH();
        break;
      case Kernel::two_pass_fixed_grid:
      case Kernel::two_pass_occupancy:
      case Kernel::static_buffer: {
        const int grid = k == Kernel::two_pass_occupancy ? p.occupancy_grid : p.seed_grid;
        T* d_y = k == Kernel::static_buffer ? static_y_address<T>() : partials_for(grid);
        reduce_cp<T, false><<<grid, B, smem>>>(x, d_y, n, none);
        CUDA_CHECK_LAUNCH();
        reduce_cp<T, false><<<1, kSecondPassBlock, kSecondPassBlock * sizeof(T)>>>(d_y, d_y, grid, none);
        CUDA_CHECK_LAUNCH();
        break;
      }
      case Kernel::two_pass_vector: {
        T* d_y = partials_for(p.vector_grid);
        reduce_vector<T><<<p.vector_grid, B>>>(x, d_y, n);
        CUDA_CHECK_LAUNCH();
        reduce_cp<T, false><<<1, kSecondPassBlock, kSecondPassBlock * sizeof(T)>>>(d_y, d_y, p.vector_grid, none);
        CUDA_CHECK_LAUNCH();
        break;
      }
      case Kernel::grid_sync: {
        // A grid past the co-residency limit is refused before it runs: give it no buffer to write.
        const bool too_large = p.grid_sync_limit > 0 && p.grid_sync_grid > p.grid_sync_limit;
        T* partial = too_large ? nullptr : partials_for(p.grid_sync_grid);
        T* d_y = out.get();
        int count = n;
        void* args[] = {&x, &partial, &d_y, &count};
        const cudaError_t e =
            cudaLaunchCooperativeKernel(reduce_grid_sync<T>, dim3(p.grid_sync_grid), dim3(B), args, 0, nullptr);
        if (e == cudaErrorCooperativeLaunchTooLarge) {
          (void)cudaGetLastError();  // not sticky: clear it and carry on
          throw WaivedError(words::say("cg-reduce", "gpu.refused",
                                       {{"grid", p.grid_sync_grid},
                                        {"block", B},
                                        {"error", cudaGetErrorString(e)},
                                        {"name", cudaGetErrorName(e)},
                                        {"limit", p.grid_sync_limit}}));
        }
        CUDA_CHECK(e);
        if (too_large) throw Error(ExitCode::check_failed, "internal", "a cooperative launch past the limit ran");
        break;
      }
      case Kernel::cub_sum:
        prepare_cub(x);
        CUDA_CHECK(cub::DeviceReduce::Sum(cub_temp.get(), cub_temp_bytes, x, out.get(), n));
        break;
      case Kernel::one_pass_vector:
        reduce_one_pass<T><<<p.one_pass_grid, kOnePassBlock>>>(x, partials_for(p.one_pass_grid), ticket.get(),
                                                               out.get(), n);
        CUDA_CHECK_LAUNCH();
        break;
    }
  }

  const T* result_of(Kernel k, const Plan& p) {
    switch (k) {
      case Kernel::two_pass_fixed_grid: return partials_for(p.seed_grid);
      case Kernel::two_pass_occupancy: return partials_for(p.occupancy_grid);
      case Kernel::two_pass_vector: return partials_for(p.vector_grid);
      case Kernel::static_buffer: return static_y_address<T>();
      default: return out.get();
    }
  }

  T read(const T* device) {
    T h{};
    CUDA_CHECK(cudaMemcpy(&h, device, sizeof(T), cudaMemcpyDeviceToHost));
    return h;
  }
};

// The input behind `in`, in the type the caller's trace asks for.
template <typename T>
GpuReduce<T>& typed(GpuInput& in) {
  auto* r = dynamic_cast<GpuReduce<T>*>(&in);
  if (!r) throw Error(ExitCode::check_failed, "internal", "a trace of another type than the input's");
  return *r;
}

}  // namespace

std::shared_ptr<GpuInput> gpu_upload(const std::vector<float>& x, int copies) {
  return std::make_shared<GpuReduce<float>>(x, copies);
}
std::shared_ptr<GpuInput> gpu_upload(const std::vector<double>& x, int copies) {
  return std::make_shared<GpuReduce<double>>(x, copies);
}
double gpu_sum(GpuInput& in, Kernel k, const Plan& plan) { return in.sum(k, plan); }
std::vector<double> gpu_time_ms(GpuInput& in, Kernel k, const Plan& plan, int reps, int warmup) {
  return in.time_ms(k, plan, reps, warmup);
}
std::vector<double> gpu_wrapper_us(GpuInput& in, Kernel k, const Plan& plan, int reps) {
  return in.wrapper_us(k, plan, reps);
}
double gpu_cub_reduce_plus(GpuInput& in) { return in.cub_reduce_plus(); }
std::vector<double> gpu_read_ns(GpuInput& in, int reps, int warmup) { return in.read_ns(reps, warmup); }
void gpu_trace(GpuInput& in, const Plan& plan, int block_index, int warp, Trace<float>& out) {
  out = typed<float>(in).trace(plan, block_index, warp);
}
void gpu_trace(GpuInput& in, const Plan& plan, int block_index, int warp, Trace<double>& out) {
  out = typed<double>(in).trace(plan, block_index, warp);
}

}  // namespace cudasync::cg_reduce

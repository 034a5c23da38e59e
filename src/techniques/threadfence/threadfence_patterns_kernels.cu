// The two SO Docs patterns: the lastBlock reduction (with its guards, two of them broken on
// purpose) and the WorkQueue against an a-priori assignment. Kernels fill plain arrays.
#include "core/cuda/check.hpp"
#include "core/cuda/device_buffer.hpp"
#include "techniques/threadfence/threadfence_guard.cuh"
#include "techniques/threadfence/threadfence_gpu.hpp"

namespace cudasync::threadfence {

using cuda::DeviceBuffer;

namespace {

// SO Docs guard 2: the same with a __shared__ flag and __syncthreads().
__device__ bool guard_shared(unsigned* counter) {
  __shared__ unsigned last;
  __threadfence();
  if (threadIdx.x == 0) {
    last = atomicAdd(counter, 1u);
    __threadfence();
  }
  __syncthreads();
  return last == gridDim.x - 1;
}

struct LastBlockArgs {
  const unsigned* in;
  int per_thread;
  unsigned long long* partial;  // [run][block], 0 at the start
  unsigned* counter;            // [run], 0 at the start
  unsigned long long* result;   // [run]
  int* last_block;              // [run], -1 at the start
};

template <int V>
__global__ void last_block_kernel(LastBlockArgs a, int run) {
  unsigned long long* partial = a.partial + static_cast<size_t>(run) * gridDim.x;
  unsigned* counter = a.counter + run;
  const unsigned* in = a.in + static_cast<size_t>(blockIdx.x) * blockDim.x * a.per_thread;
  unsigned long long s = 0;
  for (int k = 0; k < a.per_thread; ++k) s += in[static_cast<size_t>(k) * blockDim.x + threadIdx.x];
  s = warp_sum(s);
  __shared__ unsigned long long warp_sums[32];
  const unsigned warp = threadIdx.x / kWarpSize, lane = threadIdx.x % kWarpSize, warps = blockDim.x / kWarpSize;
  if (lane == 0) warp_sums[warp] = s;
  __syncthreads();
  // computePartial: one warp adds the warp sums and one of its lanes stores the block's partial.
  constexpr bool other = V == static_cast<int>(LastBlockVariant::other_writer);
  if (warp == (other ? warps - 1 : 0u)) {
    const unsigned long long t = warp_sum(lane < warps ? warp_sums[lane] : 0ull);
    const unsigned long long total = __shfl_sync(0xFFFFFFFFu, t, 0);
    if (lane == (other ? kWarpSize - 1u : 0u)) partial[blockIdx.x] = total;
  }
  bool last = false;
  if constexpr (V == static_cast<int>(LastBlockVariant::shared_flag)) last = guard_shared(counter);
  else last = guard_or(counter, V != static_cast<int>(LastBlockVariant::no_fence));
  if (!last) return;
  // merge: the last block adds the partials.
  unsigned long long t = 0;
  for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x) t += partial[b];
  t = warp_sum(t);
  __syncthreads();  // warp_sums is reused
  if (lane == 0) warp_sums[warp] = t;
  __syncthreads();
  if (warp == 0) {
    const unsigned long long total = warp_sum(lane < warps ? warp_sums[lane] : 0ull);
    if (lane == 0) {
      a.result[run] = total;
      a.last_block[run] = static_cast<int>(blockIdx.x);
      *counter = 0;  // ready for the next launch: the SO Docs code never resets its counter
    }
  }
}

using LastBlockKernel = void (*)(LastBlockArgs, int);
LastBlockKernel last_block_kernel_of(LastBlockVariant v) {
  switch (v) {
    case LastBlockVariant::syncthreads_or: return last_block_kernel<0>;
    case LastBlockVariant::shared_flag: return last_block_kernel<1>;
    case LastBlockVariant::no_fence: return last_block_kernel<2>;
    case LastBlockVariant::other_writer: return last_block_kernel<3>;
  }
  return last_block_kernel<0>;
}

// ---- WorkQueue ---------------------------------------------------------------------------------------
__device__ __forceinline__ void work(long long cycles) {
  const long long s = clock64();
  while (clock64() - s < cycles) {  // bounded by the clock: waits for nobody
  }
}

struct QueueArgs {
  const unsigned* cost_units;
  int items;
  long long unit_cycles;
  unsigned* next;               // the queue's head
  int* processed_by;
  unsigned* times_processed;
  unsigned long long* checksum;
  long long* block_cycles;
  int* block_items;
};

// The SO Docs WorkQueue::fetch, corrected: the index is an unsigned counter in global memory (SO
// Docs passes a size_t member by value to atomicAdd), and the item is copied out of shared memory
// and a second barrier keeps thread 0 from overwriting it before every thread has read it.
__device__ int fetch(unsigned* next, int items) {
  __shared__ int item;
  if (threadIdx.x == 0) {
    const unsigned got = atomicAdd(next, 1u);
    item = got < static_cast<unsigned>(items) ? static_cast<int>(got) : -1;
  }
  __syncthreads();
  const int i = item;
  __syncthreads();
  return i;
}

template <bool Dynamic>
__global__ void queue_kernel(QueueArgs a) {
  const long long c0 = clock64();
  int done = 0;
  for (int k = 0;; ++k) {
    int i = -1;
    if constexpr (Dynamic) {
      i = fetch(a.next, a.items);
    } else {
      const long long s = static_cast<long long>(blockIdx.x) + static_cast<long long>(k) * gridDim.x;
      i = s < a.items ? static_cast<int>(s) : -1;
    }
    if (i < 0) break;
    work(static_cast<long long>(a.cost_units[i]) * a.unit_cycles);
    if (threadIdx.x == 0) {
      a.processed_by[i] = static_cast<int>(blockIdx.x);
      atomicAdd(&a.times_processed[i], 1u);
      atomicAdd(a.checksum, static_cast<unsigned long long>(item_checksum(static_cast<std::uint32_t>(i))));
    }
    ++done;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    a.block_cycles[blockIdx.x] = clock64() - c0;
    a.block_items[blockIdx.x] = done;
  }
}

}  // namespace

LastBlockRun gpu_last_block(const LastBlockSpec& spec, LastBlockVariant variant) {
  DeviceBuffer<unsigned> in(spec.input.size());
  in.upload(spec.input);
  const auto runs = static_cast<std::size_t>(spec.runs);
  DeviceBuffer<unsigned long long> partial(runs * static_cast<std::size_t>(spec.blocks)), result(runs);
  DeviceBuffer<unsigned> counter(runs);
  DeviceBuffer<int> last(runs);
  partial.fill_bytes(0);
  counter.fill_bytes(0);
  result.fill_bytes(0xFF);
  last.fill_bytes(0xFF);
  LastBlockArgs a{in.get(), spec.per_thread, partial.get(), counter.get(), result.get(), last.get()};
  const LastBlockKernel k = last_block_kernel_of(variant);
  for (int run = 0; run < spec.runs; ++run) {
    k<<<spec.blocks, spec.threads>>>(a, run);
    CUDA_CHECK_LAUNCH();
  }
  LastBlockRun r;
  const std::vector<unsigned long long> sums = result.download();
  r.result.assign(sums.begin(), sums.end());
  r.counter = counter.download();
  const std::vector<int> lb = last.download();
  r.last_block.assign(lb.begin(), lb.end());
  return r;
}

QueueRun gpu_queue(const QueueSpec& spec, bool dynamic) {
  const auto items = static_cast<std::size_t>(spec.items());
  const auto blocks = static_cast<std::size_t>(spec.blocks);
  DeviceBuffer<unsigned> costs(items), next(1), times(items);
  costs.upload(spec.cost_units);
  next.fill_bytes(0);
  times.fill_bytes(0);
  DeviceBuffer<int> by(items), block_items(blocks);
  by.fill_bytes(0xFF);
  DeviceBuffer<unsigned long long> checksum(1);
  checksum.fill_bytes(0);
  DeviceBuffer<long long> block_cycles(blocks);
  QueueArgs a{costs.get(), spec.items(), spec.unit_cycles, next.get(), by.get(), times.get(),
              checksum.get(), block_cycles.get(), block_items.get()};
  QueueRun r;
  r.ns_per_cycle = gpu_ns_per_cycle();
  if (dynamic) queue_kernel<true><<<spec.blocks, spec.threads>>>(a);
  else queue_kernel<false><<<spec.blocks, spec.threads>>>(a);
  CUDA_CHECK_LAUNCH();
  const std::vector<int> pb = by.download();
  r.processed_by.assign(pb.begin(), pb.end());
  r.times_processed = times.download();
  r.block_cycles = block_cycles.download();
  const std::vector<int> bi = block_items.download();
  r.block_items.assign(bi.begin(), bi.end());
  r.checksum = checksum.download().front();
  return r;
}

}  // namespace cudasync::threadfence

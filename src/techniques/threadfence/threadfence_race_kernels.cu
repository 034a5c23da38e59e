// What breaks when a rule of the SO Docs patterns is ignored: the WorkQueue with no __syncthreads()
// between two fetch() calls, and lastBlock called by only some threads. Kernels fill plain arrays
// (the one that may hang: host-mapped memory, as it goes) and never print. No thread here waits
// for another except at a barrier; the work spins on clock64, bounded.
#include <chrono>
#include <stdexcept>
#include <vector>

#include "core/cuda/check.hpp"
#include "core/cuda/device_buffer.hpp"
#include "core/cuda/mapped_buffer.hpp"
#include "core/watchdog.hpp"
#include "techniques/threadfence/threadfence_gpu.hpp"
#include "techniques/threadfence/threadfence_guard.cuh"

namespace cudasync::threadfence {

using cuda::DeviceBuffer;
using cuda::MappedBuffer;

namespace {

__device__ __forceinline__ int vload(const int* p) { return *static_cast<const volatile int*>(p); }
__device__ __forceinline__ void vstore(int* p, int v) { *static_cast<volatile int*>(p) = v; }

__device__ __forceinline__ void spin_cycles(long long cycles) {
  const long long s = clock64();
  while (clock64() - s < cycles) {  // bounded by the clock: waits for nobody
  }
}

// ---- WorkQueue race ---------------------------------------------------------------------------------
struct RaceArgs {
  const unsigned* cost_units;
  const unsigned* share;  // [item * warps + warp]
  int items, warps, max_turns;
  long long unit_cycles;
  unsigned* next;     // the queue's head
  unsigned* filed;    // [item * threads + thread]
  int* fetched;       // [block * max_turns + turn]
  int* filed_by;      // [(block * max_turns + turn) * warps + warp]
};

// The SO Docs loop: `WorkItem& it = queue.fetch(); if (it.none()) break; process(it);`, where
// process() uses the item again at its end, to file its result. The reference is read with volatile
// loads, so that each read happens where the program makes it (a plain shared load could be kept in
// a register or read again, at the compiler's choice).
template <bool Barrier>
__global__ void race_kernel(RaceArgs a) {
  __shared__ int item;  // the WorkItem fetch() returns a reference to
  const int warp = static_cast<int>(threadIdx.x) / kWarpSize, lane = static_cast<int>(threadIdx.x) % kWarpSize;
  for (int turn = 0;; ++turn) {
    if (threadIdx.x == 0) {  // fetch(): thread 0 takes the next index and stores it for the block
      const unsigned got = atomicAdd(a.next, 1u);
      const int i = got < static_cast<unsigned>(a.items) ? static_cast<int>(got) : kNoItem;
      vstore(&item, i);
      if (turn < a.max_turns) a.fetched[blockIdx.x * a.max_turns + turn] = i;
    }
    __syncthreads();
    const int worked = vload(&item);  // it.none(), and what to work on
    if (worked == kNoItem) break;
    spin_cycles(static_cast<long long>(a.cost_units[worked]) * a.share[worked * a.warps + warp] * a.unit_cycles);
    asm volatile("" ::: "memory");   // the read below stays after the work
    const int filed = vload(&item);  // the reference again: where the result goes
    if (filed >= 0) atomicAdd(&a.filed[filed * static_cast<int>(blockDim.x) + static_cast<int>(threadIdx.x)], 1u);
    if (lane == 0 && turn < a.max_turns) a.filed_by[(blockIdx.x * a.max_turns + turn) * a.warps + warp] = filed;
    if constexpr (Barrier) __syncthreads();  // SO Docs: no two fetch() calls without one between them
  }
}

// ---- lastBlock called by only some threads -----------------------------------------------------------
struct PartialArgs {
  const unsigned* in;  // data_blocks * blockDim.x values
  int data_blocks;
  unsigned long long* partial;  // [block]
  unsigned* counter;
  unsigned long long* result;   // kNeverWritten until the last block writes it
  int* last_block;              // -1 until then
  int* ticket;                  // [block], -1 until its thread 0 draws one
};

// computePartial: every thread adds its value (a block without data adds 0); thread 0 stores it.
__device__ void compute_partial(const PartialArgs& a) {
  __shared__ unsigned long long sums[32];
  const bool data = static_cast<int>(blockIdx.x) < a.data_blocks;
  unsigned long long s = warp_sum(data ? a.in[blockIdx.x * blockDim.x + threadIdx.x] : 0u);
  const unsigned warp = threadIdx.x / kWarpSize, lane = threadIdx.x % kWarpSize;
  if (lane == 0) sums[warp] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned long long t = 0;
    for (unsigned w = 0; w < blockDim.x / kWarpSize; ++w) t += sums[w];
    a.partial[blockIdx.x] = t;
  }
}

// merge, by thread 0 of the block that drew the last ticket.
__device__ void merge(const PartialArgs& a) {
  unsigned long long t = 0;
  for (unsigned b = 0; b < gridDim.x; ++b) t += a.partial[b];
  *static_cast<volatile unsigned long long*>(a.result) = t;
  *static_cast<volatile int*>(a.last_block) = static_cast<int>(blockIdx.x);
}

// The guard with the ticket it drew written out (the counter stays in device memory).
__device__ bool guard_recorded(const PartialArgs& a) {
  __threadfence();
  unsigned last = 0;
  if (threadIdx.x == 0) {
    last = atomicAdd(a.counter, 1u);
    __threadfence();
    *static_cast<volatile int*>(&a.ticket[blockIdx.x]) = static_cast<int>(last);
    __threadfence_system();
  }
  return __syncthreads_or(last == gridDim.x - 1) != 0;
}

template <bool SkipEmpty>
__global__ void partial_kernel(PartialArgs a) {
  if (SkipEmpty && static_cast<int>(blockIdx.x) >= a.data_blocks) return;  // "nothing to do here"
  compute_partial(a);
  if (guard_recorded(a) && threadIdx.x == 0) merge(a);
}

__device__ __forceinline__ void mark(int* stage, PartialStage s) {
  *static_cast<volatile int*>(&stage[blockIdx.x * blockDim.x + threadIdx.x]) = static_cast<int>(s);
  __threadfence_system();
}

// if (threadIdx.x == 0) { if (lastBlock(counter)) merge(); }  __syncthreads();  -- every step marked
__global__ void divergent_kernel(PartialArgs a, int* stage) {
  compute_partial(a);
  if (threadIdx.x == 0) {
    mark(stage, PartialStage::at_guard);
    if (guard_recorded(a)) merge(a);
    mark(stage, PartialStage::past_guard);
  }
  mark(stage, PartialStage::at_barrier);
  __syncthreads();
  mark(stage, PartialStage::done);
}

// Mapped memory every partial kernel writes its outcome to: readable even while a kernel hangs.
struct PartialOut {
  explicit PartialOut(const PartialSpec& s)
      : result(1, 0xff), last(1, 0xff), ticket(static_cast<std::size_t>(s.blocks), 0xff),
        stage(static_cast<std::size_t>(s.blocks * s.threads), 0) {}
  MappedBuffer<unsigned long long> result;
  MappedBuffer<int> last, ticket, stage;

  PartialRun read(bool completed) const {
    PartialRun r;
    r.completed = completed;
    r.result = result.read().front();
    r.last_block = last.read().front();
    for (int t : ticket.read()) r.counter += t >= 0 ? 1u : 0u;
    r.stage = stage.read();
    return r;
  }
};

struct PartialBuffers {
  explicit PartialBuffers(const PartialSpec& s) : in(s.input.size()), partial(static_cast<std::size_t>(s.blocks)), counter(1), out(s) {
    in.upload(s.input);
    partial.fill_bytes(0);
    counter.fill_bytes(0);
  }
  PartialArgs args(const PartialSpec& s) {
    return {in.get(), s.data_blocks, partial.get(), counter.get(), out.result.dev(), out.last.dev(), out.ticket.dev()};
  }
  DeviceBuffer<unsigned> in;
  DeviceBuffer<unsigned long long> partial;
  DeviceBuffer<unsigned> counter;
  PartialOut out;
};

}  // namespace

RaceRun gpu_queue_race(const RaceSpec& spec, RaceVariant variant) {
  const auto items = static_cast<std::size_t>(spec.items());
  const auto turns = static_cast<std::size_t>(spec.blocks * spec.max_turns);
  DeviceBuffer<unsigned> costs(items), share(spec.share.size()), next(1), filed(items * static_cast<std::size_t>(spec.threads));
  costs.upload(spec.cost_units);
  share.upload(spec.share);
  next.fill_bytes(0);
  filed.fill_bytes(0);
  DeviceBuffer<int> fetched(turns), filed_by(turns * static_cast<std::size_t>(spec.warps()));
  fetched.upload(std::vector<int>(turns, kNoTurn));
  filed_by.upload(std::vector<int>(turns * static_cast<std::size_t>(spec.warps()), kNoTurn));
  RaceArgs a{costs.get(), share.get(), spec.items(), spec.warps(), spec.max_turns, spec.unit_cycles,
             next.get(), filed.get(), fetched.get(), filed_by.get()};
  if (variant == RaceVariant::barrier) race_kernel<true><<<spec.blocks, spec.threads>>>(a);
  else race_kernel<false><<<spec.blocks, spec.threads>>>(a);
  CUDA_CHECK_LAUNCH();
  RaceRun r;
  r.filed = filed.download();
  const std::vector<int> f = fetched.download(), fb = filed_by.download();
  r.fetched.assign(f.begin(), f.end());
  r.filed_by.assign(fb.begin(), fb.end());
  return r;
}

PartialRun gpu_last_block_partial(const PartialSpec& spec, PartialVariant variant) {
  if (variant == PartialVariant::thread_zero_only) throw std::logic_error("thread-zero-only runs in a child process only");
  PartialBuffers b(spec);
  if (variant == PartialVariant::skipping_blocks) partial_kernel<true><<<spec.blocks, spec.threads>>>(b.args(spec));
  else partial_kernel<false><<<spec.blocks, spec.threads>>>(b.args(spec));
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaDeviceSynchronize());
  PartialRun r = b.out.read(true);
  r.stage.clear();
  return r;
}

PartialRun gpu_last_block_divergent(const PartialSpec& spec, int watch_ms,
                                    const std::function<void(const PartialRun&)>& on_hang) {
  PartialBuffers b(spec);
  divergent_kernel<<<spec.blocks, spec.threads>>>(b.args(spec), b.out.stage.dev());
  CUDA_CHECK(cudaGetLastError());
  const Watch w = watch([] { return cudaStreamQuery(nullptr) != cudaErrorNotReady; },
                        std::chrono::milliseconds(watch_ms));
  if (!w.done) {
    PartialRun r = b.out.read(false);
    r.watched_ms = w.waited.count();
    on_hang(r);  // ends the process: every CUDA call from here on would wait for the kernel
  }
  CUDA_CHECK(cudaDeviceSynchronize());
  PartialRun r = b.out.read(true);
  r.watched_ms = w.waited.count();
  return r;
}

}  // namespace cudasync::threadfence

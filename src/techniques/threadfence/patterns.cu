// The kernels of the two SO Docs patterns: the lastBlock reduction (with its guards, two of them
// broken on purpose) and the WorkQueue against an a-priori assignment; and what breaks when a rule
// of theirs is ignored: the WorkQueue with no __syncthreads() between two fetch() calls, and
// lastBlock called by only some threads. Kernels fill plain arrays (the one that may hang:
// host-mapped memory, as it goes) and never print. No thread here waits for another except at a
// barrier; the work spins on clock64, bounded.
#include <chrono>
#include <stdexcept>
#include <vector>

#include "core/cuda/check.hpp"
#include "core/cuda/device_buffer.hpp"
#include "core/cuda/mapped_buffer.hpp"
#include "core/watchdog.hpp"
#include "techniques/threadfence/patterns.hpp"

namespace cudasync::threadfence {

using cuda::DeviceBuffer;
using cuda::MappedBuffer;

namespace {

__device__ __forceinline__ unsigned long long warp_sum(unsigned long long v) {
  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xFFFFFFFFu, v, o);
  return v;
}

// SO Docs guard 1, and the acquire half it lacks: a thread 0 that learns it is last fences before its
// block reads the others' partials. `fences` false: the broken variant without any fence. Every
// thread of the block must call it: __syncthreads_or is a barrier.
__device__ __forceinline__ bool guard_or(unsigned* counter, bool fences) {
  if (fences) __threadfence();  // release: this thread's partial before its atomicAdd
  unsigned last = 0;
  if (threadIdx.x == 0) {
    last = atomicAdd(counter, 1u);
    if (fences) __threadfence();  // acquire: the atomicAdd before the reads of the partials
  }
  return __syncthreads_or(last == gridDim.x - 1) != 0;
}

__device__ __forceinline__ int vload(const int* p) { return *static_cast<const volatile int*>(p); }
__device__ __forceinline__ void vstore(int* p, int v) { *static_cast<volatile int*>(p) = v; }

__device__ __forceinline__ void spin_cycles(long long cycles) {
  const long long s = clock64();
  while (clock64() - s < cycles) {  // bounded by the clock: waits for nobody
  }
}

// ---- lastBlock ----------------------------------------------------------------------------------------
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

// last_block_kernel<V> has the guard of LastBlockVariant V: the table is in LastBlockVariant's order.
using LastBlockKernel = void (*)(LastBlockArgs, int);
const LastBlockKernel kLastBlockKernels[kLastBlockVariants] = {last_block_kernel<0>, last_block_kernel<1>,
                                                               last_block_kernel<2>, last_block_kernel<3>};

// ---- WorkQueue ---------------------------------------------------------------------------------------
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
    spin_cycles(static_cast<long long>(a.cost_units[i]) * a.unit_cycles);
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
  const LastBlockKernel k = kLastBlockKernels[static_cast<int>(variant)];
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

// The named-barriers kernels: two groups of warps on their own barriers, the producer/consumer with
// bar.arrive and with cuda::barrier, the bar.red reductions, the early-stamp rounds, the misuse kernel
// (bar.sync with a bad thread count, made safe by rescue warps; only the misuse part's child process
// launches it) and the cost loops. Kernels fill plain arrays and never print; the parts turn them
// into a Report.
//
// The barrier instructions are inline PTX, exactly as the PTX ISA writes them ("bar, barrier"):
//   bar.sync a, b      wait until b threads (whole warps) have arrived at barrier a
//   bar.arrive a, b    count this warp's arrival at barrier a and go on without waiting
//   bar.red.popc.u32 / bar.red.and.pred / bar.red.or.pred   wait, and reduce a predicate
// Every one of them takes a "memory" clobber, so the compiler keeps shared-memory accesses on
// their side of the barrier. Every warp reconverges (__syncwarp) before a bar instruction, so that
// the whole warp executes it together. bar.sync is barrier.sync.aligned, and the PTX ISA states
// .aligned for the whole CTA (every thread executes the same barrier instruction); its own
// producer/consumer example has different warps execute different bar instructions, as these
// kernels do, each warp as a whole.
#include <algorithm>

#include <cuda/barrier>

#include "core/cuda/check.hpp"
#include "core/cuda/deadline.cuh"
#include "core/cuda/device_buffer.hpp"
#include "techniques/named_barriers/barriers.hpp"

namespace cudasync::named_barriers {

using cuda::DeviceBuffer;

namespace {

using cuda::globaltimer_ns;

__device__ __forceinline__ void bar_sync(unsigned id, unsigned count) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(count) : "memory");
}
__device__ __forceinline__ void bar_arrive(unsigned id, unsigned count) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(count) : "memory");
}
__device__ __forceinline__ int bar_red_popc(unsigned id, int predicate) {
  int d;
  asm volatile("{ .reg .pred p; setp.ne.s32 p, %2, 0; bar.red.popc.u32 %0, %1, p; }"
               : "=r"(d) : "r"(id), "r"(predicate) : "memory");
  return d;
}
__device__ __forceinline__ int bar_red_and(unsigned id, int predicate) {
  int d;
  asm volatile("{ .reg .pred p, q; setp.ne.s32 p, %2, 0; bar.red.and.pred q, %1, p; selp.s32 %0, 1, 0, q; }"
               : "=r"(d) : "r"(id), "r"(predicate) : "memory");
  return d;
}
__device__ __forceinline__ int bar_red_or(unsigned id, int predicate) {
  int d;
  asm volatile("{ .reg .pred p, q; setp.ne.s32 p, %2, 0; bar.red.or.pred q, %1, p; selp.s32 %0, 1, 0, q; }"
               : "=r"(d) : "r"(id), "r"(predicate) : "memory");
  return d;
}

// clock64 as a volatile asm, so it stays where it is written relative to the bar instructions.
__device__ __forceinline__ long long stamp() {
  long long t;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
  return t;
}
// Work of a fixed length: spins on the SM clock (bounded by the clock, waits for nobody).
__device__ __forceinline__ void work(long long cycles) {
  const long long s = stamp();
  while (stamp() - s < cycles) {
  }
}
// A stamp taken right after bar.sync is not a release time: the SASS form is
// BAR.SYNC.DEFER_BLOCKING, and the warp goes on issuing instructions that touch no memory (a clock
// read among them) until its next memory access, which waits for the barrier (the PTX ISA
// promises only that no new memory access is made before the barrier completes). So lane 0 first
// reads and writes a word of its own in shared memory, then takes the stamp: a warp issues in
// order, the store needs the load's value, and the load waits for the barrier.
__device__ __forceinline__ long long stamp_after_barrier(volatile int* own_word) {
  *own_word = *own_word + 1;
  return stamp();
}
// The same for a value loaded from global memory: the store needs it, so the stamp comes after it.
__device__ __forceinline__ long long stamp_after_value(volatile int* own_word, int v) {
  *own_word = v;
  return stamp();
}

// Lane 0's four stamps of one producer/consumer round (layout: PcResult, barriers.hpp).
__device__ __forceinline__ void store_stamps(long long* round, long long t0, long long t1, long long t2, long long t3) {
  round[0] = t0;
  round[1] = t1;
  round[2] = t2;
  round[3] = t3;
}
// How the SM clock ran against %globaltimer since (g0 ns, c0 cycles): calib[0] ns, calib[1] cycles.
__device__ __forceinline__ void store_calibration(long long* calib, long long g0, long long c0) {
  calib[0] = static_cast<long long>(globaltimer_ns()) - g0;
  calib[1] = stamp() - c0;
}

struct GroupsArgs {
  int threads0, threads1, id0, id1, phases;
  long long work0, work1;
};

// Two groups of warps, each on its own barrier with its own thread count. Nothing but the start
// (__syncthreads) ties them together. Barrier 0 is not used after it, so --barrier-ids may name 0.
// The proof that group 0 never waits for group 1 is causal, not a race of clocks: group 1 is held
// before its first barrier until group 0 has passed all its phases (a flag in global memory,
// watched with a deadline). If bar.sync on group 0's barrier needed group 1, that would deadlock,
// the watch would give up, and the check would fail; nothing hangs either way.
__global__ void groups_kernel(GroupsArgs a, long long* arrive, long long* leave, int* passed, int* arrivals,
                              long long* calib, int* group0_done, unsigned* hold_gave_up) {
  const int tid = static_cast<int>(threadIdx.x);
  const int warp = tid / kWarpSize, lane = tid % kWarpSize;
  const int g = tid < a.threads0 ? 0 : 1;
  const unsigned id = static_cast<unsigned>(g == 0 ? a.id0 : a.id1);
  const unsigned count = static_cast<unsigned>(g == 0 ? a.threads0 : a.threads1);
  const long long w = g == 0 ? a.work0 : a.work1;
  __shared__ int own[kMaxWarps];  // one word per warp, touched by its lane 0 only
  if (lane == 0) own[warp] = 0;
  __syncthreads();
  long long g0 = 0, c0 = 0;
  if (tid == a.threads0) {  // the first thread of the long group measures the clock against %globaltimer
    g0 = static_cast<long long>(globaltimer_ns());
    c0 = stamp();
  }
  for (int ph = 0; ph < a.phases; ++ph) {
    work(w);
    if (g == 1 && ph == 0 && lane == 0) {
      const volatile int* done = group0_done;
      cuda::SpinDeadline hold{200000000ull, hold_gave_up};  // 200 ms
      (void)cuda::spin_until([&] { return *done >= a.threads0 / kWarpSize; }, hold);
    }
    if (lane == 0) {
      atomicAdd(&arrivals[g * a.phases + ph], 1);
      arrive[warp * a.phases + ph] = stamp();
    }
    __syncwarp();
    bar_sync(id, count);
    if (lane == 0) {
      leave[warp * a.phases + ph] = stamp_after_barrier(&own[warp]);
      passed[warp] += 1;
    }
  }
  if (g == 0 && lane == 0) {
    __threadfence();
    atomicAdd(group0_done, 1);
  }
  if (tid == a.threads0) store_calibration(calib, g0, c0);
}

struct PcArgs {
  int producers, consumers, full, empty, rounds;
};

// The PTX ISA's producer/consumer example ("bar, barrier"), round after round through one shared
// buffer of `producers` slots.
// Two slot arrays, used in turn (round r uses slot[r % 2]): the protocol would be just as correct
// with one, but compute-sanitizer racecheck (CUDA 13.0) then reports the consumers' read of round r
// against the producers' write of round r + 1, an order that barrier `empty` guarantees (PTX ISA:
// bar.arrive performs the arriving thread's earlier accesses before the barrier completes).
__global__ void pc_kernel(PcArgs a, const int* input, int* consumed, long long* stamps, long long* calib) {
  __shared__ int slot[2][kMaxBlockThreads];
  __shared__ int own[kMaxWarps];
  const int tid = static_cast<int>(threadIdx.x);
  const int warp = tid / kWarpSize, lane = tid % kWarpSize;
  const unsigned count = static_cast<unsigned>(a.producers + a.consumers);
  const unsigned full = static_cast<unsigned>(a.full), empty = static_cast<unsigned>(a.empty);
  long long* my = stamps + static_cast<long long>(warp) * a.rounds * kPcStamps;
  if (lane == 0) own[warp] = 0;
  __syncthreads();
  const long long g0 = static_cast<long long>(globaltimer_ns()), c0 = stamp();
  if (tid < a.producers) {
    int v = input[tid];
    for (int r = 0; r < a.rounds; ++r) {
      slot[r & 1][tid] = v;                  // st.shared: the value produced
      const long long t0 = stamp();
      __syncwarp();
      bar_arrive(full, count);               // "it is there": signal, do not wait
      const long long t1 = stamp();
      if (r + 1 < a.rounds) v = input[(r + 1) * a.producers + tid];  // fetch the next one meanwhile
      const long long t2 = lane == 0 ? stamp_after_value(&own[warp], v) : 0;
      __syncwarp();
      bar_sync(empty, count);                // wait until the consumers have read the slots
      if (lane == 0) store_stamps(my + r * kPcStamps, t0, t1, t2, stamp_after_barrier(&own[warp]));
    }
  } else {
    const int c = tid - a.producers;
    for (int r = 0; r < a.rounds; ++r) {
      const long long t0 = stamp();
      __syncwarp();
      bar_sync(full, count);                 // wait until every producer has written
      const long long t1 = lane == 0 ? stamp_after_barrier(&own[warp]) : 0;
      for (int i = c; i < a.producers; i += a.consumers) consumed[r * a.producers + i] = slot[r & 1][i];
      const long long t2 = stamp();
      __syncwarp();
      bar_arrive(empty, count);              // "read": the producers may overwrite
      if (lane == 0) store_stamps(my + r * kPcStamps, t0, t1, t2, t2);
    }
  }
  if (tid == 0) store_calibration(calib, g0, c0);
}

// The same protocol with two cuda::barrier objects in shared memory (mbarrier on 8.0+): an
// arrive returns a token, wait(token) waits for that phase to complete.
__global__ void cuda_barrier_pc_kernel(PcArgs a, const int* input, int* consumed, long long* stamps, long long* calib) {
#if __CUDA_ARCH__ >= 800
  using block_barrier = ::cuda::barrier<::cuda::thread_scope_block>;
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ block_barrier full, empty;
#pragma nv_diag_default static_var_with_dynamic_init
  __shared__ int slot[kMaxBlockThreads];
  __shared__ int own[kMaxWarps];
  const int tid = static_cast<int>(threadIdx.x);
  const int warp = tid / kWarpSize, lane = tid % kWarpSize;
  long long* my = stamps + static_cast<long long>(warp) * a.rounds * kPcStamps;
  if (lane == 0) own[warp] = 0;
  if (tid == 0) {
    init(&full, a.producers + a.consumers);   // expected arrivals per phase: every thread
    init(&empty, a.producers + a.consumers);
  }
  __syncthreads();
  const long long g0 = static_cast<long long>(globaltimer_ns()), c0 = stamp();
  if (tid < a.producers) {
    int v = input[tid];
    for (int r = 0; r < a.rounds; ++r) {
      slot[tid] = v;
      const long long t0 = stamp();
      (void)full.arrive();                           // like bar.arrive: the token is not needed
      block_barrier::arrival_token read = empty.arrive();  // arrive early on "empty" ...
      const long long t1 = stamp();
      if (r + 1 < a.rounds) v = input[(r + 1) * a.producers + tid];
      const long long t2 = lane == 0 ? stamp_after_value(&own[warp], v) : 0;
      empty.wait(std::move(read));                   // ... and wait for that phase only now
      const long long t3 = stamp();
      if (lane == 0) store_stamps(my + r * kPcStamps, t0, t1, t2, t3);
    }
  } else {
    const int c = tid - a.producers;
    for (int r = 0; r < a.rounds; ++r) {
      const long long t0 = stamp();
      block_barrier::arrival_token written = full.arrive();
      full.wait(std::move(written));
      const long long t1 = stamp();
      for (int i = c; i < a.producers; i += a.consumers) consumed[r * a.producers + i] = slot[i];
      const long long t2 = stamp();
      (void)empty.arrive();
      if (lane == 0) store_stamps(my + r * kPcStamps, t0, t1, t2, t2);
    }
  }
  if (tid == 0) store_calibration(calib, g0, c0);
#else
  (void)a; (void)input; (void)consumed; (void)stamps; (void)calib;  // the host waives this part below 8.0
#endif
}

// __syncthreads_count/and/or (barrier 0) beside the inline PTX bar.red on barrier `id`.
__global__ void red_kernel(int id, const int* predicate, int* out) {
  const int tid = static_cast<int>(threadIdx.x);
  const int p = predicate[tid];
  const unsigned b = static_cast<unsigned>(id);
  int r[kRedColumns];
  r[red_count] = __syncthreads_count(p);
  r[red_and] = __syncthreads_and(p);
  r[red_or] = __syncthreads_or(p);
  r[red_ptx_popc] = bar_red_popc(b, p);
  r[red_ptx_and] = bar_red_and(b, p);
  r[red_ptx_or] = bar_red_or(b, p);
  for (int k = 0; k < kRedColumns; ++k) out[tid * kRedColumns + k] = r[k];
}

template <int Variant>
__global__ void cost_kernel(int iterations, long long* ns) {
  const int tid = static_cast<int>(threadIdx.x);
#if __CUDA_ARCH__ >= 800
  using block_barrier = ::cuda::barrier<::cuda::thread_scope_block>;
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ block_barrier bar;
#pragma nv_diag_default static_var_with_dynamic_init
  if (Variant == 3 && tid == 0) init(&bar, static_cast<std::ptrdiff_t>(blockDim.x));
#endif
  __shared__ int own;
  if (tid == 0) own = 0;
  __syncthreads();
  long long t0 = 0;
  for (int i = -8; i < iterations; ++i) {  // 8 rounds to warm up, then the timed ones
    if (i == 0) {
      __syncthreads();
      if (tid == 0) {
        (void)stamp_after_barrier(&own);
        t0 = static_cast<long long>(globaltimer_ns());
      }
    }
    if constexpr (Variant == 0) {
      __syncthreads();
    } else if constexpr (Variant == 1) {
      const unsigned half = blockDim.x / 2;
      bar_sync(threadIdx.x < half ? 1u : 2u, half);
    } else if constexpr (Variant == 2) {
      if (threadIdx.x < blockDim.x / 2) {
        bar_arrive(1u, blockDim.x);
        bar_sync(2u, blockDim.x);
      } else {
        bar_sync(1u, blockDim.x);
        bar_arrive(2u, blockDim.x);
      }
    } else {
#if __CUDA_ARCH__ >= 800
      bar.arrive_and_wait();
#endif
    }
  }
  __syncthreads();
  if (tid == 0) {
    (void)stamp_after_barrier(&own);
    *ns = static_cast<long long>(globaltimer_ns()) - t0;
  }
}

// A device buffer of n elements, every byte set to `byte`.
template <class T>
DeviceBuffer<T> filled(std::size_t n, int byte) {
  DeviceBuffer<T> b(n);
  b.fill_bytes(byte);
  return b;
}

// The kernel launched just before, to its end.
void finish_launch() {
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaDeviceSynchronize());
}

double ns_per_cycle(const long long calib[2]) {
  return calib[1] > 0 ? static_cast<double>(calib[0]) / static_cast<double>(calib[1]) : 0.0;
}

PcResult run_pc(const PcSpec& spec, bool cuda_barrier) {
  const int warps = spec.block_threads() / kWarpSize;
  DeviceBuffer<int> input(spec.input.size());
  auto consumed = filled<int>(spec.input.size(), 0xAB);
  auto stamps = filled<long long>(static_cast<std::size_t>(warps * spec.rounds * kPcStamps), 0);
  auto calib = filled<long long>(2, 0);
  input.upload(spec.input);
  const PcArgs a{spec.producers, spec.consumers, spec.ids[0], spec.ids[1], spec.rounds};
  const auto kernel = cuda_barrier ? cuda_barrier_pc_kernel : pc_kernel;
  kernel<<<1, spec.block_threads()>>>(a, input.get(), consumed.get(), stamps.get(), calib.get());
  finish_launch();
  PcResult r;
  r.consumed = consumed.download();
  r.stamps = stamps.download();
  const auto c = calib.download();
  r.ns_per_cycle = ns_per_cycle(c.data());
  return r;
}

// ---- early-stamp: the last warp works before each arrival, the others arrive at once and take two
// stamps after the barrier: one at once (nothing but the clock read after bar.sync), one behind a
// shared-memory load and store of their own word, which the PTX ISA lets happen only once the
// barrier has completed.
template <bool Named>
__global__ void early_stamp_kernel(int rounds, long long late_cycles, unsigned id, long long* arrive,
                                   long long* naive, long long* guarded, long long* calib) {
  __shared__ int own[kMaxWarps];
  const int tid = static_cast<int>(threadIdx.x);
  const int warp = tid / kWarpSize, lane = tid % kWarpSize, warps = static_cast<int>(blockDim.x) / kWarpSize;
  if (lane == 0) own[warp] = 0;
  __syncthreads();
  const long long g0 = static_cast<long long>(globaltimer_ns()), c0 = stamp();
  for (int r = 0; r < rounds; ++r) {
    if (warp == warps - 1) work(late_cycles);
    const long long a = stamp();
    __syncwarp();
    if constexpr (Named) {
      bar_sync(id, blockDim.x);
    } else {
      __syncthreads();
    }
    const long long n = stamp();  // the naive stamp: the very next instruction
    if (lane == 0) {
      const long long g = stamp_after_barrier(&own[warp]);
      const int k = r * warps + warp;
      arrive[k] = a;
      naive[k] = n;
      guarded[k] = g;
    }
  }
  if (tid == 0) store_calibration(calib, g0, c0);
}

// ---- misuse ---------------------------------------------------------------------------------------
struct MisuseArgs {
  int count, waiting_warps, rescue_warps;
  unsigned id;
  long long stagger_ns, settle_ns;
};

// Misuse, made safe: `waiting_warps` warps execute bar.sync id, count with a bad count; the
// rescue warps (never waiting on `id` themselves) release warps the bad count would keep forever
// by adding bar.arrive arrivals, one warp at a time, each only after the waiters have been inside
// the barrier for settle_ns. Every spin here has a deadline.
__global__ void misuse_kernel(MisuseArgs a, long long* arrive_ns, long long* leave_ns, long long* rescue_ns,
                              int* rescues, unsigned* stuck_seen, unsigned* gave_up) {
  __shared__ unsigned long long t0;
  __shared__ int passed, turn;
  __shared__ int own[kMaxWarps];
  const int tid = static_cast<int>(threadIdx.x);
  const int warp = tid / kWarpSize, lane = tid % kWarpSize;
  volatile int* vpassed = &passed;
  volatile int* vturn = &turn;
  if (lane == 0) own[warp] = 0;
  if (tid == 0) {
    t0 = globaltimer_ns();
    passed = 0;
    turn = 0;
  }
  __syncthreads();
  const unsigned count = static_cast<unsigned>(a.count);
  if (warp < a.waiting_warps) {
    const unsigned long long at = t0 + static_cast<unsigned long long>(a.stagger_ns) * static_cast<unsigned>(warp);
    while (globaltimer_ns() < at) {  // bounded by the clock: warp w arrives w * stagger after warp 0
    }
    if (lane == 0) arrive_ns[warp] = static_cast<long long>(globaltimer_ns() - t0);
    __syncwarp();
    bar_sync(a.id, count);
    if (lane == 0) {
      (void)stamp_after_barrier(&own[warp]);  // the barrier has completed when this returns
      leave_ns[warp] = static_cast<long long>(globaltimer_ns() - t0);
      __threadfence_block();
      atomicAdd(&passed, 1);
    }
    return;
  }
  const int r = warp - a.waiting_warps;
  int act = 0;  // 1: arrive now
  if (lane == 0) {
    const unsigned long long first_settle =
        static_cast<unsigned long long>(a.settle_ns + a.stagger_ns * a.waiting_warps);
    cuda::SpinDeadline my_turn{first_settle * static_cast<unsigned long long>(a.rescue_warps + 2), gave_up};
    if (cuda::spin_until([&] { return *vturn == r || *vturn < 0; }, my_turn) && *vturn == r) {
      cuda::SpinDeadline settle{r == 0 ? first_settle : static_cast<unsigned long long>(a.settle_ns), stuck_seen};
      if (cuda::spin_until([&] { return *vpassed == a.waiting_warps; }, settle)) *vturn = -1;  // all out: done
      else act = 1;
    }
  }
  act = __shfl_sync(0xffffffffu, act, 0);
  if (!act) return;
  bar_arrive(a.id, count);
  if (lane == 0) {
    rescue_ns[r] = static_cast<long long>(globaltimer_ns() - t0);
    atomicAdd(rescues, 1);
    __threadfence_block();
    *vturn = r + 1;
  }
}

}  // namespace

GroupsTrace gpu_groups(const GroupsSpec& spec) {
  const int warps = spec.block_threads() / kWarpSize;
  const auto stamps = static_cast<std::size_t>(warps * spec.phases);
  auto arrive = filled<long long>(stamps, 0), leave = filled<long long>(stamps, 0), calib = filled<long long>(2, 0);
  auto passed = filled<int>(static_cast<std::size_t>(warps), 0);
  auto arrivals = filled<int>(static_cast<std::size_t>(2 * spec.phases), 0), group0_done = filled<int>(1, 0);
  auto hold_gave_up = filled<unsigned>(1, 0);
  const GroupsArgs a{spec.threads[0], spec.threads[1], spec.ids[0], spec.ids[1], spec.phases, spec.work_cycles[0],
                     spec.work_cycles[1]};
  groups_kernel<<<1, spec.block_threads()>>>(a, arrive.get(), leave.get(), passed.get(), arrivals.get(), calib.get(),
                                             group0_done.get(), hold_gave_up.get());
  finish_launch();
  GroupsTrace t;
  t.arrive = arrive.download();
  t.leave = leave.download();
  t.passed = passed.download();
  t.arrivals = arrivals.download();
  const auto c = calib.download();
  t.ns_per_cycle = ns_per_cycle(c.data());
  unsigned gave_up = 0;
  hold_gave_up.download(&gave_up, 1);
  t.hold_gave_up = gave_up != 0;
  return t;
}

PcResult gpu_producer_consumer(const PcSpec& spec) { return run_pc(spec, false); }
PcResult gpu_producer_consumer_cuda_barrier(const PcSpec& spec) { return run_pc(spec, true); }

RedResult gpu_red(const RedSpec& spec) {
  DeviceBuffer<int> pred(spec.predicate.size());
  auto out = filled<int>(static_cast<std::size_t>(spec.threads * kRedColumns), 0xAB);
  pred.upload(spec.predicate);
  red_kernel<<<1, spec.threads>>>(spec.id, pred.get(), out.get());
  finish_launch();
  return {out.download()};
}

double gpu_ns_per_barrier(CostVariant variant, int block_threads, int iterations) {
  // cost_kernel<V> is the loop of CostVariant V: the table is in CostVariant's order.
  using CostKernel = void (*)(int, long long*);
  const CostKernel kernels[kCostVariants] = {cost_kernel<0>, cost_kernel<1>, cost_kernel<2>, cost_kernel<3>};
  auto ns = filled<long long>(1, 0);
  kernels[static_cast<int>(variant)]<<<1, block_threads>>>(iterations, ns.get());
  finish_launch();
  long long v = 0;
  ns.download(&v, 1);
  return static_cast<double>(v) / iterations;
}

StampResult gpu_early_stamp(const StampSpec& spec, StampBarrier barrier) {
  const auto n = static_cast<std::size_t>(spec.rounds * spec.warps);
  DeviceBuffer<long long> arrive(n), naive(n), guarded(n);
  auto calib = filled<long long>(2, 0);
  const auto kernel = barrier == StampBarrier::named ? early_stamp_kernel<true> : early_stamp_kernel<false>;
  kernel<<<1, spec.block_threads()>>>(spec.rounds, spec.late_cycles, static_cast<unsigned>(spec.id), arrive.get(),
                                      naive.get(), guarded.get(), calib.get());
  finish_launch();
  StampResult r;
  r.arrive = arrive.download();
  r.naive = naive.download();
  r.guarded = guarded.download();
  const auto c = calib.download();
  r.ns_per_cycle = ns_per_cycle(c.data());
  return r;
}

MisuseObservation gpu_misuse(const MisuseCase& c, int id, const MisuseTiming& timing) {
  const int waiting = c.waiting_warps(), rescue = c.rescue_warps();
  // Times start at -1: not recorded.
  const auto warps = static_cast<std::size_t>(waiting);
  auto arrive = filled<long long>(warps, 0xff), leave = filled<long long>(warps, 0xff);
  auto rescue_at = filled<long long>(static_cast<std::size_t>(rescue), 0xff);
  auto rescues = filled<int>(1, 0);
  auto stuck_seen = filled<unsigned>(1, 0), gave_up = filled<unsigned>(1, 0);
  const MisuseArgs a{c.count, waiting, rescue, static_cast<unsigned>(id), timing.stagger_ns, timing.settle_ns};
  misuse_kernel<<<1, (waiting + rescue) * kWarpSize>>>(a, arrive.get(), leave.get(), rescue_at.get(), rescues.get(),
                                                        stuck_seen.get(), gave_up.get());
  finish_launch();
  MisuseObservation o;
  o.c = c;
  o.arrive_ns = arrive.download();
  o.leave_ns = leave.download();
  int n = 0;
  rescues.download(&n, 1);
  const auto at = rescue_at.download();
  o.rescue_ns.assign(at.begin(), at.begin() + std::min<std::ptrdiff_t>(n, static_cast<std::ptrdiff_t>(at.size())));
  return o;
}

}  // namespace cudasync::named_barriers

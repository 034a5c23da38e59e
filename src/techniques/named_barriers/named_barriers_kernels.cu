// Kernels fill plain arrays and never print; the parts turn them into a Report. The device
// helpers (inline PTX bar.*, clock stamps) are in named_barriers_device.cuh.
#include <cuda/barrier>

#include "core/cuda/check.hpp"
#include "core/cuda/device_buffer.hpp"
#include "techniques/named_barriers/named_barriers_device.cuh"
#include "techniques/named_barriers/named_barriers_gpu.hpp"

namespace cudasync::named_barriers {

using cuda::DeviceBuffer;

namespace {

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

double ns_per_cycle(const long long calib[2]) {
  return calib[1] > 0 ? static_cast<double>(calib[0]) / static_cast<double>(calib[1]) : 0.0;
}

PcResult run_pc(const PcSpec& spec, bool cuda_barrier) {
  const int warps = spec.block_threads() / kWarpSize;
  DeviceBuffer<int> input(spec.input.size()), consumed(spec.input.size());
  DeviceBuffer<long long> stamps(static_cast<std::size_t>(warps * spec.rounds * kPcStamps)), calib(2);
  input.upload(spec.input);
  consumed.fill_bytes(0xAB);
  stamps.fill_bytes(0);
  calib.fill_bytes(0);
  const PcArgs a{spec.producers, spec.consumers, spec.ids[0], spec.ids[1], spec.rounds};
  if (cuda_barrier)
    cuda_barrier_pc_kernel<<<1, spec.block_threads()>>>(a, input.get(), consumed.get(), stamps.get(), calib.get());
  else
    pc_kernel<<<1, spec.block_threads()>>>(a, input.get(), consumed.get(), stamps.get(), calib.get());
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaDeviceSynchronize());
  PcResult r;
  r.consumed = consumed.download();
  r.stamps = stamps.download();
  const auto c = calib.download();
  r.ns_per_cycle = ns_per_cycle(c.data());
  return r;
}

}  // namespace

GroupsTrace gpu_groups(const GroupsSpec& spec) {
  const int warps = spec.block_threads() / kWarpSize;
  DeviceBuffer<long long> arrive(static_cast<std::size_t>(warps * spec.phases)), leave(arrive.size()), calib(2);
  DeviceBuffer<int> passed(static_cast<std::size_t>(warps)), arrivals(static_cast<std::size_t>(2 * spec.phases));
  DeviceBuffer<int> group0_done(1);
  DeviceBuffer<unsigned> hold_gave_up(1);
  group0_done.fill_bytes(0);
  hold_gave_up.fill_bytes(0);
  arrive.fill_bytes(0);
  leave.fill_bytes(0);
  calib.fill_bytes(0);
  passed.fill_bytes(0);
  arrivals.fill_bytes(0);
  const GroupsArgs a{spec.threads[0], spec.threads[1], spec.ids[0], spec.ids[1], spec.phases, spec.work_cycles[0],
                     spec.work_cycles[1]};
  groups_kernel<<<1, spec.block_threads()>>>(a, arrive.get(), leave.get(), passed.get(), arrivals.get(), calib.get(),
                                             group0_done.get(), hold_gave_up.get());
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaDeviceSynchronize());
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
  DeviceBuffer<int> pred(spec.predicate.size()), out(static_cast<std::size_t>(spec.threads * kRedColumns));
  pred.upload(spec.predicate);
  out.fill_bytes(0xAB);
  red_kernel<<<1, spec.threads>>>(spec.id, pred.get(), out.get());
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaDeviceSynchronize());
  return {out.download()};
}

double gpu_ns_per_barrier(CostVariant variant, int block_threads, int iterations) {
  DeviceBuffer<long long> ns(1);
  ns.fill_bytes(0);
  switch (variant) {
    case CostVariant::syncthreads: cost_kernel<0><<<1, block_threads>>>(iterations, ns.get()); break;
    case CostVariant::named_halves: cost_kernel<1><<<1, block_threads>>>(iterations, ns.get()); break;
    case CostVariant::arrive_sync_pair: cost_kernel<2><<<1, block_threads>>>(iterations, ns.get()); break;
    case CostVariant::cuda_barrier: cost_kernel<3><<<1, block_threads>>>(iterations, ns.get()); break;
  }
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaDeviceSynchronize());
  long long v = 0;
  ns.download(&v, 1);
  return static_cast<double>(v) / iterations;
}

}  // namespace cudasync::named_barriers

// The kernels of the parts whose waiters are lanes or single-thread blocks: warp-spinlock (the CAS
// lock in one warp, and the cycle of flags between its lanes) and lock-order (two blocks, two
// locks, opposite orders; then one order). Every wait goes through spin_until() with a deadline.
#include "techniques/deadlock_demo/kernels.cuh"

namespace cudasync::deadlock_demo {

using cuda::AbsoluteDeadline;
using cuda::grid_start_ns;
using cuda::SpinDeadline;
using cuda::spin_until;

namespace {

// ---- warp-spinlock ------------------------------------------------------------------------------
__global__ void warp_spinlock_kernel(int iters, unsigned long long budget_ns, unsigned long long* grid_start,
                                     int* lock, int* counter, unsigned* timed_out, Record* rec) {
  const int lane = static_cast<int>(threadIdx.x);
  const unsigned long long t0 = grid_start_ns(grid_start);
  Record r = started(t0);
  r.on = 0;
  bool ok = true;
  int seen = 0;
  for (int i = 0; i < iters && ok; ++i) {
    // The lock word names its holder (lane + 1), so a lane that gives up can say who held it.
    ok = spin_until(
        [&] {
          seen = atomicCAS(lock, 0, lane + 1);
          return seen == 0;
        },
        SpinDeadline{budget_ns, timed_out});
    if (!ok) break;
    __threadfence();
    vstore(counter, vload(counter) + 1);
    __threadfence();
    atomicExch(lock, 0);
  }
  r.seen = seen;
  r.state = static_cast<int>(ok ? State::finished : State::gave_up);
  r.end_ns = since(t0);
  rec[lane] = r;
}

__global__ void lane_ring_kernel(unsigned long long budget_ns, unsigned long long* grid_start, int* flags,
                                 unsigned* timed_out, Record* rec) {
  const int lane = static_cast<int>(threadIdx.x);
  const int next = (lane + 1) % static_cast<int>(blockDim.x);
  const unsigned long long t0 = grid_start_ns(grid_start);
  Record r = started(t0);
  r.on = next;
  int seen = 0;
  const bool ok = spin_until(
      [&] {
        seen = vload(&flags[next]);
        return seen != 0;
      },
      AbsoluteDeadline{t0 + budget_ns, timed_out});
  if (ok) vstore(&flags[lane], 1);
  r.seen = seen;
  r.state = static_cast<int>(ok ? State::finished : State::gave_up);
  r.end_ns = since(t0);
  rec[lane] = r;
}

// ---- lock-order -----------------------------------------------------------------------------------
struct LockOrderArgs {
  unsigned long long budget_ns;
  unsigned long long* grid_start;
  int* locks;      // A = locks[0], B = locks[1]; a held lock holds its block's index + 1
  int* holding;    // per block: it holds its first lock
  int* gave_up;    // per block: it gave up on its second
  int* handshake;  // per block: it saw the other holding its first lock
  long long* counts;
  unsigned* timed_out;
  Record* rec;
};

__global__ void lock_order_kernel(LockOrderArgs a) {
  const int b = static_cast<int>(blockIdx.x), other = 1 - b;
  const int first = b, second = other;  // block 0: A then B; block 1: B then A
  const unsigned long long t0 = grid_start_ns(a.grid_start);
  const AbsoluteDeadline d{t0 + a.budget_ns, a.timed_out};
  Record r = started(t0);
  int seen = 0;
  const auto take = [&](int lock) {
    return spin_until(
        [&] {
          seen = atomicCAS(&a.locks[lock], 0, b + 1);
          return seen == 0;
        },
        d);
  };
  if (!take(first)) {  // free at the start: cannot happen unless the other block broke the protocol
    r.state = static_cast<int>(State::gave_up);
    r.on = first;
    r.seen = seen;
    r.end_ns = since(t0);
    a.rec[b] = r;
    return;
  }
  __threadfence();
  vstore(&a.holding[b], 1);
  // The window made certain: try the second lock only once the other block holds its first.
  if (spin_until([&] { return vload(&a.holding[other]) != 0; }, d)) a.handshake[b] = 1;
  if (take(second)) {
    __threadfence();
    vstore(&a.counts[0], vload(&a.counts[0]) + 1);
    __threadfence();
    atomicExch(&a.locks[second], 0);
    r.state = static_cast<int>(State::finished);
  } else {
    r.state = static_cast<int>(State::gave_up);
    r.on = second;
    r.seen = seen;
    // Keep the first lock until the other block has given up too: otherwise it could take it in the
    // moment between, and the run would end differently from one time to the next.
    vstore(&a.gave_up[b], 1);
    (void)spin_until([&] { return vload(&a.gave_up[other]) != 0; }, SpinDeadline{a.budget_ns, a.timed_out});
  }
  __threadfence();
  atomicExch(&a.locks[first], 0);
  r.end_ns = since(t0);
  a.rec[b] = r;
}

__global__ void lock_order_fixed_kernel(int iters, unsigned long long budget_ns, int* locks, long long* counts,
                                        unsigned* timed_out, Record* rec) {
  const int b = static_cast<int>(blockIdx.x);
  const SpinDeadline d{budget_ns, timed_out};
  Record r;
  r.start_ns = 0;
  int seen = 0;
  bool ok = true;
  const auto take = [&](int lock) {
    return spin_until(
        [&] {
          seen = atomicCAS(&locks[lock], 0, b + 1);
          return seen == 0;
        },
        d);
  };
  for (int i = 0; i < iters && ok; ++i) {
    if (!take(0)) {
      ok = false;
      r.on = 0;
      break;
    }
    if (!take(1)) {
      ok = false;
      r.on = 1;
      atomicExch(&locks[0], 0);
      break;
    }
    __threadfence();
    vstore(&counts[0], vload(&counts[0]) + 1);  // two counters, each guarded by both locks
    vstore(&counts[1], vload(&counts[1]) + 1);
    __threadfence();
    atomicExch(&locks[1], 0);
    atomicExch(&locks[0], 0);
  }
  r.seen = seen;
  r.state = static_cast<int>(ok ? State::finished : State::gave_up);
  rec[b] = r;
}

}  // namespace

LaneRun gpu_warp_spinlock(int iters, unsigned long long deadline_ns) {
  LaneRun run;
  run.iters = iters;
  run.expected = static_cast<long long>(kWarpSize) * iters;
  auto grid_start = zeroed<unsigned long long>(1);
  auto lock = zeroed<int>(1), counter = zeroed<int>(1);
  auto timed_out = zeroed<unsigned>(1);
  auto rec = fresh_records(kWarpSize);
  run.ms = timed_launch([&] {
    warp_spinlock_kernel<<<1, kWarpSize>>>(iters, deadline_ns, grid_start.get(), lock.get(), counter.get(),
                                           timed_out.get(), rec.get());
  });
  run.records = rec.download();
  int count = 0;
  counter.download(&count, 1);
  run.count = count;
  run.timed_out = read_flag(timed_out);
  return run;
}

LaneRun gpu_lane_ring(unsigned long long deadline_ns) {
  LaneRun run;
  run.iters = 1;
  run.expected = kWarpSize;
  auto grid_start = zeroed<unsigned long long>(1);
  auto flags = zeroed<int>(kWarpSize);
  auto timed_out = zeroed<unsigned>(1);
  auto rec = fresh_records(kWarpSize);
  run.ms = timed_launch(
      [&] { lane_ring_kernel<<<1, kWarpSize>>>(deadline_ns, grid_start.get(), flags.get(), timed_out.get(), rec.get()); });
  run.records = rec.download();
  for (int f : flags.download()) run.count += f;
  run.timed_out = read_flag(timed_out);
  return run;
}

LockOrderRun gpu_lock_order(unsigned long long deadline_ns, int fix_iters) {
  LockOrderRun run;
  {
    auto grid_start = zeroed<unsigned long long>(1);
    auto locks = zeroed<int>(2), holding = zeroed<int>(2), gave = zeroed<int>(2), handshake = zeroed<int>(2);
    auto counts = zeroed<long long>(2);
    auto timed_out = zeroed<unsigned>(1);
    auto rec = fresh_records(2);
    const LockOrderArgs a{deadline_ns, grid_start.get(), locks.get(),     holding.get(), gave.get(),
                          handshake.get(), counts.get(), timed_out.get(), rec.get()};
    run.ms = timed_launch([&] { lock_order_kernel<<<2, 1>>>(a); });
    run.records = rec.download();
    const auto hs = handshake.download();
    run.handshake = hs[0] == 1 && hs[1] == 1;
    run.timed_out = read_flag(timed_out);
  }
  run.iters = fix_iters;
  run.expected = 2LL * fix_iters;
  auto locks = zeroed<int>(2);
  auto counts = zeroed<long long>(2);
  auto timed_out = zeroed<unsigned>(1);
  auto rec = fresh_records(2);
  (void)timed_launch([&] {
    lock_order_fixed_kernel<<<2, 1>>>(fix_iters, deadline_ns, locks.get(), counts.get(), timed_out.get(), rec.get());
  });
  const auto c = counts.download();
  run.count_a = c[0];
  run.count_b = c[1];
  return run;
}

}  // namespace cudasync::deadlock_demo

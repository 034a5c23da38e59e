// deadlock-demo's kernels: each scenario's deadlock and its fix. Kernels fill plain records and never
// print; deadlock_demo.cpp turns them into a Report.
//
// Every wait goes through spin_until() (core/cuda/deadline.cuh). The grid scenarios share one end
// time: the first block to start publishes its %globaltimer, every block waits at most until that
// time + the deadline, and a block that starts after it returns at once, recording that it came
// late. So a grid with more blocks than the GPU holds ends one deadline after it started, not one
// per wave. In every block of a grid scenario thread 0 does the work while the other threads wait
// at __syncthreads(): the block keeps all its warps, and so its slot, while thread 0 spins.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>

#include "core/cuda/check.hpp"
#include "core/cuda/deadline.cuh"
#include "core/cuda/device_buffer.hpp"
#include "core/cuda/event_timer.hpp"
#include "core/cuda/occupancy.cuh"
#include "techniques/deadlock_demo/deadlock_demo_gpu.hpp"

namespace cudasync::deadlock_demo {

using cuda::AbsoluteDeadline;
using cuda::DeviceBuffer;
using cuda::globaltimer_ns;
using cuda::grid_start_ns;
using cuda::past;
using cuda::SpinDeadline;
using cuda::spin_until;

namespace {

__device__ __forceinline__ long long since(unsigned long long t0) {
  return static_cast<long long>(globaltimer_ns() - t0);
}

template <typename T>
__device__ __forceinline__ T vload(const T* p) {
  return *static_cast<const volatile T*>(p);
}
template <typename T>
__device__ __forceinline__ void vstore(T* p, T v) {
  *static_cast<volatile T*>(p) = v;
}

// ---- grid-oversubscribed: a counter barrier -------------------------------------------------------
struct BarrierArgs {
  int n;
  unsigned long long budget_ns;
  unsigned long long* grid_start;
  unsigned* counter;
  unsigned* timed_out;
  int* payload;               // payload[b] = b + 1, written before the arrival
  unsigned long long* sum;    // after the barrier: the sum of every block's neighbour's payload
  unsigned* mismatches;       // neighbours' payloads that were not there yet
  Record* rec;
};

__global__ void counter_barrier_kernel(BarrierArgs a) {
  if (threadIdx.x == 0) {
    const int b = static_cast<int>(blockIdx.x);
    const unsigned long long t0 = grid_start_ns(a.grid_start);
    const unsigned long long end = t0 + a.budget_ns;
    Record r;
    r.start_ns = since(t0);
    r.on = 0;
    if (past(end)) {
      r.state = static_cast<int>(State::late);
    } else {
      a.payload[b] = b + 1;
      __threadfence();  // the payload is visible before the arrival is
      atomicAdd(a.counter, 1u);
      unsigned seen = 0;
      const bool ok = spin_until(
          [&] {
            seen = vload(a.counter);
            return seen >= static_cast<unsigned>(a.n);
          },
          AbsoluteDeadline{end, a.timed_out});
      r.seen = seen;
      r.state = static_cast<int>(ok ? State::finished : State::gave_up);
      if (ok) {
        __threadfence();  // every arrival seen: every payload written before it is visible
        const int next = (b + 1) % a.n;
        const int v = vload(&a.payload[next]);
        if (v != next + 1) atomicAdd(a.mismatches, 1u);
        atomicAdd(a.sum, static_cast<unsigned long long>(v));
      }
    }
    r.end_ns = since(t0);
    a.rec[b] = r;
  }
  __syncthreads();  // the other threads wait here: the block keeps its slot while thread 0 spins
}

// ---- producer-before-consumer: a chain of flags --------------------------------------------------
struct ChainArgs {
  int n;
  int tickets;                // 0: block b waits for block b + 1; 1: ticket t waits for ticket t - 1
  unsigned long long budget_ns;
  unsigned long long* grid_start;
  unsigned* next_ticket;
  int* flags;
  long long* sums;
  unsigned* timed_out;
  Record* rec;
  int* ticket_of;             // per hardware block: its ticket (fix)
};

__global__ void chain_kernel(ChainArgs a) {
  if (threadIdx.x == 0) {
    const int b = static_cast<int>(blockIdx.x);
    const unsigned long long t0 = grid_start_ns(a.grid_start);
    const unsigned long long end = t0 + a.budget_ns;
    Record r;
    r.start_ns = since(t0);
    // The fix: the logical index is the order of arrival, not the hardware index. A block that
    // drew ticket t started after tickets 0..t-1 did, so each of those holds a slot or is done.
    const int idx = a.tickets ? static_cast<int>(atomicAdd(a.next_ticket, 1u)) : b;
    if (a.tickets) a.ticket_of[b] = idx;
    const int dep = a.tickets ? idx - 1 : idx + 1;  // the block whose flag this one needs
    const bool first = a.tickets ? idx == 0 : idx == a.n - 1;
    r.on = first ? -1 : dep;
    if (past(end)) {
      r.state = static_cast<int>(State::late);
    } else {
      long long before = 0;
      bool ok = true;
      if (!first) {
        int seen = 0;
        ok = spin_until(
            [&] {
              seen = vload(&a.flags[dep]);
              return seen != 0;
            },
            AbsoluteDeadline{end, a.timed_out});
        r.seen = seen;
        if (ok) {
          __threadfence();  // the flag seen: the sum written before it is visible
          before = vload(&a.sums[dep]);
        }
      }
      if (ok) {
        a.sums[idx] = before + idx + 1;
        __threadfence();  // the sum before the flag
        vstore(&a.flags[idx], 1);
      }
      r.state = static_cast<int>(ok ? State::finished : State::gave_up);
    }
    r.end_ns = since(t0);
    a.rec[b] = r;
  }
  __syncthreads();
}

// ---- warp-spinlock ------------------------------------------------------------------------------
__global__ void warp_spinlock_kernel(int iters, unsigned long long budget_ns, unsigned long long* grid_start,
                                     int* lock, int* counter, unsigned* timed_out, Record* rec) {
  const int lane = static_cast<int>(threadIdx.x);
  const unsigned long long t0 = grid_start_ns(grid_start);
  Record r;
  r.start_ns = since(t0);
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
  Record r;
  r.start_ns = since(t0);
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
  Record r;
  r.start_ns = since(t0);
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

// ---- the barrier scenarios (child process only) -------------------------------------------------
// Records go to host-mapped memory with volatile stores and a system fence, so that the host can read
// them while the kernel is still running (or never ends).
struct PartialBarrierArgs {
  int present;
  int if_else;         // the absent threads call a second __syncthreads() at once
  unsigned long long budget_ns;
  unsigned long long* grid_start;
  int* flag;           // set by the present threads after their barrier
  long long* arrive;   // mapped
  long long* leave;    // mapped
  long long* progress; // mapped: absent threads, the last time they were seen spinning
  int* state;          // mapped
  unsigned* timed_out;
};

__device__ __forceinline__ void publish(long long* p, long long v) {
  vstore(p, v);
  __threadfence_system();
}

// The rescue: the unaligned form of the block barrier (PTX barrier.sync without .aligned), which the
// PTX ISA allows in divergent code, so that the absent threads' arrival counts wherever it happens.
__device__ __forceinline__ void rescue_block_barrier() { asm volatile("barrier.sync 0;" ::: "memory"); }

// Threads 0..present-1 call the barrier (__syncthreads(), or __syncwarp(0xffffffff) in one warp);
// the others wait for the flag those set after it. That is a deadlock as the programming guide
// specifies the barrier. At the deadline the absent threads give up and call the barrier themselves,
// at another call site: the rescue.
template <bool Warp>
__global__ void partial_barrier_kernel(PartialBarrierArgs a) {
  const int tid = static_cast<int>(threadIdx.x);
  const unsigned long long t0 = grid_start_ns(a.grid_start);
  if (tid < a.present) {
    publish(&a.arrive[tid], since(t0));
    if constexpr (Warp) __syncwarp(0xffffffffu);  // names lanes that are not coming: undefined behaviour
    else __syncthreads();                          // reached by part of the block: undefined behaviour
    publish(&a.leave[tid], since(t0));
    vstore(a.flag, 1);
    vstore(&a.state[tid], static_cast<int>(BarrierState::passed));
    __threadfence_system();
    return;
  }
  if (!Warp && a.if_else) {
    publish(&a.arrive[tid], since(t0));
    __syncthreads();  // the else branch's barrier: a second instruction for the same barrier 0
    publish(&a.leave[tid], since(t0));
    vstore(&a.state[tid], static_cast<int>(BarrierState::rescued));
    __threadfence_system();
    return;
  }
  unsigned spins = 0;
  const bool ok = spin_until(
      [&] {
        if ((++spins & 255u) == 0) publish(&a.progress[tid], since(t0));  // "still running"
        return vload(a.flag) != 0;
      },
      AbsoluteDeadline{t0 + a.budget_ns, a.timed_out});
  publish(&a.arrive[tid], since(t0));
  if (ok) {
    vstore(&a.state[tid], static_cast<int>(BarrierState::saw_flag));
    __threadfence_system();
    return;
  }
  if constexpr (Warp) __syncwarp(0xffffffffu);  // the rescue
  else rescue_block_barrier();
  publish(&a.leave[tid], since(t0));
  vstore(&a.state[tid], static_cast<int>(BarrierState::rescued));
  __threadfence_system();
}

__global__ void health_kernel(int* out) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  out[i] = 7 * i + 3;
}

// ---- host helpers -------------------------------------------------------------------------------
template <typename T>
DeviceBuffer<T> zeroed(std::size_t n) {
  DeviceBuffer<T> b(n);
  b.fill_bytes(0);
  return b;
}

DeviceBuffer<Record> fresh_records(std::size_t n) {
  // A record nobody wrote must read as "never started": state 0, start -1.
  std::vector<Record> init(n);
  DeviceBuffer<Record> b(n);
  b.upload(init);
  return b;
}

bool all_finished(const std::vector<Record>& rs) {
  return std::all_of(rs.begin(), rs.end(), [](const Record& r) { return r.state == static_cast<int>(State::finished); });
}

template <typename Launch>
double timed_launch(Launch launch) {
  cuda::Event start, stop;
  start.record();
  launch();
  CUDA_CHECK_LAUNCH();
  stop.record();
  const double ms = cuda::elapsed_ms(start, stop);
  CUDA_CHECK(cudaDeviceSynchronize());
  return ms;
}

struct BarrierBuffers {
  explicit BarrierBuffers(int blocks)
      : payload(zeroed<int>(static_cast<std::size_t>(blocks))), rec(fresh_records(static_cast<std::size_t>(blocks))) {}
  DeviceBuffer<unsigned long long> grid_start = zeroed<unsigned long long>(1);
  DeviceBuffer<unsigned> counter = zeroed<unsigned>(1), timed_out = zeroed<unsigned>(1), mismatches = zeroed<unsigned>(1);
  DeviceBuffer<int> payload;
  DeviceBuffer<unsigned long long> sum = zeroed<unsigned long long>(1);
  DeviceBuffer<Record> rec;
  BarrierArgs args(int n, unsigned long long budget) {
    return {n, budget, grid_start.get(), counter.get(), timed_out.get(), payload.get(), sum.get(), mismatches.get(),
            rec.get()};
  }
};

void collect_barrier(BarrierBuffers& bufs, GridRun& run) {
  run.records = bufs.rec.download();
  unsigned counter = 0, to = 0, mism = 0;
  unsigned long long sum = 0;
  bufs.counter.download(&counter, 1);
  bufs.timed_out.download(&to, 1);
  bufs.mismatches.download(&mism, 1);
  bufs.sum.download(&sum, 1);
  run.counter = counter;
  run.timed_out = to != 0;
  run.completed = all_finished(run.records);
  if (run.completed) {
    const unsigned long long n = static_cast<unsigned long long>(run.blocks);
    const unsigned long long want = n * (n + 1) / 2;
    run.result_ok = mism == 0 && sum == want;
    run.result = "after the barrier every block read its neighbour's value: " + std::to_string(mism) +
                 " not there yet, sum " + std::to_string(sum) + (sum == want ? " = " : " != ") + "N(N+1)/2 = " +
                 std::to_string(want);
  }
}

// Pinned host memory the kernel writes through: readable by the host while the kernel runs. Freed
// only when the case ended; a hung case never returns to its destructor (on_hang ends the process).
template <typename T>
class Mapped {
 public:
  explicit Mapped(std::size_t n, int byte) : n_(n) {
    CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&host_), n * sizeof(T), cudaHostAllocMapped));
    std::memset(static_cast<void*>(host_), byte, n * sizeof(T));
    CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&dev_), host_, 0));
  }
  ~Mapped() { CUDA_CHECK_NOTHROW(cudaFreeHost(host_)); }
  Mapped(const Mapped&) = delete;
  Mapped& operator=(const Mapped&) = delete;
  T* dev() const { return dev_; }
  std::vector<T> read() const {
    std::vector<T> v(n_);
    for (std::size_t i = 0; i < n_; ++i) v[i] = static_cast<const volatile T*>(host_)[i];
    return v;
  }

 private:
  std::size_t n_;
  T* host_ = nullptr;
  T* dev_ = nullptr;
};

// One case: launch, watch, read back. On a hang, `done` plus this case go to on_hang.
void run_partial_barrier(bool syncwarp, int present, BarrierVariant variant, unsigned long long deadline_ns,
                         int grace_ms, std::vector<BarrierObservation>& done, const OnHang& on_hang) {
  const int threads = syncwarp ? kWarpSize : kSyncBlockThreads;
  const auto n = static_cast<std::size_t>(threads);
  auto grid_start = zeroed<unsigned long long>(1);
  auto flag = zeroed<int>(1);
  auto timed_out = zeroed<unsigned>(1);
  Mapped<long long> arrive(n, 0xff), leave(n, 0xff), progress(n, 0xff);  // -1: not recorded
  Mapped<int> state(n, 0);
  const PartialBarrierArgs a{present,      variant == BarrierVariant::if_else ? 1 : 0,
                             deadline_ns,  grid_start.get(),
                             flag.get(),   arrive.dev(),
                             leave.dev(),  progress.dev(),
                             state.dev(),  timed_out.get()};
  if (syncwarp) partial_barrier_kernel<true><<<1, threads>>>(a);
  else partial_barrier_kernel<false><<<1, threads>>>(a);
  CUDA_CHECK_LAUNCH();
  const auto t0 = std::chrono::steady_clock::now();
  const auto limit = std::chrono::milliseconds(static_cast<long long>(deadline_ns / 1000000ull) + grace_ms);
  bool hung = false;
  for (;;) {
    const cudaError_t e = cudaStreamQuery(nullptr);
    if (e == cudaSuccess) break;
    if (e != cudaErrorNotReady) CUDA_CHECK(e);  // a trap: the kernel ended with an error
    if (std::chrono::steady_clock::now() - t0 > limit) {
      hung = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  BarrierObservation o;
  o.threads = threads;
  o.present = present;
  o.variant = static_cast<int>(variant);
  o.deadline_ns = static_cast<long long>(deadline_ns);
  o.hung = hung;
  o.watched_ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
  o.arrive_ns = arrive.read();
  o.leave_ns = leave.read();
  o.progress_ns = progress.read();
  o.state = state.read();
  done.push_back(std::move(o));
  if (hung) on_hang(done);  // does not return
}

}  // namespace

Coresidency gpu_coresidency(Scenario s, int device) {
  if (s == Scenario::producer_before_consumer) return cuda::coresidency_of(chain_kernel, kGridThreads, 0, device);
  return cuda::coresidency_of(counter_barrier_kernel, kGridThreads, 0, device);
}

bool gpu_cooperative_launch(int device) {
  int coop = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, device));
  return coop != 0;
}

GridRun gpu_grid_barrier(int blocks, unsigned long long deadline_ns) {
  GridRun run;
  run.blocks = blocks;
  BarrierBuffers bufs(blocks);
  const BarrierArgs a = bufs.args(blocks, deadline_ns);
  run.ms = timed_launch([&] { counter_barrier_kernel<<<blocks, kGridThreads>>>(a); });
  collect_barrier(bufs, run);
  return run;
}

CoopRun gpu_grid_barrier_cooperative(int blocks, unsigned long long deadline_ns) {
  CoopRun c;
  c.blocks = blocks;
  BarrierBuffers bufs(blocks);
  BarrierArgs a = bufs.args(blocks, deadline_ns);
  void* args[] = {&a};
  const auto t0 = std::chrono::steady_clock::now();
  const cudaError_t e = cudaLaunchCooperativeKernel(reinterpret_cast<void*>(counter_barrier_kernel), dim3(blocks),
                                                    dim3(kGridThreads), args, 0, nullptr);
  const cudaError_t sync = cudaDeviceSynchronize();
  c.host_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  c.error_code = static_cast<int>(e);
  c.error_name = cudaGetErrorName(e);
  c.error_text = cudaGetErrorString(e);
  c.launched = e == cudaSuccess;
  (void)cudaGetLastError();  // a refused launch is not sticky: clear it so the next call starts clean
  CUDA_CHECK(sync);
  c.run.blocks = blocks;
  if (c.launched) collect_barrier(bufs, c.run);
  else c.run.records = bufs.rec.download();  // all "never started": the runtime ran nothing
  return c;
}

GridRun gpu_chain(int blocks, unsigned long long deadline_ns, bool tickets) {
  GridRun run;
  run.blocks = blocks;
  const auto n = static_cast<std::size_t>(blocks);
  auto grid_start = zeroed<unsigned long long>(1);
  auto next = zeroed<unsigned>(1), timed_out = zeroed<unsigned>(1);
  auto flags = zeroed<int>(n), ticket_of = zeroed<int>(n);
  auto sums = zeroed<long long>(n);
  auto rec = fresh_records(n);
  const ChainArgs a{blocks,          tickets ? 1 : 0, deadline_ns, grid_start.get(), next.get(), flags.get(),
                    sums.get(),      timed_out.get(), rec.get(),   ticket_of.get()};
  run.ms = timed_launch([&] { chain_kernel<<<blocks, kGridThreads>>>(a); });
  run.records = rec.download();
  unsigned drawn = 0, to = 0;
  next.download(&drawn, 1);
  timed_out.download(&to, 1);
  run.counter = drawn;
  run.timed_out = to != 0;
  if (tickets) run.tickets = ticket_of.download();
  run.completed = all_finished(run.records);
  if (run.completed) {
    const auto s = sums.download();
    long long wrong = 0;
    for (int i = 0; i < blocks; ++i) {
      const long long k = i;
      const long long want = tickets ? (k + 1) * (k + 2) / 2 : (static_cast<long long>(blocks) * (blocks + 1) - k * (k + 1)) / 2;
      if (s[static_cast<std::size_t>(i)] != want) ++wrong;
    }
    run.result_ok = wrong == 0;
    run.result = std::string(tickets ? "prefix sums by ticket" : "suffix sums by block index") + ": " +
                 std::to_string(blocks - wrong) + " of " + std::to_string(blocks) + " right (last " +
                 std::to_string(s[tickets ? n - 1 : 0]) + ")";
  }
  return run;
}

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
  unsigned to = 0;
  timed_out.download(&to, 1);
  run.count = count;
  run.timed_out = to != 0;
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
  unsigned to = 0;
  timed_out.download(&to, 1);
  run.timed_out = to != 0;
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
    unsigned to = 0;
    timed_out.download(&to, 1);
    run.timed_out = to != 0;
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

Health gpu_health() {
  Health h;
  h.ran = true;
  try {
    constexpr int n = kHealthBlocks * kHealthThreads;
    DeviceBuffer<int> out(n);
    out.fill_bytes(0xff);
    const double ms = timed_launch([&] { health_kernel<<<kHealthBlocks, kHealthThreads>>>(out.get()); });
    const auto v = out.download();
    int right = 0;
    for (int i = 0; i < n; ++i) right += v[static_cast<std::size_t>(i)] == 7 * i + 3;
    h.ok = right == n;
    char t[32];
    std::snprintf(t, sizeof t, "%.3f", ms);
    h.detail = "health_kernel<<<" + std::to_string(kHealthBlocks) + ", " + std::to_string(kHealthThreads) +
               ">>> wrote out[i] = 7i + 3: " + std::to_string(right) + " of " + std::to_string(n) + " right, " + t +
               " ms";
  } catch (const Error& e) {
    h.ok = false;
    h.detail = e.what();
  }
  return h;
}

std::vector<BarrierObservation> gpu_divergent_syncthreads(unsigned long long deadline_ns, int grace_ms,
                                                          const OnHang& on_hang) {
  // The case that may hang for good runs last: a hung kernel takes the context, and the cases with it.
  std::vector<BarrierObservation> out;
  run_partial_barrier(false, kSyncPresentWholeWarps, BarrierVariant::rescue, deadline_ns, grace_ms, out, on_hang);
  run_partial_barrier(false, kSyncPresentWholeWarps, BarrierVariant::if_else, deadline_ns, grace_ms, out, on_hang);
  run_partial_barrier(false, kSyncPresent, BarrierVariant::rescue, deadline_ns, grace_ms, out, on_hang);
  return out;
}

std::vector<BarrierObservation> gpu_syncwarp_mask(unsigned long long deadline_ns, int grace_ms, const OnHang& on_hang) {
  std::vector<BarrierObservation> out;
  run_partial_barrier(true, kSyncwarpPresent, BarrierVariant::rescue, deadline_ns, grace_ms, out, on_hang);
  return out;
}

}  // namespace cudasync::deadlock_demo

// The grid parts' kernels: grid-oversubscribed's counter barrier (an ordinary and a cooperative
// launch) and producer-before-consumer's chain of flags; and the health check that runs after every
// part: a small kernel whose result is checked, so that a part proves the GPU still works.
//
// Every wait goes through spin_until() (core/cuda/deadline.cuh). The grid parts share one end
// time: the first block to start publishes its %globaltimer, every block waits at most until that
// time + the deadline, and a block that starts after it returns at once, recording that it came
// late. So a grid with more blocks than the GPU holds ends one deadline after it started, not one
// per wave. In every block thread 0 does the work while the other threads wait at __syncthreads():
// the block keeps all its warps, and so its slot, while thread 0 spins.
#include <chrono>
#include <cstdio>

#include "core/cuda/occupancy.cuh"
#include "techniques/deadlock_demo/kernels.cuh"

namespace cudasync::deadlock_demo {

using cuda::AbsoluteDeadline;
using cuda::DeviceBuffer;
using cuda::grid_start_ns;
using cuda::past;
using cuda::spin_until;

namespace {

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
    Record r = started(t0);
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
    Record r = started(t0);
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
  unsigned counter = 0, mism = 0;
  unsigned long long sum = 0;
  bufs.counter.download(&counter, 1);
  bufs.mismatches.download(&mism, 1);
  bufs.sum.download(&sum, 1);
  run.counter = counter;
  run.timed_out = read_flag(bufs.timed_out);
  run.completed = all_finished(run.records);
  if (run.completed) {
    const unsigned long long n = static_cast<unsigned long long>(run.blocks);
    const unsigned long long want = n * (n + 1) / 2;
    run.result_ok = mism == 0 && sum == want;
    run.result = say(sum == want ? "grid.result-equal" : "grid.result-differs",
                     {{"missing", mism}, {"sum", sum}, {"want", want}});
  }
}

// The health check: 4 x 256 threads write out[i] = 7 i + 3.
__global__ void health_kernel(int* out) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  out[i] = 7 * i + 3;
}

}  // namespace

Coresidency gpu_coresidency(GridKernel kernel, int device) {
  if (kernel == GridKernel::chain) return cuda::coresidency_of(chain_kernel, kGridThreads, 0, device);
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
  unsigned drawn = 0;
  next.download(&drawn, 1);
  run.counter = drawn;
  run.timed_out = read_flag(timed_out);
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
    run.result = say(tickets ? "chain.result-tickets" : "chain.result-blocks",
                     {{"right", blocks - wrong}, {"blocks", blocks}, {"last", s[tickets ? n - 1 : 0]}});
  }
  return run;
}

Health gpu_health() {
  Health h;
  h.ran = true;
  try {
    constexpr int n = kHealthBlocks * kHealthThreads;
    cuda::DeviceBuffer<int> out(n);
    out.fill_bytes(0xff);
    const double ms = timed_launch([&] { health_kernel<<<kHealthBlocks, kHealthThreads>>>(out.get()); });
    const auto v = out.download();
    int right = 0;
    for (int i = 0; i < n; ++i) right += v[static_cast<std::size_t>(i)] == 7 * i + 3;
    h.ok = right == n;
    char t[32];
    std::snprintf(t, sizeof t, "%.3f", ms);
    h.detail = say("health.detail", {{"blocks", kHealthBlocks}, {"threads", kHealthThreads}, {"right", right},
                                     {"n", n}, {"ms", t}});
  } catch (const Error& e) {
    h.ok = false;
    h.detail = e.what();
  }
  return h;
}

}  // namespace cudasync::deadlock_demo

// The barrier parts' kernels, for the child process only: divergent-syncthreads (__syncthreads()
// reached by part of a block of 64) and syncwarp-mask (__syncwarp(0xffffffff) reached by half a
// warp). A hardware barrier has no deadline, and what it does here is undefined: the kernel may
// never end. So the threads write what they do into mapped pinned memory (core/cuda/mapped_buffer
// .hpp) as they go, and the host watches each kernel (core/watchdog.hpp) for deadline + grace; a
// kernel still running then is hung, and on_hang gets what the threads wrote.
#include "core/cuda/mapped_buffer.hpp"
#include "core/watchdog.hpp"
#include "techniques/deadlock_demo/kernels.cuh"

namespace cudasync::deadlock_demo {

using cuda::AbsoluteDeadline;
using cuda::grid_start_ns;
using cuda::MappedBuffer;
using cuda::spin_until;

namespace {

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

// The default stream has finished its work; a kernel that ended with an error (a trap) throws.
bool stream_done() {
  const cudaError_t e = cudaStreamQuery(nullptr);
  if (e != cudaSuccess && e != cudaErrorNotReady) CUDA_CHECK(e);
  return e == cudaSuccess;
}

// One case: launch, watch, read back. On a hang, `done` plus this case go to on_hang, which ends the
// process: the buffers here are never freed (cudaFreeHost would wait for the kernel forever).
void run_partial_barrier(bool syncwarp, int present, BarrierVariant variant, unsigned long long deadline_ns,
                         int grace_ms, std::vector<BarrierObservation>& done, const OnHang& on_hang) {
  const int threads = syncwarp ? kWarpSize : kSyncBlockThreads;
  const auto n = static_cast<std::size_t>(threads);
  auto grid_start = zeroed<unsigned long long>(1);
  auto flag = zeroed<int>(1);
  auto timed_out = zeroed<unsigned>(1);
  MappedBuffer<long long> arrive(n, 0xff), leave(n, 0xff), progress(n, 0xff);  // -1: not recorded
  MappedBuffer<int> state(n, 0);
  const PartialBarrierArgs a{present,      variant == BarrierVariant::if_else ? 1 : 0,
                             deadline_ns,  grid_start.get(),
                             flag.get(),   arrive.dev(),
                             leave.dev(),  progress.dev(),
                             state.dev(),  timed_out.get()};
  if (syncwarp) partial_barrier_kernel<true><<<1, threads>>>(a);
  else partial_barrier_kernel<false><<<1, threads>>>(a);
  CUDA_CHECK_LAUNCH();
  const Watch w =
      watch(stream_done, std::chrono::milliseconds(static_cast<long long>(deadline_ns / 1000000ull) + grace_ms));
  BarrierObservation o;
  o.threads = threads;
  o.present = present;
  o.variant = static_cast<int>(variant);
  o.deadline_ns = static_cast<long long>(deadline_ns);
  o.hung = !w.done;
  o.watched_ms = w.waited.count();
  o.arrive_ns = arrive.read();
  o.leave_ns = leave.read();
  o.progress_ns = progress.read();
  o.state = state.read();
  done.push_back(std::move(o));
  if (!w.done) on_hang(done);  // does not return
}

}  // namespace

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

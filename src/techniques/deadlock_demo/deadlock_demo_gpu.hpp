#pragma once
// The GPU side of deadlock-demo: each function launches one scenario's kernel, copies back what
// every block or lane recorded, and returns the plain structs of deadlock_demo.hpp. Every wait in
// every kernel goes through spin_until (core/cuda/deadline.cuh) with a deadline: a waiter that waits
// too long gives up and records on what, so each deadlock ends by itself and the GPU stays usable.
// The barrier scenarios (a hardware barrier has no deadline) are meant for a child process only.
#include <functional>
#include <vector>

#include "core/coresidency.hpp"
#include "core/gpu_entry.hpp"
#include "techniques/deadlock_demo/deadlock_demo.hpp"

namespace cudasync::deadlock_demo {

// How many blocks of the counter-barrier kernel (grid-oversubscribed) or the chain kernel
// (producer-before-consumer), kGridThreads threads each, fit on the GPU at once.
CUDASYNC_GPU_ENTRY(Coresidency, gpu_coresidency, (GridKernel kernel, int device))
CUDASYNC_GPU_ENTRY(bool, gpu_cooperative_launch, (int device))  // cudaDevAttrCooperativeLaunch

// grid-oversubscribed: every block adds one to a counter and spins until it reaches `blocks`; all
// blocks share one end time (the first block's start + deadline). Completed: each block read its
// neighbour's value after the barrier, and their sum is checked.
CUDASYNC_GPU_ENTRY(GridRun, gpu_grid_barrier, (int blocks, unsigned long long deadline_ns))
// The same kernel through cudaLaunchCooperativeKernel: refused with cudaErrorCooperativeLaunchTooLarge
// when the grid cannot be resident, else run and checked.
CUDASYNC_GPU_ENTRY(CoopRun, gpu_grid_barrier_cooperative, (int blocks, unsigned long long deadline_ns))

// producer-before-consumer. tickets false: block b waits for block b + 1's flag, the last block
// produces first. tickets true (the fix): each block draws a ticket as it starts and the block
// with ticket t waits for ticket t - 1. Each adds its value to the one before it: suffix sums by
// block index, prefix sums by ticket, both checked when the run completed.
CUDASYNC_GPU_ENTRY(GridRun, gpu_chain, (int blocks, unsigned long long deadline_ns, bool tickets))

// warp-spinlock: the 32 lanes of one warp each take a CAS lock `iters` times and add one to a
// counter under it. Each wait for the lock has the deadline as its budget.
CUDASYNC_GPU_ENTRY(LaneRun, gpu_warp_spinlock, (int iters, unsigned long long deadline_ns))
// The wait-for cycle inside a warp: lane i waits for lane i+1's flag (mod 32) before setting its
// own. Ends at the deadline with every lane still waiting.
CUDASYNC_GPU_ENTRY(LaneRun, gpu_lane_ring, (unsigned long long deadline_ns))

// lock-order: the AB/BA run (both blocks hold their first lock before either tries its second),
// then the fix (both take A, then B, `fix_iters` times).
CUDASYNC_GPU_ENTRY(LockOrderRun, gpu_lock_order, (unsigned long long deadline_ns, int fix_iters))

// The health check: 4 x 256 threads write out[i] = 7 i + 3; checked on the host. A CUDA error is
// caught and reported in `detail`, not thrown.
CUDASYNC_GPU_ENTRY(Health, gpu_health, ())

// Child process only: the barrier scenarios. The absent threads rescue the barrier after the
// deadline, but what the hardware does with a barrier only part of a block reaches is undefined,
// and it may stop them from ever getting there. So the threads write what they do into host-mapped
// memory as they go, and the host watches each kernel for deadline + grace_ms. A kernel that has
// not ended by then is hung: on_hang gets the observations so far (the last one marked hung) and
// must end the process without another CUDA call (every call would wait for the kernel forever).
// divergent-syncthreads runs two cases, whole warps then inside a warp; syncwarp-mask one.
using OnHang = std::function<void(const std::vector<BarrierObservation>&)>;
CUDASYNC_GPU_ENTRY(std::vector<BarrierObservation>, gpu_divergent_syncthreads,
                   (unsigned long long deadline_ns, int grace_ms, const OnHang& on_hang))
CUDASYNC_GPU_ENTRY(std::vector<BarrierObservation>, gpu_syncwarp_mask,
                   (unsigned long long deadline_ns, int grace_ms, const OnHang& on_hang))

}  // namespace cudasync::deadlock_demo

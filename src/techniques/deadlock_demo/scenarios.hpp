#pragma once
// deadlock-demo: the classic GPU synchronization deadlocks, each run for real under a device-side
// deadline so that it ends, says who was stuck on what, and leaves the GPU usable; then its fix,
// run to completion. This header holds the plain structs the kernels, the child processes and the
// reference model all fill, `say` (the lesson's sentences), and the GPU's entry points
// (core/gpu_entry.hpp); nvcc compiles it too, so it includes only the standard library and plain
// core headers.
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/coresidency.hpp"
#include "core/gpu_entry.hpp"
#include "core/words/words.hpp"

namespace cudasync::deadlock_demo {

// deadlock-demo: the classic GPU synchronization deadlocks, each run for real under a device-side
// deadline so that it ends, says who was stuck on what, and leaves the GPU usable; then its fix,
// run to completion. Its parts: grid-oversubscribed, warp-spinlock,
// divergent-syncthreads, lock-order, producer-before-consumer, syncwarp-mask. This header holds the
// plain structs the kernels, the child processes and the reference model all fill, and `say`, the
// lesson's sentences; nvcc compiles it too, so it includes only the standard library and
// core/words (itself only the standard library).
// A sentence of this lesson's catalog (lessons/deadlock-demo/words.json) in the run's language.
inline std::string say(std::string_view key, const words::Args& args = {}) {
  return words::say("deadlock-demo", key, args);
}

// The words for a block, lane or thread (`noun` is "block", "lane" or "thread": an id, never shown
// as it is): singular ("block 7") and plural ("blocks 0-1055").
inline std::string noun_word(const std::string& noun) {
  return say(noun == "block" ? "noun.block" : noun == "lane" ? "noun.lane" : "noun.thread");
}
inline std::string nouns_word(const std::string& noun) {
  return say(noun == "block" ? "noun.blocks" : noun == "lane" ? "noun.lanes" : "noun.threads");
}

// The two grid kernels whose co-residency sizes a grid scenario.
enum class GridKernel : int {
  counter_barrier = 0,  // grid-oversubscribed
  chain,                // producer-before-consumer
};

inline constexpr int kWarpSize = 32;
// The grid scenarios run blocks of 256 threads (thread 0 of each block does the waiting): on an
// H100 8 of them fit on an SM, 1056 on the GPU.
inline constexpr int kGridThreads = 256;
// --blocks: at most 32768, 31 waves past an H100's 1056 resident blocks; every block that has no
// slot while the first wave spins starts after the deadline and returns at once.
inline constexpr int kMaxBlocks = 32768;
// --deadline-ms: 50 ms by default, so that the default run (four deadlines in this process, one in
// each of two children running beside it) stays well under a second; at most 2 s, so that no run
// takes more than about ten seconds.
inline constexpr int kDefaultDeadlineMs = 50;
inline constexpr int kMaxDeadlineMs = 2000;
// warp-spinlock: each of the 32 lanes takes the lock this often.
inline constexpr int kSpinlockIters = 100;
// lock-order's fix: each of the two blocks takes A then B this often.
inline constexpr int kLockOrderIters = 500;
// divergent-syncthreads: a block of 64 threads, three cases. Whole warps: threads 0-31 reach
// __syncthreads(), 32-63 do not. If / else: threads 0-31 reach one __syncthreads(), 32-63 another.
// Inside a warp: threads 0-47 reach it, 48-63 do not (warp 1 is split in the middle, which the
// aligned barrier bar.sync assumes never happens).
inline constexpr int kSyncBlockThreads = 64;
inline constexpr int kSyncPresentWholeWarps = 32;
inline constexpr int kSyncPresent = 48;
// syncwarp-mask: one warp; lanes 0-15 call __syncwarp(0xffffffff), lanes 16-31 do not.
inline constexpr int kSyncwarpPresent = 16;
// The health check after every scenario: 4 blocks of 256 threads write out[i] = 7 i + 3.
inline constexpr int kHealthBlocks = 4;
inline constexpr int kHealthThreads = 256;

// What one block (or lane) did. Kernels fill one per block; the model predicts the same fields.
enum class State : int {
  never_started = 0,  // the record was never written: the block did not run
  finished = 1,       // it got what it waited for and completed its work
  gave_up = 2,        // it waited until the deadline; `on` and `seen` say for what
  late = 3,           // it started after the deadline had passed, and returned at once
};
std::string to_string(State s);  // in the run's language

struct Record {
  long long start_ns = -1;  // %globaltimer at its start minus the grid's start (the first block's)
  long long end_ns = -1;    // when it finished or gave up, on the same clock
  long long seen = 0;       // the last value it read of what it waited for
  int state = 0;            // a State
  int on = -1;              // what it waited for: a block, a lane or a lock (each scenario says)
};

// The small kernel that runs after every scenario and proves the CUDA context still works.
struct Health {
  bool ran = false;
  bool ok = false;
  std::string detail;  // "1024 of 1024 values right, 0.01 ms" or the CUDA error
};

// A grid scenario's launch: the counter barrier (grid-oversubscribed) or the flag chain
// (producer-before-consumer), broken or fixed.
struct GridRun {
  int blocks = 0;
  int threads = kGridThreads;
  std::vector<Record> records;  // one per block (hardware index)
  long long counter = 0;        // barrier: arrivals counted; chain: tickets drawn (fix)
  bool timed_out = false;       // some block gave up
  double ms = 0.0;              // the launch, timed with events
  bool completed = false;       // every block finished
  bool result_ok = false;       // its checked result (only when completed)
  std::string result;           // "sum of neighbours' values 2231328 = N(N+1)/2", or what was wrong
  std::vector<int> tickets;     // chain fix: the ticket each hardware block drew
};

// cudaLaunchCooperativeKernel with a grid: refused (error 720) or run.
struct CoopRun {
  int blocks = 0;
  int error_code = 0;          // 0: cudaSuccess
  std::string error_name;      // "cudaErrorCooperativeLaunchTooLarge"
  std::string error_text;      // cudaGetErrorString
  double host_ms = 0.0;        // the launch call and a synchronize, wall time: it returned at once
  bool launched = false;
  GridRun run;                 // when launched
};

// warp-spinlock: the lock in one warp, and the cycle between its lanes.
struct LaneRun {
  int lanes = kWarpSize;
  int iters = 0;
  std::vector<Record> records;  // one per lane
  long long count = 0;          // spinlock: the counter under the lock; ring: flags set
  long long expected = 0;
  bool timed_out = false;
  double ms = 0.0;
};

// lock-order: two blocks, locks A (0) and B (1). Records: `on` is the lock a block gave up on and
// `seen` the lock word it last read (the holder's block index + 1).
struct LockOrderRun {
  std::vector<Record> records;  // two
  bool handshake = false;       // both held their first lock before either tried its second
  bool timed_out = false;
  double ms = 0.0;
  // the fix: both take A then B `iters` times
  int iters = 0;
  long long count_a = 0, count_b = 0, expected = 0;
};

// A barrier scenario in its child process: divergent-syncthreads (64 threads, 32 or 48 present) or
// syncwarp-mask (32 lanes, 16 present). The present threads call the barrier; the absent ones wait
// for a flag the present ones set after it, give up at the deadline, and then call the barrier
// themselves (the rescue). If the hardware stops them from ever getting there, the kernel never
// ends: the child's watchdog then reads what the threads wrote into host memory so far and ends the
// process (`hung`).
enum class BarrierState : int {
  none = 0,         // nothing recorded
  passed = 1,       // present: left the barrier
  saw_flag = 2,     // absent: saw the present threads' flag (they got through without it)
  rescued = 3,      // absent: gave up at the deadline and called the barrier itself (if / else: called the
                    // else branch's barrier at once)
};
enum class BarrierVariant : int {
  rescue = 0,   // the absent threads wait for the flag, give up at the deadline, then call the barrier
  if_else = 1,  // the absent threads call another __syncthreads() at once: two barrier instructions
};
struct BarrierObservation {
  int threads = 0;
  int present = 0;
  int variant = 0;                   // a BarrierVariant
  long long deadline_ns = 0;
  bool hung = false;                 // the kernel had not ended when the child's watchdog gave up on it
  long long watched_ms = 0;          // how long the watchdog waited for the kernel
  std::vector<long long> arrive_ns;  // per thread: when it called its barrier (present) or gave up (absent)
  std::vector<long long> leave_ns;   // per thread: when it left its barrier call, -1: never called one
  std::vector<long long> progress_ns;  // per absent thread: the last time it was seen spinning, -1: never
  std::vector<int> state;            // per thread: a BarrierState
};

// The GPU side of deadlock-demo: each function launches one scenario's kernel, copies back what
// every block or lane recorded, and returns the plain structs of deadlock_demo.hpp. Every wait in
// every kernel goes through spin_until (core/cuda/deadline.cuh) with a deadline: a waiter that waits
// too long gives up and records on what, so each deadlock ends by itself and the GPU stays usable.
// The barrier scenarios (a hardware barrier has no deadline) are meant for a child process only.
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

// The lock lesson's kernels: one per variant, each a loop of `iters` acquire / critical section /
// release per thread (for the combining lock, `iters` requests, lock_combining.cuh). Kernels fill
// plain arrays and never print; lock.cpp turns them into a Report.
//
// Every wait goes through spin_until() with a deadline on %globaltimer (after one try, so that a
// free lock costs no read of the clock): a thread whose wait passes the deadline sets gave_up[tid],
// stops acquiring, and the host lists its block as stuck. Nothing here can hang the GPU, whatever
// the variant, the grid or the scheduling.
#include <cuda/atomic>

#include <algorithm>

#include "core/cuda/check.hpp"
#include "core/cuda/deadline.cuh"
#include "core/cuda/device_buffer.hpp"
#include "core/cuda/event_timer.hpp"
#include "techniques/lock/lock_combining.cuh"
#include "techniques/lock/lock_gpu.hpp"

namespace cudasync::lock {

using cuda::DeviceBuffer;
using cuda::SpinDeadline;
using cuda::spin_until;

namespace {

using DeviceInt = ::cuda::atomic_ref<int, ::cuda::thread_scope_device>;
using DeviceUnsigned = ::cuda::atomic_ref<unsigned, ::cuda::thread_scope_device>;

struct Args {
  int* mutex;
  int* cnt;           // its own allocation; for ttas_same_line the int after the lock word
  unsigned* next;     // ticket lock: the next ticket to hand out
  unsigned* serving;  // ticket lock: the ticket whose turn it is
  int iters;
  int* done;          // per thread: acquisitions completed
  int* gave_up;       // per thread: 1 when its wait passed the deadline
  SpinDeadline d;
  combining::Shared comb;  // combining: the slots and the handoff count (mutex and cnt as above)
  int* answers;            // combining: answers[tid * iters + i], what request i returned
  unsigned delay_ns;       // delay_after, delay_before: the blog's delay
};

__device__ __forceinline__ int global_tid() { return static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); }

// One try before the spin: a lock that is free costs no read of the clock.
template <typename Try>
__device__ __forceinline__ bool take(Try try_once, const SpinDeadline& d) {
  return try_once() || spin_until(try_once, d);
}

// ---- the book's lock (CUDA by Example, App. A): atomicCAS to take, atomicExch to release, no fence
__device__ __forceinline__ bool book_lock(int* m, const SpinDeadline& d) {
  return take([&] { return atomicCAS(m, 0, 1) == 0; }, d);
}
__device__ __forceinline__ void book_unlock(int* m) { atomicExch(m, 0); }

// ---- the blog's class with its fix: __threadfence() after taking and before releasing -----------
__device__ __forceinline__ bool fenced_lock(int* m, const SpinDeadline& d) {
  const bool ok = take([&] { return atomicCAS(m, 0, 1) == 0; }, d);
  __threadfence();
  return ok;
}
__device__ __forceinline__ void fenced_unlock(int* m) {
  __threadfence();
  atomicExch(m, 0);
}

// The same as real functions, the way the blog's class calls them: the question of part 2 is what
// the lanes of one warp do when all of them call lock() and only one can return.
__device__ __noinline__ bool lock_fn(int* m, SpinDeadline d) { return fenced_lock(m, d); }
__device__ __noinline__ void unlock_fn(int* m) { fenced_unlock(m); }

// ---- cuda::atomic_ref: acquire when the lock is taken, release when it is given back ------------
__device__ __forceinline__ bool acq_lock(int* m, const SpinDeadline& d) {
  DeviceInt ref(*m);
  return take(
      [&] {
        int expected = 0;
        return ref.compare_exchange_strong(expected, 1, ::cuda::memory_order_acquire, ::cuda::memory_order_relaxed);
      },
      d);
}
__device__ __forceinline__ void rel_unlock(int* m) { DeviceInt(*m).store(0, ::cuda::memory_order_release); }

// Exponential back-off: after each failed try, sleep, twice as long as the last time (bounded).
constexpr unsigned kBackoffMinNs = 32, kBackoffMaxNs = 2048;
__device__ __forceinline__ bool backoff_lock(int* m, const SpinDeadline& d) {
  DeviceInt ref(*m);
  unsigned ns = kBackoffMinNs;
  return take(
      [&] {
        int expected = 0;
        if (ref.compare_exchange_strong(expected, 1, ::cuda::memory_order_acquire, ::cuda::memory_order_relaxed))
          return true;
        __nanosleep(ns);
        ns = min(2 * ns, kBackoffMaxNs);
        return false;
      },
      d);
}

// Ticket lock: take a number, then wait until it is served. The waiter polls with acquire loads
// (no fence of its own) and sleeps in proportion to how many tickets are ahead of it, so only the
// next in line polls hard.
constexpr unsigned kTicketBackoffNs = 64, kTicketBackoffMaxNs = 4096;
__device__ __forceinline__ bool ticket_lock(unsigned* next, unsigned* serving, unsigned& ticket, const SpinDeadline& d) {
  ticket = DeviceUnsigned(*next).fetch_add(1u, ::cuda::memory_order_relaxed);
  DeviceUnsigned now(*serving);
  return take(
      [&] {
        const unsigned s = now.load(::cuda::memory_order_acquire);
        if (s == ticket) return true;
        const unsigned ahead = ticket - s;  // unsigned: correct across wrap-around
        if (ahead > 1) __nanosleep(min((ahead - 1) * kTicketBackoffNs, kTicketBackoffMaxNs));
        return false;
      },
      d);
}
__device__ __forceinline__ void ticket_unlock(unsigned* serving, unsigned ticket) {
  DeviceUnsigned(*serving).store(ticket + 1u, ::cuda::memory_order_release);
}

// Test-and-test-and-set: wait with plain relaxed loads, which every waiter's SM sends to L2
// without taking the line from anyone, and compare-and-swap only when the word reads 0. The
// acquire must be on the compare-and-swap: an acquire load that saw 0 would synchronize with the
// release it read, but another thread may take and release the lock between that load and the
// swap, and the swap would then get in after a critical section it never synchronized with.
__device__ __forceinline__ bool ttas_lock(int* m, const SpinDeadline& d) {
  DeviceInt ref(*m);
  return take(
      [&] {
        if (ref.load(::cuda::memory_order_relaxed) != 0) return false;
        int expected = 0;
        return ref.compare_exchange_strong(expected, 1, ::cuda::memory_order_acquire, ::cuda::memory_order_relaxed);
      },
      d);
}

// ---- the kernels ---------------------------------------------------------------------------
// One loop for every lock of the form lock(); *cnt = *cnt + 1; unlock();.
template <typename Lock, typename Unlock>
__device__ __forceinline__ void counting_loop(const Args& a, Lock lock, Unlock unlock) {
  const int tid = global_tid();
  int done = 0;
  for (int i = 0; i < a.iters; ++i) {
    if (!lock()) {
      a.gave_up[tid] = 1;
      break;
    }
    *a.cnt = *a.cnt + 1;
    unlock();
    ++done;
  }
  a.done[tid] = done;
}

// Parts 1 and 3: the blog's class, used as kernel<<<N, 1>>>, around its two critical sections.
__global__ void book_kernel(Args a) {
  counting_loop(a, [&] { return book_lock(a.mutex, a.d); }, [&] { book_unlock(a.mutex); });
}
__global__ void book_atomic_add_kernel(Args a) {
  const int tid = global_tid();
  int done = 0;
  for (int i = 0; i < a.iters; ++i) {
    if (!book_lock(a.mutex, a.d)) {
      a.gave_up[tid] = 1;
      break;
    }
    atomicAdd(a.cnt, 1);
    book_unlock(a.mutex);
    ++done;
  }
  a.done[tid] = done;
}

// Part 2: lock() and unlock() as functions, called by every lane.
__global__ void lock_functions_kernel(Args a) {
  counting_loop(a, [&] { return lock_fn(a.mutex, a.d); }, [&] { unlock_fn(a.mutex); });
}

// Part 3's fixes 2 and 3; in the benchmark, the CAS lock (fenced) and the same with acquire/release.
__global__ void fenced_kernel(Args a) {
  counting_loop(a, [&] { return fenced_lock(a.mutex, a.d); }, [&] { fenced_unlock(a.mutex); });
}
__global__ void acq_rel_kernel(Args a) {
  counting_loop(a, [&] { return acq_lock(a.mutex, a.d); }, [&] { rel_unlock(a.mutex); });
}

// Part 7: the blog's "true thread lock": try, and if the lock was free do the work and release it
// in the same iteration, so no lane ever holds the lock while it waits for its warp.
__global__ void thread_lock_kernel(Args a) {
  const int tid = global_tid();
  int done = 0;
  for (int i = 0; i < a.iters; ++i) {
    const bool ok = take(
        [&] {
          if (0 == atomicCAS(a.mutex, 0, 1)) {
            atomicAdd(a.cnt, 1);
            __threadfence();
            atomicExch(a.mutex, 0);
            return true;  // blocked = false
          }
          return false;
        },
        a.d);
    if (!ok) {
      a.gave_up[tid] = 1;
      break;
    }
    ++done;
  }
  a.done[tid] = done;
}

// Part 4, the blog's first remedy for stale reads: wait `ns` inside the critical section, after the
// increment (where the blog puts it) or before the load. The wait spins on %globaltimer, a special
// register: it reads no memory, so it can neither refresh this SM's L1 nor order anything. The
// empty asm with a "memory" clobber keeps the compiler from moving the counter's load or store
// across the wait.
__device__ __forceinline__ void delay(unsigned ns) {
  asm volatile("" ::: "memory");
  const unsigned long long start = cuda::globaltimer_ns();
  while (cuda::globaltimer_ns() - start < ns) {
  }
  asm volatile("" ::: "memory");
}
template <bool AfterIncrement>
__global__ void delay_kernel(Args a) {
  const int tid = global_tid();
  int done = 0;
  for (int i = 0; i < a.iters; ++i) {
    if (!book_lock(a.mutex, a.d)) {
      a.gave_up[tid] = 1;
      break;
    }
    if (!AfterIncrement) delay(a.delay_ns);
    *a.cnt = *a.cnt + 1;
    if (AfterIncrement) delay(a.delay_ns);
    book_unlock(a.mutex);
    ++done;
  }
  a.done[tid] = done;
}

// The benchmark's other locks: acquire on lock, release on unlock, the same critical section.
__global__ void backoff_kernel(Args a) {
  counting_loop(a, [&] { return backoff_lock(a.mutex, a.d); }, [&] { rel_unlock(a.mutex); });
}
__global__ void ticket_kernel(Args a) {
  unsigned ticket = 0;
  counting_loop(a, [&] { return ticket_lock(a.next, a.serving, ticket, a.d); },
                [&] { ticket_unlock(a.serving, ticket); });
}

// Warp-aggregated: the lanes of a warp that arrive together elect their lowest lane; it takes the
// lock (compare_exchange with acquire) once and adds the warp's n updates in one critical section;
// the others wait for it with __syncwarp (in __shfl_sync). One lock handoff serves n updates.
__global__ void warp_aggregated_kernel(Args a) {
  const int tid = global_tid();
  const int lane = static_cast<int>(threadIdx.x % 32);
  int done = 0;
  for (int i = 0; i < a.iters; ++i) {
    const unsigned mask = __activemask();
    const int leader = __ffs(mask) - 1;
    int ok = 1;
    if (lane == leader) {
      ok = acq_lock(a.mutex, a.d) ? 1 : 0;
      if (ok) {
        *a.cnt = *a.cnt + __popc(mask);
        rel_unlock(a.mutex);
      }
    }
    ok = __shfl_sync(mask, ok, leader);
    if (!ok) {
      a.gave_up[tid] = lane == leader ? 1 : 0;
      break;
    }
    ++done;
  }
  a.done[tid] = done;
}

__global__ void ttas_kernel(Args a) {
  counting_loop(a, [&] { return ttas_lock(a.mutex, a.d); }, [&] { rel_unlock(a.mutex); });
}

// The combining lock: every thread's critical section is a fetch-and-add(1) request; the answer
// (the counter before this update) is kept for the host's check that the answers are 0..n-1.
__global__ void __launch_bounds__(kMaxBlockThreads) combining_kernel(Args a) {
  const int tid = global_tid();
  int done = 0;
  for (int i = 0; i < a.iters; ++i) {
    unsigned answer = 0;
    if (!combining::request(a.comb, tid, 1u, answer, a.d)) {
      a.gave_up[tid] = 1;
      break;
    }
    a.answers[static_cast<long long>(tid) * a.iters + i] = static_cast<int>(answer);
    ++done;
  }
  a.done[tid] = done;
}

using KernelFn = void (*)(Args);
KernelFn kernel_of(Variant v) {
  switch (v) {
    case Variant::book: return book_kernel;
    case Variant::book_atomic_add: return book_atomic_add_kernel;
    case Variant::lock_functions: return lock_functions_kernel;
    case Variant::fenced: return fenced_kernel;
    case Variant::acq_rel: return acq_rel_kernel;
    case Variant::thread_lock: return thread_lock_kernel;
    case Variant::backoff: return backoff_kernel;
    case Variant::ticket: return ticket_kernel;
    case Variant::warp_aggregated: return warp_aggregated_kernel;
    case Variant::combining: return combining_kernel;
    case Variant::ttas:
    case Variant::ttas_same_line: return ttas_kernel;
    case Variant::delay_after: return delay_kernel<true>;
    case Variant::delay_before: return delay_kernel<false>;
  }
  return book_kernel;
}

}  // namespace

std::vector<LockRun> gpu_runs(const RunSpec& spec, int reps, bool warmup) {
  const auto n = static_cast<std::size_t>(spec.threads_total());
  const bool combines = spec.variant == Variant::combining;
  // The lock word and, for ttas_same_line, the counter beside it in the same 128-byte line.
  DeviceBuffer<int> mutex(2), cnt(1), done(n), gave_up(n), handoffs(1);
  DeviceBuffer<unsigned> next(1), serving(1), timed_out(1);
  // The combining lock's slots (padded to whole 16-byte loads) and its answers.
  DeviceBuffer<unsigned> slots(combines ? (n + 3) / 4 * 4 : 0);
  DeviceBuffer<int> answers(combines ? static_cast<std::size_t>(spec.acquisitions()) : 0);
  int* counter = spec.variant == Variant::ttas_same_line ? mutex.get() + 1 : cnt.get();
  Args a{mutex.get(), counter, next.get(), serving.get(), spec.iters, done.get(), gave_up.get(),
         SpinDeadline{spec.deadline_ns, timed_out.get()},
         combining::Shared{mutex.get(), counter, slots.get(), static_cast<int>(slots.size()), handoffs.get()},
         answers.get(), spec.delay_ns};
  const KernelFn kernel = kernel_of(spec.variant);
  const auto reset = [&] {
    const int words[2] = {spec.start_locked ? 1 : 0, 0};
    mutex.upload(words, 2);
    // Locked from the start: ticket 0 belongs to nobody, so no ticket ever gets its turn.
    const unsigned first_ticket = spec.start_locked ? 1u : 0u, zero = 0u;
    next.upload(&first_ticket, 1);
    serving.upload(&zero, 1);
    cnt.fill_bytes(0);
    done.fill_bytes(0);
    gave_up.fill_bytes(0);
    timed_out.fill_bytes(0);
    handoffs.fill_bytes(0);
    if (combines) {
      slots.fill_bytes(0);       // every slot idle
      answers.fill_bytes(0xff);  // -1: a request that never got its answer
    }
  };
  const auto launch = [&] {
    kernel<<<spec.blocks, spec.threads>>>(a);
    CUDA_CHECK_LAUNCH();
  };
  if (warmup) {
    reset();
    launch();
    CUDA_CHECK(cudaDeviceSynchronize());
  }
  std::vector<LockRun> runs;
  cuda::Event start, stop;
  for (int r = 0; r < reps; ++r) {
    reset();
    start.record();
    launch();
    stop.record();
    LockRun run;
    run.ms = cuda::elapsed_ms(start, stop);
    run.expected = spec.acquisitions();
    int c = 0;
    CUDA_CHECK(cudaMemcpy(&c, counter, sizeof c, cudaMemcpyDeviceToHost));
    run.count = c;
    const std::vector<int> d = done.download(), g = gave_up.download();
    for (std::size_t t = 0; t < n; ++t) {
      run.completed += d[t];
      if (g[t]) {
        ++run.gave_up;
        const int block = static_cast<int>(t / static_cast<std::size_t>(spec.threads));
        if (run.stuck_blocks.empty() || run.stuck_blocks.back() != block) run.stuck_blocks.push_back(block);
        if (run.stuck_threads.size() < 8) run.stuck_threads.push_back(static_cast<int>(t));
      }
    }
    if (combines) {
      int h = 0;
      handoffs.download(&h, 1);
      run.handoffs = h;
      // A thread that gave up left requests unanswered: the timeout is the finding, not the answers.
      if (!run.timed_out()) check_answers(answers.download(), spec.iters, run);
    }
    runs.push_back(std::move(run));
  }
  return runs;
}

}  // namespace cudasync::lock

// The lock lesson's kernels: one per variant, each a loop of `iters` acquire / critical section /
// release per thread (for the combining lock, `iters` requests). Kernels fill plain arrays and
// never print.
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
#include "core/cuda/vector_load.cuh"
#include "techniques/lock/locks.hpp"

namespace cudasync::lock {

using cuda::DeviceBuffer;
using cuda::SpinDeadline;
using cuda::spin_until;

// The combining lock on the device (flat combining: D. Hendler, I. Incze, N. Shavit, M. Tzafrir,
// "Flat Combining and the Synchronization-Parallelism Tradeoff", SPAA 2010).
//
// Each thread owns one 32-bit slot. To run its critical section it publishes a request in the slot
// (the operation is fixed: fetch-and-add; the word carries the argument) and waits for the answer
// to appear in the same word. A waiter that finds the lock free takes it and, while holding it,
// serves every request published in the slot array: it applies each to the protected counter and
// overwrites the slot with the answer. One lock handoff runs many critical sections.
//
//   slot word:  [31:30] state  idle 0 | pending 1 | done 2      [29:0] argument, then answer
//   thread t, request 0 of "+1":  slot[t] = pending|1  ...  a combiner writes slot[t] = done|17:
//   thread t's fetch-and-add returned 17 (the counter went 17 -> 18 in that combiner's pass).
//
// Ordering. The lock word is taken with an acquire compare-and-swap and given back with a release
// store: the counter passes from one combiner to the next exactly as in any lock. The slot words
// are relaxed device-scope atomics: the request's argument and the answer live in the word that
// carries the flag, so reading "done" is reading the answer (one location is always coherent), and
// there is no other memory for a release or acquire on the slot to order. A critical section whose
// caller must read other memory the combiner wrote would need a release before the done marks (one
// fence per pass) and an acquire load of the slot. Coherence also keeps a request from being served
// twice: the next combiner takes the lock after this one wrote "done", so it cannot read the old
// "pending" again.
namespace combining {

inline constexpr unsigned kIdle = 0u, kPending = 1u, kDone = 2u;
inline constexpr unsigned kPayloadMask = (1u << kSlotPayloadBits) - 1u;
// A waiter looks at the lock word on one poll in kLockEvery (its own slot on every poll): the slots
// are spread over L2, the lock word is one address, and a lock word polled by every waiter slows
// the combiner's release and the next taker's compare-and-swap.
inline constexpr int kLockEvery = 4;
// The combiner reads the slots 32 at a time, as 8 vector loads all in flight at once: one L2 round
// trip per 32 slots instead of one per slot. (64 would not fit the 64 registers a thread may use
// in a block of 1024 without spilling.)
inline constexpr int kScanChunk = 32;

__host__ __device__ constexpr unsigned word(unsigned state, unsigned payload) {
  return state << kSlotPayloadBits | (payload & kPayloadMask);
}
__host__ __device__ constexpr unsigned state_of(unsigned w) { return w >> kSlotPayloadBits; }
__host__ __device__ constexpr unsigned payload_of(unsigned w) { return w & kPayloadMask; }

using SlotRef = ::cuda::atomic_ref<unsigned, ::cuda::thread_scope_device>;
using LockRef = ::cuda::atomic_ref<int, ::cuda::thread_scope_device>;

// Four slots in one relaxed device-scope load (each element is its own relaxed access).
using ::cudasync::cuda::load4_relaxed;

struct Shared {
  int* mutex;
  int* cnt;            // the protected data
  unsigned* slots;     // one per thread of the grid, padded with idle slots to a multiple of 4
  int slot_count;      // padded
  int* handoffs;       // times the lock was taken (each a pass over the slots), under the lock
  bool section;        // false: the pass leaves the counter alone (RunSpec::section)
};

// Serve one slot word `w` of slot `s`: a pending fetch-and-add gets the counter's value as answer.
__device__ __forceinline__ void serve(const Shared& g, int s, unsigned w, int& counter) {
  if (state_of(w) != kPending) return;
  SlotRef(g.slots[s]).store(word(kDone, static_cast<unsigned>(counter)), ::cuda::memory_order_relaxed);
  counter += static_cast<int>(payload_of(w));
}

// The holder's pass: every published request, in slot order, applied to the counter.
__device__ __forceinline__ void combine(const Shared& g) {
  int counter = g.section ? *g.cnt : 0;  // a plain load: the acquire that took the lock dropped this SM's L1
  for (int base = 0; base < g.slot_count; base += kScanChunk) {
    uint4 w[kScanChunk / 4];
#pragma unroll
    for (int k = 0; k < kScanChunk / 4; ++k)
      w[k] = base + 4 * k < g.slot_count ? load4_relaxed(g.slots + base + 4 * k) : make_uint4(0u, 0u, 0u, 0u);
#pragma unroll
    for (int k = 0; k < kScanChunk / 4; ++k) {
      const int s = base + 4 * k;
      serve(g, s, w[k].x, counter);
      serve(g, s + 1, w[k].y, counter);
      serve(g, s + 2, w[k].z, counter);
      serve(g, s + 3, w[k].w, counter);
    }
  }
  if (g.section) *g.cnt = counter;
  *g.handoffs += 1;
}

// One request of thread `tid`: fetch-and-add(arg) on the counter. Returns false when the wait for
// the answer passed the deadline (the request may still be served later; its answer is lost).
__device__ __forceinline__ bool request(const Shared& g, int tid, unsigned arg, unsigned& answer,
                                        const cuda::SpinDeadline& d) {
  SlotRef mine(g.slots[tid]);
  mine.store(word(kPending, arg), ::cuda::memory_order_relaxed);
  LockRef lock(*g.mutex);
  const int lane = static_cast<int>(threadIdx.x % 32);
  const int warp = static_cast<int>(blockIdx.x * ((blockDim.x + 31) / 32) + threadIdx.x / 32);
  int poll = warp;  // waiters of different warps look at the lock word on different polls
  const auto try_once = [&] {
    const unsigned w = mine.load(::cuda::memory_order_relaxed);
    if (state_of(w) == kDone) {
      answer = payload_of(w);
      return true;
    }
    if (poll++ % kLockEvery != 0 || lock.load(::cuda::memory_order_relaxed) != 0) return false;
    // The lanes of a warp that poll together elect one of them to try: one compare-and-swap per
    // warp at the lock word instead of up to 32.
    if (lane != __ffs(__activemask()) - 1) return false;
    int expected = 0;
    if (!lock.compare_exchange_strong(expected, 1, ::cuda::memory_order_acquire, ::cuda::memory_order_relaxed))
      return false;
    combine(g);  // serves this thread's own request too: it was published before the lock was taken
    lock.store(0, ::cuda::memory_order_release);
    return false;  // the next poll reads the answer
  };
  return try_once() || cuda::spin_until(try_once, d);
}

}  // namespace combining

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
  bool section;            // false: nothing between taking and releasing (RunSpec::section)
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

// ---- the kernels --------------------------------------------------------------------------------
// One thread's `iters` acquisitions: `once(i)` acquires, runs its critical section and releases, or
// returns false when its wait passed the deadline: the thread gives up and stops.
template <typename Once>
__device__ __forceinline__ void each_acquisition(const Args& a, Once once) {
  const int tid = global_tid();
  int done = 0;
  for (int i = 0; i < a.iters; ++i) {
    if (!once(i)) {
      a.gave_up[tid] = 1;
      break;
    }
    ++done;
  }
  a.done[tid] = done;
}

// One loop for every lock of the form lock(); section(); unlock(); (by default *cnt = *cnt + 1).
template <typename Lock, typename Unlock, typename Section>
__device__ __forceinline__ void counting_loop(const Args& a, Lock lock, Unlock unlock, Section section) {
  each_acquisition(a, [&](int) {
    if (!lock()) return false;
    if (a.section) section();
    unlock();
    return true;
  });
}
template <typename Lock, typename Unlock>
__device__ __forceinline__ void counting_loop(const Args& a, Lock lock, Unlock unlock) {
  counting_loop(a, lock, unlock, [&] { *a.cnt = *a.cnt + 1; });
}

// Parts 1 and 3: the blog's class, used as kernel<<<N, 1>>>, around its two critical sections.
__global__ void book_kernel(Args a) {
  counting_loop(a, [&] { return book_lock(a.mutex, a.d); }, [&] { book_unlock(a.mutex); });
}
__global__ void book_atomic_add_kernel(Args a) {
  counting_loop(
      a, [&] { return book_lock(a.mutex, a.d); }, [&] { book_unlock(a.mutex); }, [&] { atomicAdd(a.cnt, 1); });
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
  each_acquisition(a, [&](int) {
    return take(
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
  });
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
  counting_loop(a, [&] { return book_lock(a.mutex, a.d); }, [&] { book_unlock(a.mutex); },
                [&] {
                  if (!AfterIncrement) delay(a.delay_ns);
                  *a.cnt = *a.cnt + 1;
                  if (AfterIncrement) delay(a.delay_ns);
                });
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
// the others wait for it with __syncwarp (in __shfl_sync). One lock handoff serves n updates. Only
// the leader is counted as giving up.
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
        if (a.section) *a.cnt = *a.cnt + __popc(mask);
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
  each_acquisition(a, [&](int i) {
    unsigned answer = 0;
    if (!combining::request(a.comb, tid, 1u, answer, a.d)) return false;
    a.answers[static_cast<long long>(tid) * a.iters + i] = static_cast<int>(answer);
    return true;
  });
}

// The kernel of each Variant, in its order (ttas_same_line runs ttas_kernel on another counter).
using KernelFn = void (*)(Args);
const KernelFn kKernels[kVariants] = {book_kernel,    book_atomic_add_kernel, lock_functions_kernel, fenced_kernel,
                                      acq_rel_kernel, thread_lock_kernel,     backoff_kernel,        ticket_kernel,
                                      warp_aggregated_kernel, combining_kernel, ttas_kernel,         ttas_kernel,
                                      delay_kernel<true>,     delay_kernel<false>};

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
         combining::Shared{mutex.get(), counter, slots.get(), static_cast<int>(slots.size()), handoffs.get(),
                           spec.section},
         answers.get(), spec.delay_ns, spec.section};
  const KernelFn kernel = kKernels[static_cast<int>(spec.variant)];
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
  // The same kernel on the same words with an empty section (the cost model's handoff).
  const auto time_handoff = [&]() -> std::optional<double> {
    Args empty = a;
    empty.section = empty.comb.section = false;
    reset();
    start.record();
    kernel<<<spec.blocks, spec.threads>>>(empty);
    CUDA_CHECK_LAUNCH();
    stop.record();
    const double ms = cuda::elapsed_ms(start, stop);
    const std::vector<int> g = gave_up.download();
    if (std::any_of(g.begin(), g.end(), [](int x) { return x != 0; })) return std::nullopt;
    return ms;
  };
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
      if (!run.timed_out() && spec.section) check_answers(answers.download(), spec.iters, run);
    }
    if (spec.handoff_too) run.handoff_ms = time_handoff();
    runs.push_back(std::move(run));
  }
  return runs;
}

}  // namespace cudasync::lock

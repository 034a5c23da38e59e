#pragma once
// lock: the spin lock of CUDA by Example, App. A (atomicCAS to take, atomicExch to release), the
// four pitfalls a well-known blog analysis of it names, run on a real GPU, the blog's remedies,
// and locks that are correct and fast. This header holds what the kernels (locks.cu) and the host
// share: every lock variant, one launch's shape and what it did. nvcc compiles it too, so it
// includes only the standard library and the word catalogs (plain C++).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/gpu_entry.hpp"
#include "core/words/words.hpp"

namespace cudasync::lock {

// A sentence of this lesson's catalog (lessons/lock/words.json) in the run's language.
inline std::string say(std::string_view key, const words::Args& args = {}) { return words::say("lock", key, args); }

inline constexpr int kWarpSize = 32;
inline constexpr int kMaxBlockThreads = 1024;
inline constexpr int kMaxBlocks = 4096;
inline constexpr int kMaxIters = 100000;
// Acquisitions one launch may make (blocks x threads x iterations): at about 1 us per contended
// handoff, a launch stays within a few seconds.
inline constexpr long long kMaxAcquisitions = 1LL << 22;
// How long one spinner may wait for the lock before it gives up (and the run reports it stuck):
// 1 s, and for big launches 4 us per acquisition, up to 10 s. An unfair lock may keep one waiter
// waiting for most of a launch; a lock that is never released ends every wait at the deadline.
inline constexpr unsigned long long kDefaultDeadlineNs = 1000000000ull;  // 1 s
inline constexpr unsigned long long kMaxDeadlineNs = 10000000000ull;     // 10 s
inline unsigned long long deadline_for(long long acquisitions) {
  const unsigned long long scaled = static_cast<unsigned long long>(acquisitions) * 4000ull;
  return scaled < kDefaultDeadlineNs ? kDefaultDeadlineNs : scaled > kMaxDeadlineNs ? kMaxDeadlineNs : scaled;
}
// All the launches of one part together (stale-reads: runs x blocks x iterations).
inline constexpr long long kMaxPartAcquisitions = 1LL << 23;

// Every kernel of the lesson, one per lock variant.
enum class Variant : int {
  // parts 1 and 3, the lock class as the blog writes it: while (atomicCAS(m, 0, 1) != 0); ...
  // atomicExch(m, 0), no fence, around the blog's first critical section *cnt = *cnt + 1
  book = 0,
  // the same lock around the critical section of the blog's later kernel, atomicAdd(cnt, 1) (fix 1)
  book_atomic_add,
  // part 2: the class with the blog's __threadfence fix, lock() and unlock() as __noinline__
  // functions, called by every lane of the block
  lock_functions,
  // fix 2, the blog's fixed class: __threadfence() after taking the lock and before releasing it.
  // In the benchmark this is "the CAS lock", the baseline of every ratio.
  fenced,
  // fix 3: cuda::atomic_ref, compare_exchange with acquire, store with release
  acq_rel,
  // part 7: the blog's "true thread lock", acquire-work-release inline in one loop iteration
  thread_lock,
  // the benchmark's other locks, each with acquire on lock and release on unlock
  backoff,          // compare_exchange with exponential back-off (__nanosleep) after a failed try
  ticket,           // ticket lock: take a number, wait for it to be served (back-off by distance)
  warp_aggregated,  // one lane per warp takes the lock (acquire / release) and does the warp's updates
  // beyond the blog (part 8 and the benchmark): a combining lock (flat combining, Hendler et al.,
  // SPAA 2010). Each thread publishes a request, fetch-and-add(1), in its own slot; whoever takes the
  // lock serves every published request, writing each answer into its slot.
  combining,
  // test-and-test-and-set: poll the lock word with plain (relaxed) loads, compare_exchange with
  // acquire only when it reads 0; release with a release store. The counter on its own line, or
  // in the lock word's 128-byte line.
  ttas,
  ttas_same_line,
  // part 4, the blog's first remedy for stale reads, "add a delay": the book's lock around
  // *cnt = *cnt + 1 with a wait of RunSpec::delay_ns (a spin on %globaltimer) after the increment,
  // as the blog places it, or after taking the lock, before the load
  delay_after,
  delay_before,
};
inline constexpr int kVariants = 14;
// The combining lock's slot word: 2 bits of state and a 30-bit payload (the request's argument,
// then its answer). Every answer is a counter value below kMaxAcquisitions.
inline constexpr unsigned kSlotPayloadBits = 30;
static_assert(kMaxAcquisitions < (1LL << kSlotPayloadBits));  // a combining answer fits its slot

// One launch: `blocks` x `threads` threads, each acquiring the lock `iters` times.
struct RunSpec {
  Variant variant = Variant::book;
  int blocks = 132;
  int threads = 1;
  int iters = 100;
  unsigned long long deadline_ns = kDefaultDeadlineNs;
  bool start_locked = false;  // tests: the mutex starts taken and nobody releases it
  unsigned delay_ns = 0;      // delay_after, delay_before: the wait inside the critical section
  // false: nothing between taking and releasing (the counter untouched; the combining lock serves
  // its requests without reading or writing it): what the lock's protocol costs by itself, the
  // cost model's handoff. The run's count and answers then mean nothing; only its time is used.
  bool section = true;
  // --bench: after each timed launch, time the same lock with an empty section on the same words
  // (LockRun::handoff_ms): the handoff and the lock measured alike, launch after launch.
  bool handoff_too = false;
  long long threads_total() const { return static_cast<long long>(blocks) * threads; }
  long long acquisitions() const { return threads_total() * iters; }
  // `v` at blocks x threads, `iters` acquisitions each, with the deadline for that many.
  static RunSpec of(Variant v, int blocks, int threads, int iters) {
    RunSpec s;
    s.variant = v;
    s.blocks = blocks;
    s.threads = threads;
    s.iters = iters;
    s.deadline_ns = deadline_for(s.acquisitions());
    return s;
  }
};

// What one launch did. A thread whose spin passed the deadline gave up: it stopped acquiring,
// and its block is listed in `stuck_blocks`. The combining lock also returns what each critical
// section answered (fetch-and-add: the counter before its update), and how often the lock was
// taken; the answers of a correct run are 0 .. expected-1, each exactly once.
struct LockRun {
  long long expected = 0;      // updates the counter must show
  long long count = 0;         // what the counter shows
  long long completed = 0;     // acquisitions that completed (sum over threads)
  long long gave_up = 0;       // threads that gave up at their deadline
  std::vector<int> stuck_blocks;  // blocks with a thread that gave up, ascending
  std::vector<int> stuck_threads; // the first few of those threads (global ids)
  double ms = 0.0;             // the launch, timed with events
  std::optional<double> handoff_ms;  // RunSpec::handoff_too: the empty-section launch after it (none if it gave up)
  long long handoffs = 0;      // combining: times the lock was taken (each a pass over the slots); 0 otherwise
  long long answers_checked = 0;  // combining: answers compared with 0 .. expected-1
  long long answers_bad = 0;      // answers out of range or given twice
  std::string first_bad_answer;   // "answer 17 returned twice (thread 3, request 2)"
  bool timed_out() const { return gave_up > 0; }
  bool exact() const { return !timed_out() && count == expected && answers_bad == 0; }
  long long lost() const { return expected - count; }
};

// Checks fetch-and-add answers (answers[t * iters + i]: thread t's i-th request): each of
// 0 .. answers.size()-1 must appear exactly once. Fills the answers_* fields of `run`
// (combining.cpp).
void check_answers(const std::vector<int>& answers, int iters, LockRun& run);

// Launches `spec` `reps` times (after one warm-up launch when `warmup`), the counter and the lock
// reset before each; one LockRun per launch, each timed with events. Every spin of every kernel
// goes through spin_until (core/cuda/deadline.cuh): a thread that waits past its deadline gives up,
// and the run says which blocks were stuck.
CUDASYNC_GPU_ENTRY(std::vector<LockRun>, gpu_runs, (const RunSpec& spec, int reps, bool warmup))

}  // namespace cudasync::lock

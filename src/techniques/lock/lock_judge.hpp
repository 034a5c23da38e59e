#pragma once
// Verdicts on the lock lesson's launches and model runs: pure functions, tested directly
// (tests/techniques/lock/lock_judge_test.cpp). The part files only show them.
#include <optional>
#include <string>
#include <vector>

#include "techniques/lock/lock_model.hpp"
#include "techniques/lock/lock_ownership_model.hpp"

namespace cudasync::lock {

struct Verdict {
  bool passed = false;
  std::string detail;
};

std::string grid_text(int blocks, int threads);  // "<<<132, 1>>>"
std::string grid_id(int blocks, int threads);    // "132x1": a kebab-case id

// "2 threads gave up at their deadline; blocks still spinning: 17, 40 (completed 13000 of 13200
// acquisitions)"
std::string stuck_text(const LockRun& r);
std::string count_text(long long count, long long expected);  // "320 of 320 (exact)"
double ns_per_acquisition(const LockRun& r);
// The launches' ns per acquisition; launches that timed out are left out (a stuck launch is not a time).
std::vector<double> ns_samples(const std::vector<LockRun>& runs);
bool any_timed_out(const std::vector<LockRun>& runs);

// Passes when every launch completed with its exact count (and, for the combining lock, every answer
// 0 .. n-1 once); the detail names the first launch that did not.
Verdict runs_exact(const std::vector<LockRun>& runs);
// The first launch's problem as "<where>: ..." ("" when every launch is exact): the bench's cells.
std::string first_problem(const std::vector<LockRun>& runs, const std::string& where);

// Updates lost over several launches (expected - count), and how many launches lost any.
struct Lost {
  long long lost = 0, total = 0;
  long long losing = 0;
  bool stuck = false;  // a launch timed out: its count says nothing about stale reads
};
Lost lost_updates(const std::vector<LockRun>& runs);

// "completes in 12 steps, count 8 of 8 (exact)", "deadlock: the state after step 4 is the state
// after step 2", "undecided after 200000 steps".
std::string model_outcome_text(const SimResult& r);

// warp-deadlock: in lockstep the lane that takes the lock waits at the spin loop's exit for the
// lanes still spinning; a warp of one lane has no other lane, so it cannot deadlock.
bool lockstep_deadlocks(int threads);
// The model's lockstep run of lock() / unlock() against that expectation.
Verdict lockstep_verdict(const SimResult& lockstep);

// combining: critical sections per lock handoff of each launch that completed.
std::vector<double> per_handoff(const std::vector<LockRun>& runs);
// Its time per critical section over the CAS lock's time per handoff (medians), when both ran.
std::optional<double> combining_ratio(const std::vector<LockRun>& combining, const std::vector<LockRun>& cas);

// ---- delay-fix ----------------------------------------------------------------------------------
// The blog's delay beside the real fixes: the updates the delayed rows lost together, the longest
// delay that still lost one (0: none lost), and whether every launch of every real fix was exact.
std::string delay_text(unsigned ns);  // "100 ns", "10 us", "1 ms"
std::string delay_id(unsigned ns);    // the same as an id: "100ns", "10us", "1ms"
struct DelayRuns {
  unsigned delay_ns = 0;
  std::vector<LockRun> runs;
};
struct DelayFinding {
  Lost lost;
  unsigned longest_losing = 0;
  bool fixes_exact = false;
};
DelayFinding delay_finding(const std::vector<DelayRuns>& delayed, const std::vector<std::vector<LockRun>>& fixes);
// "with a delay of up to 10 us the book's lock still lost 5200 of 10560 updates; the fences lost
// none", or what a run with no loss means.
std::string delay_verdict(const DelayFinding& f);
// The waiting --part delay-fix would do, in ns: runs x blocks x iterations x every delay, twice
// (after the increment and before the load). Over kMaxDelayWaitNs it is refused.
inline constexpr long long kMaxDelayWaitNs = 4000000000LL;  // 4 s
inline constexpr int kMaxDelayNs = 1000000;                 // 1 ms per critical section
std::optional<std::string> delay_budget_error(const std::vector<int>& delays_ns, int runs, int blocks, int iterations);

// ---- shared-mutex -------------------------------------------------------------------------------
// Every launch counted exactly and nobody gave up.
Verdict shared_mutex_counts(const SharedMutexRun& r);
// The mutex was a device allocation after every launch (nothing freed it while a lock used it).
Verdict shared_mutex_alive(const SharedMutexRun& r);
// ~Mutex ran once, when no CudaKernelLock was left, and its cudaFree succeeded: what the ownership
// model says the fix does.
Verdict shared_mutex_frees_once(const SharedMutexRun& r, const OwnershipRun& model);

// The usage error when one launch of `part` would make more than kMaxAcquisitions acquisitions.
std::optional<std::string> acquisitions_error(const std::string& part, int blocks, int threads, int iterations);
// stale-reads: 4 runs of each variant, fewer when one launch is big (about a million acquisitions
// per variant at most), so that --blocks 132 --iterations 10000 takes seconds, not minutes.
int stale_runs(std::optional<int> runs, int blocks, int iterations);

}  // namespace cudasync::lock

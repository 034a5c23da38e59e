#pragma once
// Verdicts on what the GPU did against what the reference model predicts, and on the fixes: pure
// functions of the records, tested directly (tests/techniques/deadlock_demo/deadlock_demo_judge_test
// .cpp). The parts only show them.
#include <string>
#include <vector>

#include "techniques/deadlock_demo/deadlock_demo.hpp"
#include "techniques/deadlock_demo/deadlock_demo_child.hpp"
#include "techniques/deadlock_demo/deadlock_demo_graph.hpp"
#include "techniques/deadlock_demo/deadlock_demo_model.hpp"

namespace cudasync::deadlock_demo {

struct Verdict {
  bool passed = false;
  std::string detail;
};

// The GPU's records and the model's, folded into ranges by the same `describe`, range by range:
// "blocks 0-1055 spun on the counter at 1056/2112; ..." or "GPU: ... | model: ...".
Verdict stuck_agreement(const std::vector<Record>& gpu, const std::vector<Record>& model, const Describe& describe,
                        const std::string& noun);

// The deadlock ended by its deadline and every block or lane said where it was: every record was
// written (nobody "never started"), some waiter gave up, and the kernel's timed-out flag is set.
// "2 blocks gave up; the last at 50.012 ms (deadline 50 ms)".
Verdict ended_at_deadline(const std::vector<Record>& records, bool timed_out, int deadline_ms, const std::string& noun);

// What a run that must complete says when a waiter reached --deadline-ms instead: a correct kernel
// slowed down (compute-sanitizer, a GPU shared with other work) needs a longer deadline. Keys of the
// lesson's catalog: say(kGaveUpAtDeadline).
inline constexpr const char* kGaveUpAtDeadline = "judge.block-gave-up-at-deadline";
inline constexpr const char* kLaneGaveUpAtDeadline = "judge.lane-gave-up-at-deadline";

// A launch that must complete did, with its result checked: the result, or "a block gave up".
Verdict completed(const GridRun& run);
// cudaLaunchCooperativeKernel with a grid that cannot be resident: refused with
// cudaErrorCooperativeLaunchTooLarge (720), and no block ran.
Verdict cooperative_refused(const CoopRun& c);
// With a grid that fits: launched, completed, result right.
Verdict cooperative_completed(const CoopRun& c);
// What the cooperative launch did, in words: "ran: <result>" or "<name> (<code>): <text>".
std::string cooperative_outcome(const CoopRun& c);

// The model's own checks: a predicted deadlock has a cycle in its wait-for graph; the fix completes.
Verdict model_cycle(const ScenarioModel& m);

// warp-spinlock on the GPU: no lane gave up and the counter is every lane's every acquisition.
Verdict lock_count_exact(const LaneRun& run);
// lock-order's fix: both counters (each guarded by both locks) hold every round of both blocks.
Verdict fix_counts_exact(const LockOrderRun& run);

// producer-before-consumer's fix: how many blocks drew the ticket equal to their hardware index
// (the order in which this GPU started the blocks).
int tickets_in_order(const std::vector<int>& tickets);

// A barrier case: did this GPU do what the barrier as specified would do (the model's records)?
bool as_specified(const BarrierObservation& seen, const ScenarioModel& model, const Describe& describe);
// The child ended by itself (it answered, or its kernel stopped with an error), not by this
// process's timeout.
Verdict child_ended(const ChildOutcome& c);

}  // namespace cudasync::deadlock_demo

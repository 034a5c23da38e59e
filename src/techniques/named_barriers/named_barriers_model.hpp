#pragma once
// The reference model: what the PTX ISA ("bar, barrier") says a block's hardware barriers do, as
// a barrier-phase simulation with arrival counts per barrier id, plus the predicate reductions of
// bar.red. The GPU is checked against it.
//
// The rules simulated: each of the 16 barriers counts arrivals; a warp arrives as a whole (32
// threads) at bar.sync, bar.red or bar.arrive; bar.sync and bar.red wait, bar.arrive does not.
// When the arrivals reach the barrier's thread count (all threads of the CTA when no count is
// given), the phase completes, the waiting warps go on, and the barrier starts a new phase.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "techniques/named_barriers/named_barriers.hpp"

namespace cudasync::named_barriers {

enum class StepKind { sync, arrive, red };
struct Step {
  StepKind kind = StepKind::sync;
  int id = 0;
  int count = 0;  // threads; 0 = all threads of the CTA
};
using WarpProgram = std::vector<Step>;

// How a count that is not a multiple of 32 is read. The PTX ISA requires a multiple of the warp
// size and defines nothing else; the misuse part shows which of the two readings a GPU follows.
enum class CountRule { exact, round_up, round_down };
std::string to_string(CountRule r);  // in the run's language
// Threads a phase needs: `count` (0: the CTA, in whole warps) under `rule`.
int needed_threads(int count, int cta_threads, CountRule rule);

struct Phase {
  int id = 0;
  int index = 0;              // 0, 1, ... per barrier id
  int needed_threads = 0;
  std::vector<int> warps;     // in arrival order
  std::vector<int> waited;    // the ones that waited (bar.sync / bar.red); the rest used bar.arrive
};
struct StuckWarp {
  int warp = 0;
  int id = 0;
  int arrived_threads = 0;    // in the phase the warp waits in
  int needed_threads = 0;
};
struct Simulation {
  std::vector<Phase> phases;                // completed, in completion order
  std::array<int, kBarrierCount> completed{};  // phases completed per barrier id
  std::vector<StuckWarp> stuck;             // warps that would wait forever: empty when the block finishes
  std::vector<std::string> hazards;         // what the PTX ISA leaves undefined, seen on the way
  bool finishes() const { return stuck.empty() && hazards.empty(); }
  std::vector<const Phase*> phases_of(int id) const;
};

// Runs the warps round-robin, one step each, until all are done or none can move.
Simulation simulate(const std::vector<WarpProgram>& warps, int cta_threads, CountRule rule = CountRule::exact);

// The programs of the lesson's parts.
std::vector<WarpProgram> groups_program(const GroupsSpec& spec);
std::vector<WarpProgram> pc_program(const PcSpec& spec);
// The waiting warps of a misuse case alone (without the rescue warps).
std::vector<WarpProgram> misuse_program(const MisuseCase& c, int id);

// bar.red / __syncthreads_{count,and,or}: one result for the whole block.
struct RedTotals {
  std::int32_t count = 0;  // threads whose predicate is non-zero
  std::int32_t all = 0;    // 1 if every thread's is
  std::int32_t any = 0;    // 1 if some thread's is
};
RedTotals model_red(const std::vector<std::int32_t>& predicate);

// What each consumer read: consumed[round * producers + slot] = input[round * producers + slot].
std::vector<std::int32_t> model_consumed(const PcSpec& spec);
// Which consumer thread reads slot `slot`: slot % consumers (a consumer past the last slot reads none).
inline int reader_of(int slot, int consumers) { return slot % consumers; }

// A misuse run as the model predicts it under `rule`: phases (sizes, in warps) in arrival order,
// and how many rescue arrivals (32 threads each) release every stuck warp.
struct MisusePrediction {
  CountRule rule = CountRule::exact;
  std::vector<int> phase_sizes;  // warps released together, in the order the phases complete
  int rescues = 0;               // bar.arrive of the rescue warps needed to release the rest
  bool hangs_without_rescue() const { return rescues > 0; }
};
MisusePrediction predict_misuse(const MisuseCase& c, CountRule rule);

}  // namespace cudasync::named_barriers

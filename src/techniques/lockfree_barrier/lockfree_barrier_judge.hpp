#pragma once
// Verdicts on a barrier's run: the model's step simulation, the GPU's values and words against the
// model, who arrived and who never did past co-residency, and the bench's deadline. Pure functions,
// tested directly (tests/techniques/lockfree_barrier/lockfree_barrier_judge_test.cpp); the parts
// only show them.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "techniques/lockfree_barrier/lockfree_barrier.hpp"
#include "techniques/lockfree_barrier/lockfree_barrier_step_model.hpp"

namespace cudasync::lockfree_barrier {

// How the step simulation ended: "completed in 7 steps", "deadlock at step 4; block 0 passed
// barrier 1 before every block had arrived".
std::string sim_outcome(const SimResult& m);
// The same as an id, what an exercise reads beside the words: "completes", "deadlocks" or "stops"
// (the simulation ran out of steps first).
const char* sim_outcome_id(const SimResult& m);
// Every block passed every barrier, and none before every block had arrived.
bool sim_passes(const SimResult& m);

// The GPU's final values against the model's.
struct ValuesVerdict {
  std::size_t compared = 0;
  std::size_t wrong = 0;
  std::size_t first_wrong = 0;  // index of the first wrong value
  bool passed() const { return compared > 0 && wrong == 0; }
  // "every value equal", or "3 differ, the first at block 1, thread 5".
  std::string detail(int threads) const;
};
// Nothing is compared when the sizes differ (or the model has no values).
ValuesVerdict judge_values(const std::vector<std::uint32_t>& gpu, const std::vector<std::uint32_t>& model);

// What the protocol's words hold, in a few words: "g_mutex 1980", "Arrayin all 15, Arrayout
// 0..15", "counters 990 990"; "-" when there are none.
std::string words_text(Barrier b, const std::vector<std::uint32_t>& words, int blocks);

// Who reached barrier 1 on the GPU, who never did, and who gave up at the deadline.
struct Arrivals {
  std::vector<int> arrived, never, gave_up;
  // Past co-residency: the deadline ended the kernel and the blocks that never arrived are named.
  bool deadline_ended(const GpuRun& g, int blocks) const;
};
Arrivals arrivals(const GpuRun& g);

// The GPU column of the summary: "refused" (by the runtime), "deadline" (a spin gave up, or the
// grid was past co-residency) or "ran".
std::string gpu_status(const GpuRun& g, bool beyond);

// The bench's cells whose kernel reached its deadline ("own @ 1056 blocks"): a spin gave up, so the
// figure of that cell is not a barrier's.
struct BenchDeadlines {
  std::vector<std::string> hit;
  bool passed() const { return hit.empty(); }
  std::string detail() const;
};

}  // namespace cudasync::lockfree_barrier

#pragma once
// The warp-primitives lesson as core runs it: its inputs and options, what one run shares between
// parts, its part table (lesson.cpp), and per topic the reference model, the judges and the parts
// (shuffles.cpp, votes.cpp, reduction.cpp, divergence.cpp). The model says what CUDA's
// documentation says each warp function returns, lane by lane (CUDA C++ Programming Guide, "Warp
// Shuffle/Vote/Match/Reduce Functions"; PTX ISA, shfl.sync); the GPU is checked against it.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/course/exercise.hpp"
#include "core/number_list.hpp"
#include "core/parts/lesson.hpp"
#include "core/report/observation.hpp"
#include "core/thread_predicate.hpp"
#include "core/words/words.hpp"
#include "techniques/warp_primitives/warp.hpp"

namespace cudasync::warp_primitives {

// A sentence of this lesson's catalog (lessons/warp-primitives/words.json) in the run's language.
inline std::string say(std::string_view key, const words::Args& args = {}) {
  return words::say("warp-primitives", key, args);
}

// ---------------------------------------------------------------- inputs (lesson.cpp)

// "even", "odd", "true", "false", "random" (seeded), or "lane<K", "lane<=K", "lane>K",
// "lane>=K", "lane==K", "lane!=K" with 0 <= K <= 32 (core/thread_predicate, lane only).
using Predicate = ThreadPredicate;
std::optional<Predicate> parse_predicate(const std::string& text);
Lanes evaluate(const Predicate& p, std::uint64_t seed);  // 0/1 per lane
inline const char* kPredicateForms = "even, odd, true, false, random, or lane<K, lane<=K, lane>K, lane>=K, lane==K, lane!=K";

// "lane%K", "lane/K", "lane&K" (K >= 1) or a constant "K": the value __match_*_sync compares.
struct Key {
  enum class Kind { mod, div, bit_and, constant } kind = Kind::mod;
  int k = 4;
  std::string text;
};
std::optional<Key> parse_key(const std::string& text);
Lanes evaluate(const Key& k);
inline const char* kKeyForms = "lane%K, lane/K, lane&K (K >= 1), or a constant K";

// "tid": each lane passes its thread index, as in Fan's example; "random": values 0..99 drawn from --seed.
enum class ValueKind { tid, random };
Lanes make_values(ValueKind kind, std::uint64_t seed);

using cudasync::parse_mask;  // core/number_list.hpp: --mask, hex or decimal, 32 bits

struct Options {
  int width = 32;
  int delta = 1;      // Fan's shfl_up / shfl_down
  int lane_mask = 1;  // Fan's shfl_xor
  int src_lane = 2;
  std::string mask = "0xffffffff";
  int threads = 32;
  std::string predicate = "even";
  std::string key = "lane%4";
  std::string values = "tid";
  std::vector<std::string> variants;  // empty: all three
};

struct Inputs {
  WarpSetup warp;
  int width = 32;
  int delta = 1;
  int lane_mask = 1;
  int src_lane = 2;
  Predicate predicate;
  Key key;
  ValueKind value_kind = ValueKind::tid;
  Lanes values{};
  std::vector<SyncwarpVariant> variants;
};

// One run's shared state: the inputs, and the GPU's vote and reduce results, each one launch
// read by several parts.
struct Run {
  Run(const Options& o, const RunContext& run_ctx, const parts::Selection& selection);
  const RunContext& ctx;
  Inputs in;
  VoteSpec vote;
  std::optional<VoteLanes> gpu_votes;    // filled by the first vote part on a GPU
  std::optional<ReduceLanes> gpu_reduce;  // filled by the first reduce part on a GPU
};

const parts::Lesson<Options, Run>& lesson();

// A check's detail from the lanes an Agreement compared: "32 of 32 compared lanes agree" or
// "lanes 3, 5 differ".
std::string lanes_detail(const report::Agreement& a);

// ---------------------------------------------------------------- shuffles (shuffles.cpp)

enum class LaneOutcome {
  received,          // got the source lane's value
  kept_own,          // source outside the lane's width segment: returns its own var
  inactive,          // did not call: no value
  undefined_source,  // source lane did not take part: CUDA leaves the value undefined
};

struct ShuffleLane {
  int segment_lane = 0;  // lane index within its width segment (Fan's lane_id = tid % w)
  int source = 0;        // the lane read from (the lane itself when kept_own)
  LaneOutcome outcome = LaneOutcome::inactive;
  std::int32_t value = 0;  // meaningful for received and kept_own
  bool defined() const { return outcome == LaneOutcome::received || outcome == LaneOutcome::kept_own; }
};

// Worked example (Fan's setup, 10.3): width 8, shfl_down delta 1, values = lane: lanes 0-6 of each
// segment receive lanes 1-7, lane 7 keeps its own value; lane 5 receives 6.
std::array<ShuffleLane, kWarpSize> model_shuffle(const ShuffleSpec& spec);
// Fan 10.3: the long long and double each lane receives from __shfl_down_sync (see wide_long_long
// and wide_double); lanes without a defined value hold 0 (the judge compares only defined lanes).
Shuffle64Lanes model_shuffle64(const ShuffleSpec& spec);
// Fan 10.4: ranks and sizes of g32 = tiled_partition(block, 32) and g4 = tiled_partition(g32, 4),
// and a thread_block_tile<4>'s shfl_down(v, 1), any, all and ballot. A tile's ballot numbers its
// bits by rank in the tile: lanes 4-7 with predicates 1, 0, 1, 1 give 0b1101 = 13 in each of them.
TileLanes model_tiles(const Lanes& values, const Lanes& predicate);

// A lane that did not call must not have been written (it keeps kPoison); one with a defined value
// must hold it; one whose source lane did not call may hold anything (CUDA leaves it undefined).
//   shuffle_lane_agrees(kept_own lane holding 5, 5) == true
bool shuffle_lane_agrees(const ShuffleLane& model, std::int32_t gpu);
// The same for the long long and the double of lane l (compared bit for bit); a lane that did not
// call must keep the 0xAB poison bytes in both.
bool shuffle64_lane_agrees(const ShuffleLane& lane, const Shuffle64Lanes& model, const Shuffle64Lanes& gpu,
                           std::size_t l);
// Notes lane `lane` on `a` and returns its row's mark: its outcome's mark (kept-own, undefined-src,
// inactive), or mismatch where the GPU disagreed. A lane whose source did not call is not compared.
report::RowMark note_lane(report::Agreement& a, int lane, const ShuffleLane& model, bool agrees);
// Fan 10.4: every field of every lane equal (ranks, sizes, shfl_down, any, all, ballot).
report::Agreement judge_tiles(const TileLanes& model, const TileLanes& gpu);
// How many SHFL instructions a kernel's warp-level SASS holds (core/kernel_listing: KernelCode::warp).
int shfl_count(const std::vector<std::string>& warp_instructions);

report::Section shuffle_part(Run& run, ShuffleOp op);  // shfl, shfl-up, shfl-down, shfl-xor
report::Section shfl64_part(Run& run);                 // shfl-64
report::Section cg_tiles_part(Run& run);               // cg-tiles

// ---------------------------------------------------------------- votes (votes.cpp)

// The GPU may legitimately return a subset of the converged lanes for __activemask (the guide
// promises only "currently active" threads); the model gives the lanes that took the branch.
VoteLanes model_votes(const VoteSpec& spec);
ReduceLanes model_reduce(const VoteSpec& spec);
// __activemask may return any subset of the calling lanes that holds the lane itself; every other
// op ("ballot", "all", "any", "match-any", "match-all") must equal the model exactly, match-all's
// pred included.
bool vote_lane_agrees(const std::string& op, const VoteLanes& model, const VoteLanes& gpu, const WarpSetup& warp,
                      int lane);

report::Section vote_part(Run& run, const std::string& op);    // ballot, all, any, activemask, match-*
report::Section reduce_part(Run& run, const std::string& op);  // reduce-add, reduce-min, reduce-max

// ---------------------------------------------------------------- reduction (reduction.cpp)

const char* variant_name(SyncwarpVariant v);
// The guarded and register variants have one outcome; so does the racy one if a warp runs in
// lockstep (every lane reads before any lane writes, as a converged warp does).
SharedWords model_syncwarp(const Lanes& values, SyncwarpVariant variant);
// The racy variant when lanes run one at a time from lane 31 down to lane 0, an order independent
// thread scheduling allows: lane 8 adds s[16] into s[8] before lane 0 reads s[8].
SharedWords model_syncwarp_racy_descending(const Lanes& values);
ReductionTrace model_reduction_trace(const Lanes& values, ShuffleOp op);  // op: down or bfly
// The indices where two shared-memory images differ.
std::vector<int> differing_words(const SharedWords& a, const SharedWords& b);

report::Section syncwarp_part(Run& run);
report::Section warp_reduce_part(Run& run);
report::Section cost_part(Run& run);

// ---------------------------------------------------------------- divergence (divergence.cpp)

// Fan 10.1: the case thread `thread` of the block takes: its warp (threadIdx.x / 32) or its lane
// (threadIdx.x % 32).
int divergence_case(SwitchOn on, int thread);
// What case `c` computes for `thread`: x = thread, then `iterations` times x = 3x + c (mod 2^32).
std::uint32_t case_work(int c, int thread, int iterations);
// One step of a warp: the lanes that run case `case_id` together, while the others wait.
struct PathStep {
  int warp = 0;
  int case_id = 0;
  std::uint32_t lanes = 0;
};
// Every warp's steps, warp by warp, each warp's cases in case order (the hardware may take them
// in another order; each step's lanes are what the model promises):
//   model_paths(SwitchOn::warp): 4 steps, warp w runs case w with lanes 0xffffffff;
//   model_paths(SwitchOn::lane): 128 steps, warp w runs case k with lane k alone (1 << k).
std::vector<PathStep> model_paths(SwitchOn on);
// The lanes of thread `thread`'s warp that take its case (its step's lanes).
std::uint32_t path_lanes(SwitchOn on, int thread);

// Each thread's __activemask() inside its case must hold the thread itself and only lanes of its
// warp that take the same case (the hardware may run fewer together, never others).
report::Agreement judge_paths(SwitchOn on, const BlockMasks& gpu);
// Each thread computed its own case's work: case_work(its case, thread, iterations).
report::Agreement judge_case_results(SwitchOn on, int iterations, const BlockValues& gpu);
// The median cycles of the per-lane switch over those of the per-warp switch; 0 when either has no
// samples. 32 paths of the same length: near 32 when nothing else dominates.
double divergence_ratio(const std::vector<double>& warp_switch, const std::vector<double>& lane_switch);
// What the check asks: the lane switch costs at least this many times the warp switch.
inline constexpr double kSerialisedAtLeast = 8.0;

report::Section divergence_part(Run& run);

// warp-primitives' place in the course: its tour stop and its exercises, from
// lessons/warp-primitives/lesson.json (core/course/manifest.hpp); its kernel exercises are rows
// there too (core/course/kernel_check.hpp).
const course::LessonCourse& course();  // lesson.cpp

}  // namespace cudasync::warp_primitives

#pragma once
// The named-barriers lesson as core runs it: its options, what one run shares between parts, and
// its part table. Each part function is defined in the file named after it.
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/child_process.hpp"
#include "core/kernel_listing.hpp"
#include "core/parts/lesson.hpp"
#include "core/words/words.hpp"
#include "techniques/named_barriers/named_barriers_inputs.hpp"
#include "techniques/named_barriers/named_barriers_misuse_child.hpp"
#include "techniques/named_barriers/named_barriers_model.hpp"

namespace cudasync::named_barriers {

// A sentence of this lesson's catalog (lessons/named-barriers/words.json) in the run's language.
inline std::string say(std::string_view key, const words::Args& args = {}) {
  return words::say("named-barriers", key, args);
}

struct Options {
  std::vector<int> barrier_ids = {1, 2};
  std::vector<int> groups = {64, 128};
  int phases = 4;
  int producers = 32;
  int consumers = 32;
  int rounds = 4;
  bool trace = false;
  std::vector<std::string> predicates;  // empty: kDefaultPredicates
  int threads = 256;                    // the bar-red block
  std::optional<int> count;             // misuse: the bad count (default: two cases)
  std::optional<int> arrive;            // misuse: threads that arrive
};

// The usage error of options that CLI11 cannot judge alone (a pair of ids, the threads of a block,
// a misuse case the rescue warps cannot release), or nullopt. The arithmetic is 64-bit: a block's
// thread count is never an int that overflowed.
std::optional<std::string> usage_error(const Options& o);

struct Inputs {
  GroupsSpec groups;
  PcSpec pc;
  int red_threads = 256;
  int red_id = 1;
  std::vector<Predicate> predicates;
  std::vector<MisuseCase> misuse;
  int misuse_id = 1;
  bool trace = false;
};
Inputs resolve(const Options& o, std::uint64_t seed);

// One misuse case's child process, started before the first part so it runs beside the others.
struct MisuseChild {
  MisuseCase c;
  std::unique_ptr<ChildProcess> process;  // null when it could not be started
  std::string start_error;
};

// Whether this run starts the misuse children: a GPU run that selected the part, never a child.
bool starts_misuse_children(const parts::Selection& selection, const RunContext& ctx);

struct Run {
  Run(const Options& o, const RunContext& run_ctx, const parts::Selection& selection);
  const RunContext& ctx;
  Inputs in;
  std::vector<MisuseChild> misuse_children;  // filled on a GPU when the misuse part runs
};

const parts::Lesson<Options, Run>& lesson();
// --predict: the parts whose outcome a student predicts before the run (named_barriers_prediction.cpp).
std::vector<parts::Prediction> predictions();

// The parts, one file each (named_barriers_<part>.cpp).
report::Section bar_sync_part(Run& run);
report::Section early_stamp_part(Run& run);
report::Section producer_consumer_part(Run& run);
report::Section bar_red_part(Run& run);
report::Section cuda_barrier_part(Run& run);
report::Section listing_part(Run& run);
report::Section misuse_part(Run& run);
report::Section cost_part(Run& run);
// The misuse part's child: one case on the GPU, its one-line answer.
std::string misuse_child(Run& run);

// The sections of two parts from what they were given, for tests with made-up inputs: the listing
// of `arch` ("sm_90"; "" for none), and the misuse cases with the children's outcomes (nullopt:
// no child ran it).
report::Section listing_section(const KernelListing& listing, const std::string& arch);
report::Section misuse_section(const std::vector<MisuseCase>& cases, int barrier,
                               const std::vector<std::optional<MisuseOutcome>>& gpu, bool gpu_run);
// early-stamp from the stamps of each barrier kind a GPU ran (none: no GPU).
report::Section early_stamp_section(const StampSpec& spec, const std::vector<std::pair<StampBarrier, StampResult>>& gpu,
                                    bool gpu_run);

// Shared by bar-sync and producer-consumer (named_barriers_bar_sync.cpp).
std::string role_range(int first_thread, int threads);  // "threads 0-63, warps 0-1"
report::Table phase_table(const std::string& title);     // table "phases": the model's barrier phases
std::vector<std::pair<std::string, report::Value>> phase_cells(const Phase& p);  // one row of it
// Check "model-finishes": the model's run of `what` ends with no warp left waiting.
void check_model_finishes(report::Section& s, const Simulation& sim, const std::string& what);

// Shared by the two producer/consumer parts (named_barriers_producer_consumer.cpp): the rounds
// table and its agreement check, and what a GPU's stamps show (with --trace, every stamp).
struct PcNames {
  std::string arrive;      // the producers' signal on full: "bar.arrive 1" or "full.arrive()"
  std::string full_wait;   // the consumers' wait on full
  std::string empty_wait;  // the producers' wait on empty
};
void add_rounds(report::Section& s, const PcSpec& spec, const std::optional<PcResult>& gpu);
void add_pc_timing(report::Section& s, const PcSpec& spec, const PcResult& r, bool trace, const PcNames& names);

}  // namespace cudasync::named_barriers

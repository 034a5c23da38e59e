#pragma once
// The named-barriers lesson as core runs it: its options and inputs, what one run shares between
// parts, its part table and its course; the misuse part's child protocol. The parts live in their
// topic's file (phases.cpp, early_stamp.cpp, misuse.cpp, listing.cpp, cost.cpp).
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/child_process.hpp"
#include "core/course/exercise.hpp"
#include "core/kernel_listing.hpp"
#include "core/parts/lesson.hpp"
#include "core/thread_predicate.hpp"
#include "core/words/words.hpp"
#include "techniques/named_barriers/barriers.hpp"

namespace cudasync::named_barriers {

// A sentence of this lesson's catalog (lessons/named-barriers/words.json) in the run's language.
inline std::string say(std::string_view key, const words::Args& args = {}) {
  return words::say("named-barriers", key, args);
}

// What a student chooses on the command line: the predicates of bar.red, the producers' values.
// "even", "odd", "true", "false", "random" (seeded), or VAR OP K with VAR one of lane (tid % 32),
// warp (tid / 32) or tid, OP one of < <= > >= == !=, and 0 <= K <= 1024.
// (core/thread_predicate, every variable; in words: predicate.forms.)
using Predicate = ThreadPredicate;
std::optional<Predicate> parse_predicate(const std::string& text);
std::vector<std::int32_t> evaluate(const Predicate& p, int threads, std::uint64_t seed);  // 0/1 per thread
// The predicates the bar-red part runs when --predicate is not given.
inline const std::vector<std::string> kDefaultPredicates = {"lane<5", "tid<100", "even", "true", "false", "random"};

// The producers' values: rounds * producers seeded numbers 0..9999.
std::vector<std::int32_t> make_input(int rounds, int producers, std::uint64_t seed);

// A comma-separated list of whole numbers that fit an int, every item present: "1,2" and "7", not
// "1,,2", "1,", "" or "1,x" (nullopt). CLI11's delimiter drops empty items; this does not.
std::optional<std::vector<int>> parse_int_list(const std::string& text);

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

// The misuse part runs in a child process: the parent starts this same binary in the lesson's
// child mode "misuse" (core/parts/child.hpp: `named-barriers --child misuse --child-out FILE
// --count C --arrive T --barrier-ids ID,X ...`), the child runs one misuse kernel and writes one
// line to FILE, and the parent waits for it with a host-side timeout. Whatever a bad count does
// to the hardware (wait, trap, hang), it happens to the child's CUDA context, never the parent's.
// Below: the part's protocol, the child's arguments and answer (misuse.cpp).
struct MisuseOutcome {
  enum class Status { ok, cuda_error, timeout, crashed };
  MisuseCase c;
  Status status = Status::crashed;
  std::string message;     // the CUDA error, the signal, or what the child printed on stderr
  MisuseObservation seen;  // when ok
  double seconds = 0.0;    // wall time of the child, CUDA start-up included
};
const char* to_string(MisuseOutcome::Status s);

// The lesson's arguments of the child that runs case `c` on barrier `id` (core adds the child
// mode, the answer file, device, seed and backend): "--count 48 --arrive 64 --barrier-ids 1,2".
// --barrier-ids takes two distinct ids; the child uses the first.
std::vector<std::string> misuse_child_args(const MisuseCase& c, int id);

// The one line a child writes: "ok count=48 arrive=64 arrive_ns=0,20004 leave_ns=20010,20011 rescue_ns="
// or "cuda_error <message>".
std::string format_observation(const MisuseObservation& o);
std::string format_cuda_error(const std::string& message);
// Parses the child's file into `out` (status ok or cuda_error); false when the text is neither.
bool parse_child_output(const std::string& text, MisuseOutcome& out);

// What the parent makes of a finished child of case `c`: its answer, a timeout (the parent
// killed it), or a crash (any other end, with the child's stderr).
MisuseOutcome misuse_outcome(const MisuseCase& c, const ChildResult& r);

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
// Its place in the course: lessons/named-barriers/lesson.json declares every exercise, and each reads
// its answer by id from a run of the lesson; none needs code.
const course::LessonCourse& course();

// The parts.
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

// The two producer/consumer parts' rounds table and its agreement check, and what a GPU's stamps
// show (with --trace, every stamp).
struct PcNames {
  std::string arrive;      // the producers' signal on full: "bar.arrive 1" or "full.arrive()"
  std::string full_wait;   // the consumers' wait on full
  std::string empty_wait;  // the producers' wait on empty
};
void add_rounds(report::Section& s, const PcSpec& spec, const std::optional<PcResult>& gpu);
void add_pc_timing(report::Section& s, const PcSpec& spec, const PcResult& r, bool trace, const PcNames& names);

}  // namespace cudasync::named_barriers

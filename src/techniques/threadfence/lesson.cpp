// threadfence: options, validation, the setup section, the part table, --predict and the course.
#include "techniques/threadfence/lesson.hpp"

#include <algorithm>

#include <CLI/CLI.hpp>

#include "core/cli/option_checks.hpp"
#include "core/course/exercise_texts.hpp"
#include "core/number_list.hpp"

namespace cudasync::threadfence {

namespace {

using I = std::int64_t;

const std::vector<std::string> kAccessNames = {"plain", "volatile"};
const std::vector<std::string> kPlacementNames = {"different-blocks", "same-block"};

bool has(const std::vector<std::string>& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); }

std::string list_text(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

// "0 instances: ..." for a value out of 1..kMaxIterations or not a whole number.
std::optional<std::string> iterations_error(const std::string& text) {
  const auto v = whole_number(text);
  if (!v) return "'" + text + "' is not a whole number of instances; give 1.." + std::to_string(kMaxIterations);
  if (*v < 1 || *v > kMaxIterations)
    return text + " instances: give 1.." + std::to_string(kMaxIterations) +
           " per litmus row (each row runs at least this many, in whole rounds)";
  return std::nullopt;
}

// Checks that need more than one option (CLI11 checks each alone).
std::optional<std::string> validate(const Options& o, const parts::Selection&, const RunContext&) {
  if (o.fence.size() > 2)
    return "--fence " + list_text(o.fence) + ": " + std::to_string(o.fence.size()) +
           " fences; accepted: one fence for both sides or two (side 0,side 1), e.g. --fence device,none";
  if (o.fence.size() == 2 && (o.tests.empty() || has(o.tests, "corr"))) {
    LitmusSpec corr;
    corr.test = Test::corr;
    corr.fence[0] = parse_fence(o.fence[0]).value_or(Fence::none);
    corr.fence[1] = parse_fence(o.fence[1]).value_or(Fence::none);
    if (!meaningful(corr))
      return "--fence " + o.fence[0] + "," + o.fence[1] + " with corr" +
             std::string(o.tests.empty() ? " (every test runs without --test)" : "") +
             ": side 0 of corr is a single store, and a fence before it has nothing to order; accepted: corr's "
             "reader's fence alone (--test corr --fence " + o.fence[1] + ", or none," + o.fence[1] +
             "), or corr left out with --test";
  }
  return std::nullopt;
}

void add_options(CLI::App& sub, Options& o) {
  const auto member = [](const std::string& what, const std::vector<std::string>& names) {
    return [what, names](const std::string& s) {
      return has(names, s) ? std::string() : "unknown " + what + " '" + s + "'; accepted: " + list_text(names);
    };
  };
  sub.add_option("--test", o.tests, "litmus: tests, comma-separated (default all): " + list_text(kTestNames))
      ->delimiter(',')
      ->check(member("test", kTestNames));
  sub.add_option("--fence", o.fence,
                 "litmus: one fence for both sides, or two (side 0,side 1); default: each on both sides. none, block "
                 "(__threadfence_block), device (__threadfence), system (__threadfence_system), rel-acq "
                 "(cuda::atomic_ref release/acquire). For corr one name is the reader's fence; its writer takes none "
                 "or rel-acq")
      ->delimiter(',')
      ->expected(1, 2)
      ->check(member("fence", kFenceNames));
  sub.add_option("--access", o.access,
                 "litmus: plain (ld.global/st.global, default) or volatile (ld.volatile/st.volatile)")
      ->check(member("access", kAccessNames));
  sub.add_option("--placement", o.placement,
                 "litmus: the two sides in different-blocks (default) or in the two halves of one block (same-block)")
      ->check(member("placement", kPlacementNames));
  sub.add_option("--iterations", o.iterations,
                 "Instances per litmus row (litmus, scope, volatile), 1.." + std::to_string(kMaxIterations) +
                     " (default " + std::to_string(kDefaultIterations) + ", --bench " + std::to_string(kBenchIterations) +
                     "); rounded up to whole rounds of the GPU")
      ->check(cli::ranged_check(1, kMaxIterations, [](const std::string& s) { return iterations_error(s).value_or(""); }));
}

void setup(Run& run, report::Section& s) {
  s.title = say("setup.title");
  s.paragraph(say("setup.about"));
  s.fact("iterations", say("setup.iterations"), I{run.iterations}, report::Format::count, say("setup.iterations-note"));
  s.fact("seed", say("setup.seed"), static_cast<I>(run.ctx.seed), report::Format::plain, say("setup.seed-note"));
  if (!run.ctx.gpu) s.note(say("setup.no-gpu"));
}

// --predict: the litmus test, where intuition about fences fails most often.
std::vector<parts::Prediction> predictions() {
  return {{"litmus",
           "The litmus test of this run (its first row: --test and --fence, by default mp with no fence, the "
           "writer and the reader in two blocks): will this GPU show the weak outcome at least once (for mp: "
           "the reader sees the flag and still reads the old data)?",
           {"yes", "no"},
           [](const report::Section& s) { return parts::weak_outcome_truth(s, "outcomes", "threadfence"); }}};
}

}  // namespace

Run::Run(const Options& o, const RunContext& run_ctx, const parts::Selection& selection)
    : ctx(run_ctx),
      options(o),
      iterations(o.iterations.value_or(run_ctx.bench ? kBenchIterations : kDefaultIterations)),
      child_out(selection.child_out) {}

const parts::Lesson<Options, Run>& lesson() {
  const std::vector<std::string> litmus_reads = {"--test", "--fence", "--access", "--placement", "--iterations"};
  static const parts::Lesson<Options, Run> table{
      "threadfence",
      "threadfence: what a fence orders, in litmus tests, in PTX, and in real patterns",
      "fences in litmus tests, down to PTX, and the patterns that need them",
      {
          {"litmus", "litmus tests", "mp, sb, lb, corr per fence: PTX allows, the GPU shows",
           litmus_reads, false, false, true, litmus_part},
          {"scope", "scopes", "__threadfence_block() inside one block and across two", {"--iterations"}, false, false,
           true, scope_part},
          {"volatile", "volatile", "volatile orders nothing; a plain-load wait may never end", {"--iterations"},
           false, false, true, volatile_part},
          {"ptx", "PTX and SASS", "what each fence and atomic compiles to",
           {}, false, false, false, ptx_part},
          {"cost", "cost", "ns per fence, beside a store and an L2 round trip", {}, true, false, true, cost_part},
          {"last-block", "lastBlock", "the last block merges: 2 right, 2 broken guards",
           {}, true, false, true, last_block_part},
          {"work-queue", "WorkQueue", "items fetched with atomicAdd, against a fixed assignment", {}, false, false, true,
           work_queue_part},
          {"work-queue-race", "WorkQueue race", "no __syncthreads() between two fetch(): shares lost", {}, false,
           false, true, work_queue_race_part},
          {"last-block-partial", "lastBlock, some threads", "guard skipped or in thread 0 only", {}, false, true,
           false, last_block_partial_part},
          {"host-observer", "host observer", "a CPU thread reads what the GPU wrote behind a flag", {}, false, false,
           true, host_observer_part},
      },
      add_options,
      validate,
      setup,
      {},
      std::nullopt,
      {{"last-block-divergent", last_block_divergent_child}},
      predictions()};
  return table;
}

const course::LessonCourse& course() {
  static const course::LessonCourse c = course::lesson_course("threadfence");
  return c;
}

}  // namespace cudasync::threadfence

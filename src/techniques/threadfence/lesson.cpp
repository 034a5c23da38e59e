// threadfence: options, validation, the setup section, the part table, --predict and the course.
#include "techniques/threadfence/lesson.hpp"

#include <algorithm>

#include "core/course/exercise_texts.hpp"
#include "core/parts/option_binder.hpp"
#include "core/number_list.hpp"
#include "core/report/text_format.hpp"

namespace cudasync::threadfence {

namespace {

using I = std::int64_t;

const std::vector<std::string> kAccessNames = {"plain", "volatile"};
const std::vector<std::string> kPlacementNames = {"different-blocks", "same-block"};

bool has(const std::vector<std::string>& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); }

// "0 instances: ..." for a value out of 1..kMaxIterations or not a whole number.
std::optional<std::string> iterations_error(const std::string& text) {
  const auto v = whole_number(text);
  if (!v) return say("usage.iterations-not-whole", {{"text", text}, {"max", kMaxIterations}});
  if (*v < 1 || *v > kMaxIterations) return say("usage.iterations-range", {{"text", text}, {"max", kMaxIterations}});
  return std::nullopt;
}

// Checks that need more than one option (CLI11 checks each alone).
std::optional<std::string> validate(const Options& o, const parts::Selection&, const RunContext&) {
  if (o.fence.size() > 2)
    return say("usage.fence-count", {{"fences", report::join(o.fence, ", ")}, {"count", o.fence.size()}});
  if (o.fence.size() == 2 && (o.tests.empty() || has(o.tests, "corr"))) {
    const LitmusSpec corr{
        Test::corr, {parse_fence(o.fence[0]).value_or(Fence::none), parse_fence(o.fence[1]).value_or(Fence::none)}};
    if (!meaningful(corr))
      return say(o.tests.empty() ? "usage.corr-fence-every-test" : "usage.corr-fence",
                 {{"side-0", o.fence[0]}, {"side-1", o.fence[1]}});
  }
  return std::nullopt;
}

void bind_options(parts::OptionBinder& b, Options& o) {
  b.bind("--test", o.tests, {}, {{"tests", report::join(kTestNames, ", ")}});
  b.bind("--fence", o.fence);
  b.bind("--access", o.access);
  b.bind("--placement", o.placement);
  b.bind("--iterations", o.iterations, [](const std::string& s) { return iterations_error(s).value_or(""); },
         {{"default", kDefaultIterations}, {"bench", kBenchIterations}});
}

void setup(Run& run, report::Section& s) {
  s.title = say("setup.title");
  s.paragraph(say("setup.about"));
  s.fact("iterations", say("setup.iterations"), I{run.iterations}, report::Format::count, say("setup.iterations-note"));
  s.fact("seed", say("setup.seed"), static_cast<I>(run.ctx.seed), report::Format::plain, say("setup.seed-note"));
  if (!run.ctx.gpu) s.note(say("setup.no-gpu"));
}

// --predict: the litmus test, where intuition about fences fails most often. The question is the
// catalog's (prediction.litmus.question); its English stays here for the usage error that core builds
// from the table (core/parts/prediction.cpp).
std::vector<parts::PredictionTruth> predictions() {
  return {{"litmus", [](const report::Section& s) { return parts::weak_outcome_truth(s, "outcomes", "threadfence"); }}};
}

}  // namespace

Run::Run(const Options& o, const RunContext& run_ctx, const parts::Selection& selection)
    : ctx(run_ctx),
      options(o),
      iterations(o.iterations.value_or(run_ctx.bench ? kBenchIterations : kDefaultIterations)),
      child_out(selection.child_out) {}

const parts::Lesson<Options, Run>& lesson() {
  static const parts::Lesson<Options, Run> table{
      "threadfence",
      {
          {"litmus", litmus_part},
          {"scope", scope_part},
          {"volatile", volatile_part},
          {"ptx", ptx_part},
          {"cost", cost_part},
          {"last-block", last_block_part},
          {"work-queue", work_queue_part},
          {"work-queue-race", work_queue_race_part},
          {"last-block-partial", last_block_partial_part},
          {"host-observer", host_observer_part},
      },
      bind_options,
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

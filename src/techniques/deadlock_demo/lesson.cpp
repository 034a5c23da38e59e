// deadlock-demo: options, the run's shared state (the barrier children start first and run while
// this process does the other parts), the setup section, the part table, --predict and the course.
#include "techniques/deadlock_demo/lesson.hpp"

#include "core/course/exercise_texts.hpp"
#include "core/parts/option_binder.hpp"
#include "core/parts/child.hpp"

namespace cudasync::deadlock_demo {

namespace {


std::optional<std::string> validate(const Options& o, const parts::Selection&, const RunContext& ctx) {
  if (o.model && ctx.backend_request == BackendRequest::gpu) return say("usage.model-with-gpu", {{"model", *o.model}});
  if (o.sanitize && ctx.backend_request == BackendRequest::model) return say("usage.sanitize-with-model");
  return std::nullopt;
}

void bind_options(parts::OptionBinder& b, Options& o) {
  b.bind("--blocks", o.blocks);
  b.bind("--deadline-ms", o.deadline_ms);
  b.bind("--model", o.model);
  b.bind("--sanitize", o.sanitize);
  b.bind("--child-grace-ms", o.child_grace_ms);  // hidden: the tool's own children
}

void setup(Run& run, report::Section& s) {
  s.title = say("setup.title");
  s.paragraph(say("setup.about"));
  const Options& o = run.options;
  s.fact("deadline", say("setup.deadline"), std::int64_t{o.deadline_ms}, report::Format::ms,
         say("setup.deadline-note", {{"max", kMaxDeadlineMs}}));
  if (o.blocks) s.fact("blocks", say("setup.blocks"), std::int64_t{*o.blocks}, report::Format::count);
  std::string traces;
  for (auto t : run.traces) traces += (traces.empty() ? "" : ", ") + std::string(simt::to_string(t));
  if (!traces.empty())
    s.fact("model-traces", say("setup.model-traces"), traces, report::Format::plain, say("setup.model-traces-note"));
}

StartedChild start_barrier_child(const Run& run, const char* part) {
  StartedChild c;
  try {
    c.process = parts::start_child(run.ctx, kLessonId, part, barrier_child_options(run.options.deadline_ms, false),
                                   child_timeout(run.options.deadline_ms, false));
  } catch (const std::runtime_error& e) {
    c.error = e.what();
  }
  return c;
}

// --predict: a grid larger than what fits at once meets at a software barrier.
std::vector<parts::PredictionTruth> predictions() {
  return {{"grid-oversubscribed",
           [](const report::Section& s) {
             parts::Truth t;
             if (const report::Check* ended = parts::find_check(s, "ended")) t.gpu = ended->passed ? "no" : "yes";
             if (const report::Check* done = parts::find_check(s, "completes")) t.gpu = done->passed ? "yes" : "no";
             const report::Check* deadlocks = parts::find_check(s, "model-deadlocks");
             t.model = deadlocks != nullptr && deadlocks->passed ? "no" : "yes";
             if (const report::Value* w = parts::find_fact(s, "model-cycle")) t.detail = say("prediction.model-detail", {{"cycle", parts::text_of(*w)}});
             return t;
           }}};
}

}  // namespace

// deadlock-demo: options, the run's shared state (the barrier children start first and run while
// this process does the other parts), the setup section and the part table.

Run::Run(const Options& o, const RunContext& run_ctx, const parts::Selection& selection)
    : ctx(run_ctx), options(o), child_out(selection.child_out) {
  if (selection.has("warp-spinlock")) {
    if (o.model) traces = {*simt::parse_scheduling(*o.model)};
    else traces = {simt::Scheduling::lockstep, simt::Scheduling::independent};
  }
  if (!ctx.gpu || selection.child) return;  // a child starts no child of its own
  // The children start first and run while this process does the other parts.
  if (selection.has("divergent-syncthreads")) {
    sync_child = start_barrier_child(*this, "divergent-syncthreads");
    if (o.sanitize) {
      std::string looked;
      if (const auto tool = find_compute_sanitizer(looked)) {
        try {
          sanitizer = std::make_unique<SanitizerChild>(*tool, ctx, o.deadline_ms);
        } catch (const std::runtime_error& e) {
          sanitizer_missing = e.what();
        }
      } else {
        sanitizer_missing = looked;
      }
    }
  }
  if (selection.has("syncwarp-mask")) warp_child = start_barrier_child(*this, "syncwarp-mask");
}

unsigned long long Run::deadline_ns() const { return static_cast<unsigned long long>(options.deadline_ms) * 1000000ull; }

const parts::Lesson<Options, Run>& lesson() {
  static const parts::Lesson<Options, Run> table{
      kLessonId,
      {
          {"grid-oversubscribed", grid_part},
          {"warp-spinlock", warp_part},
          {"divergent-syncthreads", [](Run& r) { return barrier_part(r, false); }},
          {"lock-order", lock_order_part},
          {"producer-before-consumer", chain_part},
          {"syncwarp-mask", [](Run& r) { return barrier_part(r, true); }},
      },
      bind_options,
      validate,
      setup,
      {},
      std::nullopt,
      {{"divergent-syncthreads", [](Run& r) { return barrier_child(r, false); }},
       {"syncwarp-mask", [](Run& r) { return barrier_child(r, true); }}},
      predictions()};
  return table;
}

// deadlock-demo's course: lessons/deadlock-demo/lesson.json declares every exercise, and each reads
// its answer by id from a run of the lesson (the model's blocks without a slot, outcomes, waiters at
// a barrier, nodes of a wait-for cycle); none needs code.
const course::LessonCourse& course() {
  static const course::LessonCourse c = course::lesson_course("deadlock-demo");
  return c;
}

}  // namespace cudasync::deadlock_demo

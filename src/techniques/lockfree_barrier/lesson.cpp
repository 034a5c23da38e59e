// lockfree-barrier: options, validation, the run's shared state (with the co-residency refusal),
// the setup section, the part table, --predict and the course.
#include "techniques/lockfree_barrier/lesson.hpp"

#include <algorithm>
#include <tuple>
#include <utility>
#include <vector>

#include "core/course/exercise_texts.hpp"
#include "core/parts/option_binder.hpp"
#include "core/errors.hpp"
#include "core/number_list.hpp"

namespace cudasync::lockfree_barrier {

using I = std::int64_t;

namespace {

constexpr std::int64_t kMaxWork = std::int64_t{1} << 28;  // blocks x threads x phases the model replays


void bind_options(parts::OptionBinder& b, Options& o) {
  b.bind("--blocks", o.blocks);
  b.bind("--threads", o.threads);
  b.bind("--phases", o.phases);
  b.bind("--trace", o.trace);
  b.bind("--allow-unsafe", o.allow_unsafe);
  b.bind("--deadline-ms", o.deadline_ms);
}

// Combinations CLI11 cannot check one option at a time. --bench's own (--blocks, --phases, --trace
// and --allow-unsafe are not used by it) come from core: every part reads them, the bench does not.
std::optional<std::string> validate(const Options& o, const parts::Selection& sel, const RunContext&) {
  if ((sel.bench || sel.any_of({"own", "own-cluster"})) && o.threads % kWarpSize != 0)
    return say(sel.bench ? "usage.threads-warps-bench" : "usage.threads-warps", {{"threads", o.threads}});
  if (sel.bench) return std::nullopt;
  const int blocks = o.blocks.value_or(o.trace ? kTraceDefaultBlocks : 0);
  const int phases = o.phases.value_or(kDefaultPhases);
  if (o.trace && blocks > kTraceMaxBlocks)
    return say("usage.trace-blocks", {{"max", kTraceMaxBlocks}, {"blocks", blocks}});
  if (blocks > 0) {
    const std::int64_t values = static_cast<std::int64_t>(blocks) * o.threads;
    if (values > kMaxValues)
      return say("usage.too-many-values",
                 {{"blocks", blocks}, {"threads", o.threads}, {"values", values}, {"max", kMaxValues}});
    if (values * phases > kMaxWork)
      return say("usage.too-much-work", {{"blocks", blocks}, {"threads", o.threads}, {"phases", phases}});
  } else if (static_cast<std::int64_t>(kModelSmCount) * 2 * o.threads * phases > kMaxWork) {
    return say("usage.too-much-work-per-sm", {{"phases", phases}, {"threads", o.threads}});
  }
  return std::nullopt;
}

Limits limits_for(int threads, const RunContext& ctx) {
  if (ctx.gpu) return gpu_limits(threads, ctx.device->index);
  Limits l;
  l.software = model_coresidency(threads);
  l.candidates = l.software;
  l.lean = l.software;
  l.cooperative = l.software;
  for (int cs : kClusterSizes) l.clusters.push_back(model_cluster_coresidency(threads, cs));
  return l;
}

void setup(Run& run, report::Section& sec) {
  if (run.bench) return bench_setup(run, sec);
  const Setup& s = run.s;
  sec.title = say("setup.title", {{"blocks", s.blocks}, {"threads", s.threads}, {"phases", s.phases}});
  sec.paragraph(say("setup.kernel-about", {{"phases", s.phases}}));
  sec.paragraph(say("setup.residency-about"));
  sec.fact("blocks", say("setup.blocks"), static_cast<I>(s.blocks), report::Format::count);
  sec.fact("threads", say("setup.threads"), static_cast<I>(s.threads), report::Format::count);
  sec.fact("phases", say("setup.phases"), static_cast<I>(s.phases), report::Format::count,
           say("setup.barriers-note", {{"count", s.phases - 1}}));
  sec.fact("seed", say("setup.seed"), static_cast<I>(run.ctx.seed), report::Format::plain, say("setup.seed-note"));
  sec.fact("resident-software", say("setup.resident-software"), static_cast<I>(s.software.limit()),
           report::Format::count, per_sm_text(s.software));
  sec.fact("resident-grid-sync", say("setup.resident-grid-sync"), static_cast<I>(s.cooperative.limit()),
           report::Format::count, per_sm_text(s.cooperative));
  sec.fact("own-counters", say("setup.own-counters"), static_cast<I>(s.own_counters), report::Format::count,
           say(s.own_counters == 1 ? "setup.own-counters-one" : "setup.own-counters-spread"));
  if (run.ctx.gpu && !run.limits.cluster_unsupported.empty())
    sec.fact("own-cluster", "own-cluster", say("waived"), report::Format::plain, run.limits.cluster_unsupported);
  else
    sec.fact("resident-own-cluster", say("setup.resident-own-cluster"), static_cast<I>(s.cluster.limit()),
             report::Format::count, say("setup.clusters-note", {{"size", s.cluster_size}, {"residency", s.cluster.text()}}));
  sec.fact("deadline-ms", say("setup.deadline"), static_cast<I>(run.options.deadline_ms), report::Format::count, "ms");
  if (s.beyond())
    sec.note(say("setup.unsafe-note", {{"blocks", s.blocks}, {"limit", s.software.limit()}}));
  if (!run.ctx.gpu) sec.note(say("setup.model-note"));
}

// One part per barrier.
std::vector<parts::PartRun<Run>> part_rows() {
  std::vector<parts::PartRun<Run>> rows;
  for (Barrier b : all_barriers()) rows.push_back({barrier_key(b), [b](Run& r) { return barrier_part(r, b); }});
  return rows;
}

// --predict: Xiao & Feng's lock-based barrier as a widely shared transcription has it (its question
// is the catalog's prediction.xf-lock-unrepaired.question).
std::vector<parts::PredictionTruth> predictions() {
  return {{"xf-lock-unrepaired",
           [](const report::Section& s) {
             parts::Truth t;
             const report::Value* deadline = parts::find_fact(s, "gpu-deadline");
             const report::Value* wrong = parts::find_fact(s, "gpu-wrong-values");
             if (deadline != nullptr && wrong != nullptr) {
               const auto* hit = std::get_if<bool>(deadline);
               const auto* n = std::get_if<std::int64_t>(wrong);
               if (hit != nullptr && n != nullptr) t.gpu = !*hit && *n == 0 ? "yes" : "no";
             }
             // The model's answer by id: it completes, and no block passed a barrier early.
             const report::Value* outcome = parts::find_fact(s, "model-outcome");
             const report::Value* early = parts::find_fact(s, "model-early");
             if (const report::Value* sim = parts::find_fact(s, "model-sim"); sim && outcome && early) {
               const auto* passed_early = std::get_if<bool>(early);
               t.model = parts::text_of(*outcome) == "completes" && passed_early && !*passed_early ? "yes" : "no";
               t.detail = say("prediction.model-detail", {{"sim", parts::text_of(*sim)}});
             }
             return t;
           }}};
}

}  // namespace

std::string per_sm_text(const Coresidency& c) {
  return say("setup.per-sm", {{"per-sm", c.blocks_per_sm}, {"sms", c.sm_count}, {"source", c.source}});
}

std::pair<int, Coresidency> cluster_for(int blocks, const Limits& l) {
  if (l.clusters.empty()) return {1, l.software};
  const int cs = own_cluster_size(blocks, l.clusters);
  for (int i = 0; i < kClusterSizeCount; ++i)
    if (kClusterSizes[i] == cs) return {cs, l.clusters[static_cast<std::size_t>(i)]};
  return {1, l.clusters.front()};
}

GpuSpec gpu_spec(const Run& run, int blocks, int phases) {
  GpuSpec s;
  s.blocks = blocks;
  s.threads = run.options.threads;
  s.phases = phases;
  s.own_counters = std::min(own_counters_for(blocks), blocks);
  s.own_pollers = own_pollers_for(blocks, run.limits.software.sm_count, run.options.threads);
  s.cluster_size = cluster_for(blocks, run.limits).first;
  s.deadline_ns = static_cast<std::uint64_t>(run.options.deadline_ms) * 1'000'000ull;
  return s;
}

Run::Run(const Options& o, const RunContext& run_ctx, const parts::Selection& selection)
    : ctx(run_ctx), options(o), limits(limits_for(o.threads, run_ctx)), bench(selection.bench) {
  if (bench) return;
  s.threads = o.threads;
  s.phases = o.phases.value_or(kDefaultPhases);
  s.blocks = o.blocks.value_or(o.trace ? kTraceDefaultBlocks : ctx.gpu ? ctx.device->sm_count : kModelSmCount);
  s.software = limits.software;
  s.cooperative = limits.cooperative;
  std::tie(s.cluster_size, s.cluster) = cluster_for(s.blocks, limits);
  s.own_counters = std::min(own_counters_for(s.blocks), s.blocks);

  std::vector<Barrier> barriers;
  for (Barrier b : all_barriers())
    if (selection.has(barrier_key(b))) barriers.push_back(b);
  // Refuse a grid that cannot be resident at once, before anything runs.
  for (Barrier b : barriers) {
    if (!needs_coresidency(b) || o.allow_unsafe) continue;
    if (uses_clusters(b) && !limits.cluster_unsupported.empty()) continue;  // waived, never launched
    const Coresidency& c = b == Barrier::grid_sync ? s.cooperative : uses_clusters(b) ? s.cluster : s.software;
    if (const auto e = coresidency_refusal(s.blocks, c, "--blocks", say("usage.unsafe-escape"))) throw UsageError(*e);
  }
  if (std::any_of(barriers.begin(), barriers.end(), [&](Barrier b) { return !s.beyond(b); }))
    want = model_values(s.blocks, s.threads, s.phases, ctx.seed);
  if (ctx.gpu) {
    x0 = initial_values(s.blocks, s.threads, ctx.seed);
    if (o.trace) s.timer_step_ns = gpu_timer_step_ns();
  }
}

const parts::Lesson<Options, Run>& lesson() {
  static const parts::Lesson<Options, Run> table{
      "lockfree-barrier",
      part_rows(),
      bind_options,
      validate,
      setup,
      summary_finish,
      parts::Bench<Run>{bench_sections},
      {},
      predictions()};
  return table;
}

const course::LessonCourse& course() {
  static const course::LessonCourse c = course::lesson_course("lockfree-barrier");
  return c;
}

}  // namespace cudasync::lockfree_barrier

// lock: options, validation, the run's shared state, the setup section, names, the verdicts the
// parts share, --predict, the course and the part table.
#include "techniques/lock/lesson.hpp"

#include <algorithm>
#include <stdexcept>

#include "core/course/exercise_texts.hpp"
#include "core/parts/option_binder.hpp"
#include "core/kernel_listing.hpp"
#include "core/parts/child.hpp"
#include "core/report/text_format.hpp"

namespace cudasync::lock {

namespace {

void bind_options(parts::OptionBinder& b, Options& o) {
  b.bind("--blocks", o.blocks);
  b.bind("--threads", o.threads);
  b.bind("--iterations", o.iterations);
  b.bind("--runs", o.runs);
  b.bind("--delays", o.delays);
  b.bind("--model", o.model);
}

std::optional<std::string> validate(const Options& o, const parts::Selection& sel, const RunContext& ctx) {
  if (o.model && ctx.backend_request == BackendRequest::gpu) return say("usage.model-with-gpu", {{"model", *o.model}});
  const auto check = [&](const char* part, int blocks, int threads, int iterations) -> std::optional<std::string> {
    if (!sel.has(part)) return std::nullopt;
    return acquisitions_error(std::string("--part ") + part, blocks, threads, iterations);
  };
  const int iters = o.iterations.value_or(0);
  if (auto e = check("lock-class", o.blocks.value_or(kClassBlocks), 1, iters ? iters : kClassIters)) return e;
  if (auto e = check("warp-deadlock", 1, o.threads.value_or(128), iters ? iters : kWarpIters)) return e;
  const int stale_blocks = o.blocks.value_or(kStaleBlocks), stale_iters = iters ? iters : kStaleIters;
  if (auto e = check("stale-reads", stale_blocks, 1, stale_iters)) return e;
  if (sel.has("stale-reads")) {
    const int runs = stale_runs(o.runs, stale_blocks, stale_iters);
    const long long total = static_cast<long long>(runs) * stale_blocks * stale_iters * 4;
    if (total > kMaxPartAcquisitions)
      return say("usage.stale-reads-total", {{"runs", runs},
                                             {"grid", grid_text(stale_blocks, 1)},
                                             {"iterations", stale_iters},
                                             {"total", total},
                                             {"max", kMaxPartAcquisitions}});
  }
  if (sel.has("delay-fix")) {
    const int blocks = o.blocks.value_or(kDelayBlocks), delay_iters = iters ? iters : kDelayIters;
    if (auto e = check("delay-fix", blocks, 1, delay_iters)) return e;
    if (auto e = delay_budget_error(o.delays.value_or(kDefaultDelaysNs), o.runs.value_or(kDelayRuns), blocks, delay_iters))
      return e;
  }
  if (auto e = check("thread-lock", o.blocks.value_or(kThreadLockBlocks), o.threads.value_or(kThreadLockThreads),
                     iters ? iters : kThreadLockIters))
    return e;
  return check("combining", o.blocks.value_or(kCombiningBlocks), o.threads.value_or(kCombiningThreads),
               iters ? iters : kCombiningIters);
}

void setup(Run& run, report::Section& s) {
  s.title = say("setup.title");
  s.paragraph(say("setup.about"));
  std::string regimes;
  for (Regime r : run.trace_regimes) regimes += (regimes.empty() ? "" : ", ") + std::string(simt::to_string(r));
  s.fact("model-traces", say("setup.model-traces"), regimes, report::Format::plain, say("setup.model-traces-note"));
  s.fact("deadline-s", say("setup.deadline"), static_cast<std::int64_t>(kDefaultDeadlineNs / 1000000000ull),
         report::Format::count, say("setup.deadline-note", {{"max", kMaxDeadlineNs / 1000000000ull}}));
}

// The schedulers of every trace the selected parts show (lockstep alone when none shows one).
std::vector<Regime> trace_regimes(const Run& run, const parts::Selection& sel) {
  if (sel.bench) return {Regime::lockstep, Regime::independent};
  std::vector<Regime> all;
  if (sel.has("warp-deadlock")) all = run.traced({});
  if (sel.has("thread-lock"))
    for (Regime g : run.traced({Regime::lockstep})) all.push_back(g);
  if (sel.has("combining"))
    for (Regime g : run.traced({Regime::independent})) all.push_back(g);
  if (all.empty()) all = run.traced({Regime::lockstep});
  std::vector<Regime> out;
  for (Regime g : {Regime::lockstep, Regime::independent})
    if (std::find(all.begin(), all.end(), g) != all.end()) out.push_back(g);
  return out;
}

}  // namespace

Run::Run(const Options& o, const RunContext& run_ctx, const parts::Selection& selection)
    : ctx(run_ctx), options(o) {
  const KernelListing& listing = kernel_listing();
  if (listing.available) arch = listing_sass_arch(listing, ctx.gpu ? ctx.compute_capability() : 0);
  trace_regimes = lock::trace_regimes(*this, selection);
  // The copy-destructor child starts first and runs while this process does the other parts. It
  // tells its steps in this run's language.
  if (ctx.gpu && selection.has("copy-destructor") && !selection.child) {
    try {
      copy_child = parts::start_child(ctx, "lock", "copy", {}, kCopyChildTimeout);
    } catch (const std::runtime_error& e) {
      CopyOutcome failed;
      failed.message = e.what();
      copy_start_failed = failed;
    }
  }
}

std::vector<Regime> Run::checked() const {
  if (options.model) return {*simt::parse_scheduling(*options.model)};
  return {Regime::lockstep, Regime::independent};
}

bool Run::checks(Regime r) const {
  const auto c = checked();
  return std::find(c.begin(), c.end(), r) != c.end();
}

std::vector<std::string> Run::sass(const std::string& kernel) const {
  const KernelCode* k = find_kernel(kernel_listing().sass, arch, "lock", kernel);
  return k ? k->instructions : std::vector<std::string>{};
}

std::vector<Regime> Run::traced(std::vector<Regime> fallback) const {
  if (options.model) return checked();
  return fallback.empty() ? std::vector<Regime>{Regime::lockstep, Regime::independent} : fallback;
}

SimResult sim(Protocol p, Regime r, int blocks, int threads, int iterations, int trace_rows) {
  SimConfig c;
  c.protocol = p;
  c.regime = r;
  c.blocks = blocks;
  c.threads = threads;
  c.iters = iterations;
  c.trace_lanes = kTraceLanes;
  c.trace_rows = trace_rows;
  return simulate(c);
}

namespace {

// Each Variant's names, in its order: its id (in the bench), its catalog key, its catalog key as a
// lock in the bench ("" for the same), its kernel's name in the listing.
struct VariantNames {
  const char* id;
  const char* name;
  const char* bench_name;
  const char* kernel;
};
const VariantNames kVariantNames[kVariants] = {
    {"book", "variant.book", "variant.bench-book", "book_kernel"},
    {"book-atomic-add", "variant.book-atomic-add", "", "book_atomic_add_kernel"},
    {"lock-functions", "variant.lock-functions", "", "lock_functions_kernel"},
    {"cas", "variant.fenced", "variant.bench-cas", "fenced_kernel"},
    {"acq-rel", "variant.acq-rel", "variant.bench-acq-rel", "acq_rel_kernel"},
    {"thread-lock", "variant.thread-lock", "", "thread_lock_kernel"},
    {"backoff", "variant.backoff", "", "backoff_kernel"},
    {"ticket", "variant.ticket", "", "ticket_kernel"},
    {"warp-aggregated", "variant.warp-aggregated", "", "warp_aggregated_kernel"},
    {"combining", "variant.combining", "", "combining_kernel"},
    {"ttas", "variant.ttas", "", "ttas_kernel"},
    {"ttas-same-line", "variant.ttas-same-line", "", "ttas_kernel"},
    {"delay-after", "variant.delay-after", "", "delay_kernel<true>"},
    {"delay-before", "variant.delay-before", "", "delay_kernel<false>"},
};
const VariantNames& names(Variant v) { return kVariantNames[static_cast<int>(v)]; }

// What is wrong with one launch, or "".
std::string problem(const LockRun& r) {
  if (r.timed_out()) return stuck_text(r);
  if (r.count != r.expected) return say("judge.problem-count", {{"count", count_text(r.count, r.expected)}});
  if (r.answers_bad > 0)
    return say("judge.answers-wrong", {{"bad", r.answers_bad}, {"checked", r.answers_checked}, {"first", r.first_bad_answer}});
  return "";
}

// A cell of the side-by-side table (warp.gpu-completes, outcome.deadlock ...) as an answer to
// prediction.warp-deadlock.question: its choice, completes or deadlocks.
std::optional<std::string> completes(const report::Value& v) {
  const std::string t = parts::text_of(v);
  if (words::is_sentence("lock", "warp.gpu-completes", t) || words::is_sentence("lock", "outcome.completes", t))
    return std::string("completes");
  if (words::is_sentence("lock", "warp.gpu-stuck", t) || words::is_sentence("lock", "outcome.deadlock", t))
    return std::string("deadlocks");
  return std::nullopt;
}

std::vector<parts::PredictionTruth> predictions() {
  // An either/or question: its answers are the two outcomes (lessons/lock/lesson.json).
  return {{"warp-deadlock", [](const report::Section& s) {
             parts::Truth t;
             const report::Table* table = parts::find_table(s, "side-by-side");
             if (table == nullptr || table->rows.empty()) return t;
             t.gpu = completes(table->cell(0, "gpu"));
             // This GPU schedules the lanes of a warp independently (compute capability 7.0 on).
             std::string lockstep;
             for (const auto& c : table->columns) {
               if (c.key == "independent") t.model = completes(table->cell(0, "independent"));
               if (c.key == "lockstep") lockstep = parts::text_of(table->cell(0, "lockstep"));
             }
             t.detail = say("prediction.detail", {{"lockstep", lockstep.empty() ? say("prediction.not-run") : lockstep}});
             return t;
           }}};
}

}  // namespace

std::string variant_name(Variant v) { return say(names(v).name); }
std::string bench_name(Variant v) { return say(*names(v).bench_name ? names(v).bench_name : names(v).name); }
const char* bench_id(Variant v) { return names(v).id; }
const char* kernel_name(Variant v) { return names(v).kernel; }

const course::LessonCourse& course() {
  static const course::LessonCourse c = course::lesson_course("lock");
  return c;
}

std::string grid_text(int blocks, int threads) {
  return "<<<" + std::to_string(blocks) + ", " + std::to_string(threads) + ">>>";
}

std::string grid_id(int blocks, int threads) { return std::to_string(blocks) + "x" + std::to_string(threads); }

std::string stuck_text(const LockRun& r) {
  return say("judge.stuck", {{"gave-up", r.gave_up},
                             {"blocks", report::list_of(r.stuck_blocks)},
                             {"completed", r.completed},
                             {"expected", r.expected}});
}

std::string count_text(long long count, long long expected) {
  return say(count == expected ? "judge.count-exact" : "judge.count", {{"count", count}, {"expected", expected}});
}

namespace {
double ns_per_acquisition(double ms, long long acquisitions) {
  return acquisitions > 0 ? ms * 1e6 / static_cast<double>(acquisitions) : 0.0;
}
}  // namespace

std::vector<double> ns_samples(const std::vector<LockRun>& runs) {
  std::vector<double> ns;
  for (const auto& r : runs)
    if (!r.timed_out()) ns.push_back(ns_per_acquisition(r.ms, r.expected));
  return ns;
}

std::vector<double> handoff_ns_samples(const std::vector<LockRun>& runs) {
  std::vector<double> ns;
  for (const auto& r : runs)
    if (r.handoff_ms && r.expected > 0) ns.push_back(ns_per_acquisition(*r.handoff_ms, r.expected));
  return ns;
}

bool any_timed_out(const std::vector<LockRun>& runs) {
  return std::any_of(runs.begin(), runs.end(), [](const LockRun& r) { return r.timed_out(); });
}

Verdict runs_exact(const std::vector<LockRun>& runs) {
  for (std::size_t i = 0; i < runs.size(); ++i)
    if (const std::string p = problem(runs[i]); !p.empty())
      return {false, say("judge.launch-problem", {{"launch", i + 1}, {"problem", p}})};
  const long long each = runs.empty() ? 0 : runs.front().expected;
  return {!runs.empty(), say("judge.count-each", {{"count", each}, {"launches", runs.size()}})};
}

std::string first_problem(const std::vector<LockRun>& runs, const std::string& where) {
  for (const auto& r : runs)
    if (const std::string p = problem(r); !p.empty()) return say("judge.where-problem", {{"where", where}, {"problem", p}});
  return "";
}

Lost lost_updates(const std::vector<LockRun>& runs) {
  Lost l;
  for (const auto& r : runs) {
    l.lost += r.lost();
    l.total += r.expected;
    l.losing += r.lost() != 0 ? 1 : 0;
    l.stuck = l.stuck || r.timed_out();
  }
  return l;
}

std::string model_outcome_text(const SimResult& r) {
  switch (r.outcome) {
    case Outcome::completed:
      return say("outcome.completes", {{"steps", r.rounds}, {"count", count_text(r.count, r.expected)}});
    case Outcome::deadlock:
      return say("outcome.deadlock", {{"later", r.repeat_from + r.cycle_rounds}, {"earlier", r.repeat_from}});
    case Outcome::step_limit: return say("outcome.undecided", {{"steps", r.rounds}});
  }
  return "";
}

bool lockstep_deadlocks(int threads) { return threads > 1; }

Verdict lockstep_verdict(const SimResult& lockstep) {
  if (lockstep_deadlocks(lockstep.config.threads))
    return {lockstep.outcome == Outcome::deadlock,
            lockstep.holder.empty() ? model_outcome_text(lockstep) : lockstep.holder};
  return {lockstep.exact(), say("judge.one-lane", {{"outcome", model_outcome_text(lockstep)}})};
}

std::vector<double> per_handoff(const std::vector<LockRun>& runs) {
  std::vector<double> v;
  for (const auto& r : runs)
    if (!r.timed_out() && r.handoffs > 0) v.push_back(static_cast<double>(r.expected) / static_cast<double>(r.handoffs));
  return v;
}

std::optional<double> combining_ratio(const std::vector<LockRun>& combining, const std::vector<LockRun>& cas) {
  const double comb = report::median(ns_samples(combining)), base = report::median(ns_samples(cas));
  if (comb <= 0 || base <= 0) return std::nullopt;
  return comb / base;
}

std::optional<std::string> acquisitions_error(const std::string& part, int blocks, int threads, int iterations) {
  const long long n = static_cast<long long>(blocks) * threads * iterations;
  if (n <= kMaxAcquisitions) return std::nullopt;
  return say("usage.acquisitions", {{"part", part},
                                    {"grid", grid_text(blocks, threads)},
                                    {"iterations", iterations},
                                    {"n", n},
                                    {"max", kMaxAcquisitions}});
}

int stale_runs(std::optional<int> runs, int blocks, int iterations) {
  if (runs) return *runs;
  const long long per_launch = static_cast<long long>(blocks) * iterations;
  return static_cast<int>(std::clamp<long long>((1LL << 20) / per_launch, 1, 4));
}

const parts::Lesson<Options, Run>& lesson() {
  static const parts::Lesson<Options, Run> table{
      "lock",
      {
          {"lock-class", lock_class_part},
          {"warp-deadlock", warp_deadlock_part},
          {"stale-reads", stale_reads_part},
          {"delay-fix", delay_fix_part},
          {"copy-destructor", copy_destructor_part},
          {"shared-mutex", shared_mutex_part},
          {"thread-lock", thread_lock_part},
          {"combining", combining_part},
      },
      bind_options,
      validate,
      setup,
      {},
      parts::Bench<Run>{bench},
      {{"copy", copy_child}},
      predictions()};
  return table;
}

}  // namespace cudasync::lock

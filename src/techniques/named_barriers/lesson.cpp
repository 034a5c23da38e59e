// named-barriers: options, their validation, the run's shared inputs, the setup section, the part
// table, --predict and the course.
#include "techniques/named_barriers/lesson.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>

#include "core/course/exercise_texts.hpp"
#include "core/parts/option_binder.hpp"
#include "core/errors.hpp"
#include "core/number_list.hpp"
#include "core/parts/child.hpp"

namespace cudasync::named_barriers {

namespace {

using I = std::int64_t;

std::optional<std::string> warp_multiple_error(const std::string& option, int v) {
  if (v <= 0) return say("usage.needs-warp", {{"option", option}, {"value", v}});
  if (v % kWarpSize == 0) return std::nullopt;
  std::string e = say("usage.not-warp-multiple", {{"option", option}, {"value", v}});
  if (v <= kMaxBlockThreads) e += say("usage.try-misuse", {{"value", v}});
  return e;
}

// Two thread counts that share one block: added in 64 bits, so two huge counts never wrap into a
// small (or negative) sum that passes.
// `key`: usage.block-too-big, or usage.block-too-big-shared (producers and consumers).
std::optional<std::string> block_error(const std::string& given, int a, int b, const char* key) {
  const I threads = static_cast<I>(a) + static_cast<I>(b);
  if (threads <= kMaxBlockThreads) return std::nullopt;
  return say(key, {{"given", given}, {"threads", threads}});
}

std::vector<MisuseCase> misuse_cases(const Options& o) {
  if (o.count || o.arrive) return {MisuseCase{o.count.value_or(48), o.arrive.value_or(64)}};
  return {MisuseCase{48, 64}, MisuseCase{128, 64}};
}

// The ids and thread counts are judged together (usage_error): a sum past a block, two equal ids,
// a count that is not whole warps, each named with its reason. Their own check only refuses what is
// no whole number an int holds, so that usage_error sees every value as typed.
std::string whole_int(const std::string& s) {
  const auto v = whole_number(s);
  return v && *v >= std::numeric_limits<int>::min() && *v <= std::numeric_limits<int>::max() ? std::string()
                                                                                             : say("usage.not-a-whole-number");
}

void bind_options(parts::OptionBinder& b, Options& o) {
  b.bind("--barrier-ids", o.barrier_ids, whole_int);
  b.bind("--groups", o.groups, whole_int);
  b.bind("--phases", o.phases);
  b.bind("--producers", o.producers, whole_int);
  b.bind("--consumers", o.consumers, whole_int);
  b.bind("--rounds", o.rounds);
  b.bind("--trace", o.trace);
  b.bind("--predicate", o.predicates,
         [](const std::string& s) { return parse_predicate(s) ? std::string() : say("usage.not-a-predicate"); },
         {{"forms", say("predicate.forms")}});
  b.bind("--threads", o.threads);
  b.bind("--count", o.count);
  b.bind("--arrive", o.arrive, whole_int);
}

std::optional<std::string> validate(const Options& o, const parts::Selection&, const RunContext&) {
  return usage_error(o);
}

Inputs checked_inputs(const Options& o, std::uint64_t seed) {
  // Core validates a child's options not at all (it runs what its parent asked for): a child
  // started by hand with two huge --groups must still be refused before anything is sized by them.
  if (const auto e = usage_error(o)) throw UsageError(*e);
  return resolve(o, seed);
}

void setup(Run& run, report::Section& s) {
  const Inputs& in = run.in;
  s.title = say("setup.title");
  s.paragraph(say("setup.about"));
  s.fact("barrier-ids", say("setup.barrier-ids"),
         say("setup.barrier-ids-value", {{"first", in.groups.ids[0]}, {"second", in.groups.ids[1]}}), report::Format::plain,
         say("setup.barrier-ids-note"));
  s.fact("bar-sync-block", say("setup.bar-sync-block"), static_cast<I>(in.groups.block_threads()), report::Format::count,
         say("setup.bar-sync-block-note", {{"group-0", in.groups.threads[0]}, {"group-1", in.groups.threads[1]}}));
  s.fact("producer-consumer-block", say("setup.producer-consumer-block"), static_cast<I>(in.pc.block_threads()),
         report::Format::count,
         say("setup.producer-consumer-block-note",
             {{"producers", in.pc.producers}, {"consumers", in.pc.consumers}, {"rounds", in.pc.rounds}}));
  s.fact("bar-red-block", say("setup.bar-red-block"), static_cast<I>(in.red_threads), report::Format::count);
}

// --predict: a clock read right after bar.sync, while the last warp arrives late.
std::vector<parts::PredictionTruth> predictions() {
  return {{"early-stamp",
           [](const report::Section& s) {
             parts::Truth t;
             t.detail = say("prediction.early-stamp-detail");
             const report::Table* table = parts::find_table(s, "stamps");
             if (table == nullptr) return t;
             bool any_gpu = false, early = false;
             for (std::size_t r = 0; r < table->rows.size(); ++r) {
               const auto* n = std::get_if<std::int64_t>(&table->cell(r, "naive-before"));
               if (n == nullptr) continue;
               any_gpu = true;
               early = early || *n > 0;
             }
             if (any_gpu) t.gpu = early ? "yes" : "no";
             return t;
           }}};
}

}  // namespace

std::optional<Predicate> parse_predicate(const std::string& text) {
  return parse_thread_predicate(text, PredicateGrammar{false, 1024});
}

std::vector<std::int32_t> evaluate(const Predicate& p, int threads, std::uint64_t seed) {
  return evaluate_thread_predicate(p, threads, seed, 3);
}

std::vector<std::int32_t> make_input(int rounds, int producers, std::uint64_t seed) {
  std::vector<std::int32_t> out(static_cast<std::size_t>(rounds) * static_cast<std::size_t>(producers));
  std::mt19937_64 rng(seed * 0xD1B54A32D192ED03ull + 11);
  for (auto& v : out) v = static_cast<std::int32_t>(rng() % 10000);
  return out;
}

std::optional<std::vector<int>> parse_int_list(const std::string& text) {
  std::vector<long long> v;
  // split_numbers reads "1," as "1": a trailing comma is an empty last item here.
  if (text.empty() || text.back() == ',' || !split_numbers(text, v)) return std::nullopt;
  std::vector<int> out;
  for (long long x : v) {
    if (x < std::numeric_limits<int>::min() || x > std::numeric_limits<int>::max()) return std::nullopt;
    out.push_back(static_cast<int>(x));
  }
  return out;
}

std::optional<std::string> usage_error(const Options& o) {
  for (int id : o.barrier_ids)
    if (id < 0 || id >= kBarrierCount) return say("usage.id-range", {{"id", id}});
  if (o.barrier_ids.size() != 2)
    return say("usage.id-count",
               {{"ids", join_numbers(o.barrier_ids)},
                {"count", o.barrier_ids.size()},
                {"form", say("usage.ids-form")}});
  if (o.barrier_ids[0] == o.barrier_ids[1])
    return say("usage.ids-differ", {{"first", o.barrier_ids[0]}, {"second", o.barrier_ids[1]}});
  for (int g : o.groups)
    if (auto e = warp_multiple_error("--groups", g)) return e;
  if (o.groups.size() != 2)
    return say("usage.groups-count",
               {{"groups", join_numbers(o.groups)}, {"count", o.groups.size()}, {"form", say("usage.groups-form")}});
  if (auto e = block_error("--groups " + std::to_string(o.groups[0]) + "," + std::to_string(o.groups[1]), o.groups[0],
                           o.groups[1], "usage.block-too-big"))
    return e;
  if (auto e = warp_multiple_error("--producers", o.producers)) return e;
  if (auto e = warp_multiple_error("--consumers", o.consumers)) return e;
  if (auto e = block_error("--producers " + std::to_string(o.producers) + " --consumers " + std::to_string(o.consumers),
                           o.producers, o.consumers, "usage.block-too-big-shared"))
    return e;
  if (o.arrive && (*o.arrive % kWarpSize != 0 || *o.arrive < kWarpSize || *o.arrive > kMaxBlockThreads - kWarpSize))
    return say("usage.arrive", {{"arrive", *o.arrive}});
  for (const MisuseCase& c : misuse_cases(o)) {
    int worst = 0;
    for (CountRule r : {CountRule::round_up, CountRule::round_down}) worst = std::max(worst, predict_misuse(c, r).rescues);
    if (worst > c.rescue_warps())
      return say("usage.rescue",
                 {{"count", c.count}, {"arrive", c.arrive_threads}, {"worst", worst}, {"rescues", c.rescue_warps()}});
  }
  return std::nullopt;
}

Inputs resolve(const Options& o, std::uint64_t seed) {
  Inputs in;
  for (int g = 0; g < 2; ++g) {
    in.groups.threads[g] = o.groups[static_cast<std::size_t>(g)];
    in.groups.ids[g] = o.barrier_ids[static_cast<std::size_t>(g)];
    in.pc.ids[g] = o.barrier_ids[static_cast<std::size_t>(g)];
  }
  in.groups.phases = o.phases;
  in.groups.work_cycles[0] = 2000;
  in.groups.work_cycles[1] = 2000LL * (o.phases + 2);  // group 0's whole run is shorter than one phase of group 1
  in.pc.producers = o.producers;
  in.pc.consumers = o.consumers;
  in.pc.rounds = o.rounds;
  in.pc.input = make_input(o.rounds, o.producers, seed);
  in.red_threads = o.threads;
  in.red_id = o.barrier_ids[0];
  for (const auto& text : o.predicates.empty() ? kDefaultPredicates : o.predicates)
    in.predicates.push_back(*parse_predicate(text));  // validated by the CLI check
  in.misuse = misuse_cases(o);
  in.misuse_id = o.barrier_ids[0];
  in.trace = o.trace;
  return in;
}

bool starts_misuse_children(const parts::Selection& selection, const RunContext& ctx) {
  return ctx.gpu && !selection.child && selection.has("misuse");
}

Run::Run(const Options& o, const RunContext& run_ctx, const parts::Selection& selection)
    : ctx(run_ctx), in(checked_inputs(o, run_ctx.seed)) {
  // The misuse children start first and run while this process does the other parts.
  if (!starts_misuse_children(selection, ctx)) return;
  for (const MisuseCase& c : in.misuse) {
    MisuseChild child{c, nullptr, ""};
    try {
      child.process = parts::start_child(ctx, lesson().id, "misuse", misuse_child_args(c, in.misuse_id),
                                         std::chrono::milliseconds(8000));
    } catch (const std::runtime_error& e) {
      child.start_error = e.what();
    }
    misuse_children.push_back(std::move(child));
  }
}

const parts::Lesson<Options, Run>& lesson() {
  static const parts::Lesson<Options, Run> table{
      "named-barriers",
      {
          {"bar-sync", bar_sync_part},
          {"early-stamp", early_stamp_part},
          {"producer-consumer", producer_consumer_part},
          {"bar-red", bar_red_part},
          {"cuda-barrier", cuda_barrier_part},
          {"listing", listing_part},
          {"misuse", misuse_part},
          {"cost", cost_part},
      },
      bind_options,
      validate,
      setup,
      {},
      std::nullopt,
      {{"misuse", misuse_child}},
      predictions()};
  return table;
}

const course::LessonCourse& course() {
  static const course::LessonCourse c = course::lesson_course("named-barriers");
  return c;
}

}  // namespace cudasync::named_barriers

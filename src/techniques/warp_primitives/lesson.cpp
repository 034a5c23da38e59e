// warp-primitives: the inputs and options, the run's shared state, the setup section, the part
// table, the --predict question and the course hook.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <random>
#include <regex>

#include "core/course/exercise_texts.hpp"
#include "core/parts/option_binder.hpp"
#include "techniques/warp_primitives/lesson.hpp"

namespace cudasync::warp_primitives {

namespace {

using I = std::int64_t;

const std::vector<std::string> kVariants = {"guarded", "registers", "racy"};

std::optional<int> small_int(const std::string& s, int lo, int hi) {
  if (s.empty() || s.size() > 9) return std::nullopt;
  for (char c : s)
    if (c < '0' || c > '9') return std::nullopt;
  const int v = std::stoi(s);
  if (v < lo || v > hi) return std::nullopt;
  return v;
}

std::string lanes_text(int threads) { return threads == 1 ? "lane 0" : "lanes 0-" + std::to_string(threads - 1); }

// The mask of every lane that runs: "0x0000ffff" for 16 threads.
std::string full_mask_text(int threads) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", threads >= 32 ? 0xffffffffu : (1u << threads) - 1u);
  return buf;
}

std::optional<std::string> validate(const Options& o, const parts::Selection&, const RunContext&) {
  if (o.delta >= o.width)
    return say("usage.delta-below-width", {{"delta", o.delta}, {"width", o.width}, {"most", o.width - 1}});
  WarpSetup w{o.threads, parse_mask(o.mask).value_or(0)};  // a mask core's check (kind mask) accepted
  if (w.calling() == 0)
    return say("usage.mask-calls-none", {{"mask", o.mask}, {"threads", o.threads}, {"lanes", lanes_text(o.threads)},
                                         {"full", full_mask_text(o.threads)}});
  return std::nullopt;
}

Inputs resolve(const Options& o, std::uint64_t seed) {
  Inputs in;
  in.width = o.width;
  in.delta = o.delta;
  in.lane_mask = o.lane_mask;
  in.src_lane = o.src_lane;
  in.warp.threads = o.threads;
  in.warp.mask = *parse_mask(o.mask);  // validated before the run
  in.predicate = *parse_predicate(o.predicate);
  in.key = *parse_key(o.key);
  in.value_kind = o.values == "random" ? ValueKind::random : ValueKind::tid;
  in.values = make_values(in.value_kind, seed);
  for (auto v : {SyncwarpVariant::guarded, SyncwarpVariant::registers, SyncwarpVariant::racy})
    if (o.variants.empty() || std::find(o.variants.begin(), o.variants.end(), variant_name(v)) != o.variants.end())
      in.variants.push_back(v);
  return in;
}

void bind_options(parts::OptionBinder& b, Options& o) {
  b.bind("--width", o.width);
  b.bind("--delta", o.delta);
  b.bind("--src-lane", o.src_lane);
  b.bind("--lane-mask", o.lane_mask);
  b.bind("--mask", o.mask);
  b.bind("--threads", o.threads);
  b.bind("--predicate", o.predicate,
         [](const std::string& s) { return parse_predicate(s) ? std::string() : say("usage.not-a-predicate"); },
         {{"forms", kPredicateForms}});
  b.bind("--key", o.key, [](const std::string& s) { return parse_key(s) ? std::string() : say("usage.not-a-key"); },
         {{"forms", kKeyForms}});
  b.bind("--values", o.values);
  b.bind("--variant", o.variants);
}

void setup(Run& run, report::Section& s) {
  const Inputs& in = run.in;
  s.title = say("setup.title", {{"threads", in.warp.threads}});
  s.paragraph(say("setup.about"));
  s.fact("threads", say("setup.threads"), static_cast<I>(in.warp.threads));
  s.fact("mask", say("setup.mask"), static_cast<I>(in.warp.mask), report::Format::hex32);
  s.fact("calling-lanes", say("setup.calling-lanes"), static_cast<I>(in.warp.calling()), report::Format::bin32,
         say("lane-31-left"));
  s.fact("width", say("setup.width"), static_cast<I>(in.width));
  s.fact("values", say("setup.values"), say(in.value_kind == ValueKind::tid ? "setup.values-tid" : "setup.values-random"));
  report::Table t("thread-vs-lane", say("setup.thread-vs-lane", {{"width", in.width}}));
  t.lanes_across = true;
  t.column("thread", "threadIdx.x").column("segment-lane", "lane_id").column("var", "var");
  for (int lane = 0; lane < in.warp.threads; ++lane)
    t.row({{"thread", lane}, {"segment-lane", lane & (in.width - 1)}, {"var", in.values[static_cast<std::size_t>(lane)]}},
          in.warp.calls(lane) ? report::RowMark::none : report::RowMark::inactive);
  s.add(std::move(t));
}

parts::PartRun<Run> vote_row(const char* id) {
  return {id, [op = std::string(id)](Run& r) { return vote_part(r, op); }};
}

parts::PartRun<Run> reduce_row(const char* id) {
  return {id, [op = std::string(id)](Run& r) { return reduce_part(r, op); }};
}

// --predict: Fan's reduction loop without the __syncwarp between a read and a write.
std::vector<parts::PredictionTruth> predictions() {
  return {{"syncwarp", [](const report::Section& s) {
             parts::Truth t;
             const report::Value* right = parts::find_fact(s, "right-sum");
             const report::Value* gpu = parts::find_fact(s, "racy-s0-gpu");
             const auto* r = right ? std::get_if<std::int64_t>(right) : nullptr;
             const auto* g = gpu ? std::get_if<std::int64_t>(gpu) : nullptr;
             if (r != nullptr && g != nullptr) t.gpu = *g == *r ? "yes" : "no";
             t.detail = say("prediction.syncwarp-model");
             return t;
           }}};
}

}  // namespace

std::optional<Predicate> parse_predicate(const std::string& text) {
  return parse_thread_predicate(text, PredicateGrammar{true, kWarpSize});
}

Lanes evaluate(const Predicate& p, std::uint64_t seed) {
  const auto bits = evaluate_thread_predicate(p, kWarpSize, seed, 1);
  Lanes out{};
  std::copy(bits.begin(), bits.end(), out.begin());
  return out;
}

std::optional<Key> parse_key(const std::string& text) {
  Key k;
  k.text = text;
  static const std::regex form(R"(\s*lane\s*([%/&])\s*(\d+)\s*)");
  std::smatch m;
  if (std::regex_match(text, m, form)) {
    const auto v = small_int(m[2].str(), 1, 1 << 20);
    if (!v) return std::nullopt;
    k.k = *v;
    const char op = m[1].str()[0];
    k.kind = op == '%' ? Key::Kind::mod : op == '/' ? Key::Kind::div : Key::Kind::bit_and;
    return k;
  }
  if (const auto c = small_int(text, 0, 1 << 20)) {
    k.kind = Key::Kind::constant;
    k.k = *c;
    return k;
  }
  return std::nullopt;
}

Lanes evaluate(const Key& k) {
  Lanes out{};
  for (int lane = 0; lane < kWarpSize; ++lane) {
    int v = 0;
    switch (k.kind) {
      case Key::Kind::mod: v = lane % k.k; break;
      case Key::Kind::div: v = lane / k.k; break;
      case Key::Kind::bit_and: v = lane & k.k; break;
      case Key::Kind::constant: v = k.k; break;
    }
    out[static_cast<std::size_t>(lane)] = v;
  }
  return out;
}

Lanes make_values(ValueKind kind, std::uint64_t seed) {
  Lanes out{};
  std::mt19937_64 rng(seed * 0xD1B54A32D192ED03ull + 7);
  for (int lane = 0; lane < kWarpSize; ++lane)
    out[static_cast<std::size_t>(lane)] = kind == ValueKind::tid ? lane : static_cast<std::int32_t>(rng() % 100);
  return out;
}

std::string lanes_detail(const report::Agreement& a) {
  if (a.passed()) return say("judge.lanes-agree", {{"compared", a.compared()}});
  return say("judge.lanes-differ", {{"lanes", a.differing_list()}});
}

Run::Run(const Options& o, const RunContext& run_ctx, const parts::Selection&) : ctx(run_ctx), in(resolve(o, run_ctx.seed)) {
  vote.warp = in.warp;
  vote.predicate = evaluate(in.predicate, run_ctx.seed);
  vote.key = evaluate(in.key);
  vote.values = in.values;
}

const parts::Lesson<Options, Run>& lesson() {
  static const parts::Lesson<Options, Run> table{
      "warp-primitives",
      {
          {"divergence", divergence_part},
          {"shfl", [](Run& r) { return shuffle_part(r, ShuffleOp::idx); }},
          {"shfl-up", [](Run& r) { return shuffle_part(r, ShuffleOp::up); }},
          {"shfl-down", [](Run& r) { return shuffle_part(r, ShuffleOp::down); }},
          {"shfl-xor", [](Run& r) { return shuffle_part(r, ShuffleOp::bfly); }},
          {"shfl-64", shfl64_part},
          vote_row("ballot"),
          vote_row("all"),
          vote_row("any"),
          vote_row("activemask"),
          vote_row("match-any"),
          vote_row("match-all"),
          reduce_row("reduce-add"),
          reduce_row("reduce-min"),
          reduce_row("reduce-max"),
          {"syncwarp", syncwarp_part},
          {"warp-reduce", warp_reduce_part},
          {"cg-tiles", cg_tiles_part},
          {"cost", cost_part},
      },
      bind_options,
      validate,
      setup,
      {},
      std::nullopt,
      {},
      predictions()};
  return table;
}

// Every exercise is a row of lessons/warp-primitives/lesson.json that reads its answer by id from a
// run of the lesson.
const course::LessonCourse& course() {
  static const course::LessonCourse c =
      course::lesson_course("warp-primitives");
  return c;
}

}  // namespace cudasync::warp_primitives

// warp-primitives: options, the run's shared inputs, the setup section and the part table.
#include "techniques/warp_primitives/warp_primitives_lesson.hpp"

#include <algorithm>
#include <cstdio>

#include <CLI/CLI.hpp>

namespace cudasync::warp_primitives {

namespace {

using I = std::int64_t;

std::string lanes_text(int threads) { return threads == 1 ? "lane 0" : "lanes 0-" + std::to_string(threads - 1); }

// The mask of every lane that runs: "0x0000ffff" for 16 threads.
std::string full_mask_text(int threads) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", threads >= 32 ? 0xffffffffu : (1u << threads) - 1u);
  return buf;
}

std::optional<std::string> validate(const Options& o, const parts::Selection&, const RunContext&) {
  const int delta = o.delta;
  if (delta >= o.width)
    return "--delta " + std::to_string(delta) + " must be less than --width " + std::to_string(o.width) +
           ": accepted 0.." + std::to_string(o.width - 1) + " (a delta of width or more leaves every lane with its "
           "own value)";
  const auto mask = parse_mask(o.mask);
  if (!mask) return "--mask '" + o.mask + "' is not a 32-bit mask; accepted: hex (0xffff0000) or decimal, 0..4294967295";
  WarpSetup w{o.threads, *mask};
  if (w.calling() == 0)
    return "--mask " + o.mask + " contains none of the " + std::to_string(o.threads) + " threads that run (" +
           lanes_text(o.threads) + "): the calling lanes are the mask's lanes; accepted: a mask naming at least one "
           "of them, e.g. --mask " + full_mask_text(o.threads);
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

void add_options(CLI::App& sub, Options& o) {
  sub.add_option("--width", o.width, "Shuffle segment width: 2, 4, 8, 16 or 32")->check(CLI::IsMember({2, 4, 8, 16, 32}));
  sub.add_option("--delta", o.delta, "Delta for shfl-up, shfl-down and shfl-64, 0..width-1 (default 1, as Fan's example)")
      ->check(CLI::Range(0, 31));
  sub.add_option("--src-lane", o.src_lane, "srcLane for shfl, 0..31 (taken modulo width; default 2, as Fan's example)")->check(CLI::Range(0, 31));
  sub.add_option("--lane-mask", o.lane_mask, "laneMask for shfl-xor, 0..31 (default 1, as Fan's example)")
      ->check(CLI::Range(0, 31));
  sub.add_option("--mask", o.mask, "Participation mask; the lanes in it call the function (hex or decimal)");
  sub.add_option("--threads", o.threads, "Threads in the one-warp block, 1..32 (Fan's example uses 16)")
      ->check(CLI::Range(1, 32));
  sub.add_option("--predicate", o.predicate, std::string("Predicate for the votes: ") + kPredicateForms)
      ->check([](const std::string& s) {
        return parse_predicate(s) ? std::string() : "unknown predicate '" + s + "'; accepted: " + kPredicateForms;
      });
  sub.add_option("--key", o.key, std::string("Value compared by the match functions: ") + kKeyForms)
      ->check([](const std::string& s) {
        return parse_key(s) ? std::string() : "unknown key '" + s + "'; accepted: " + kKeyForms;
      });
  sub.add_option("--values", o.values, "What each lane passes in: tid (as Fan's example) or random (--seed)")
      ->check(CLI::IsMember({"tid", "random"}));
  sub.add_option("--variant", o.variants, "Which __syncwarp reductions to run, comma-separated (default: all three)")
      ->delimiter(',')
      ->check(CLI::IsMember(kVariants));
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

parts::Part<Run> shuffle_row(const char* id, const char* title, const char* summary, const char* param, ShuffleOp op) {
  return {id, title, summary, {param, "--mask", "--threads", "--values"}, false, false, true,
          [op](Run& r) { return shuffle_part(r, op); }};
}

parts::Part<Run> vote_row(const char* id, const char* title, const char* summary, std::vector<std::string> reads) {
  reads.insert(reads.end(), {"--mask", "--threads"});
  return {id, title, summary, reads, false, false, true, [op = std::string(id)](Run& r) { return vote_part(r, op); }};
}

parts::Part<Run> reduce_row(const char* id, const char* title, const char* summary) {
  return {id, title, summary, {"--mask", "--threads", "--values"}, false, false, true,
          [op = std::string(id)](Run& r) { return reduce_part(r, op); }};
}

}  // namespace

Run::Run(const Options& o, const RunContext& run_ctx, const parts::Selection&) : ctx(run_ctx), in(resolve(o, run_ctx.seed)) {
  vote.warp = in.warp;
  vote.predicate = evaluate(in.predicate, run_ctx.seed);
  vote.key = evaluate(in.key);
  vote.values = in.values;
}

const parts::Lesson<Options, Run>& lesson() {
  static const parts::Lesson<Options, Run> table{
      "warp-primitives",
      "warp-primitives: divergence, shuffles, votes, __syncwarp and tiles in one warp",
      "divergence, shuffles, votes, match, reduce, __syncwarp and tiles, lane by lane (Fan, ch. 10)",
      {
          {"divergence", "branch divergence", "switch on the warp against on the lane: paths and cycles", {}, false,
           false, true, divergence_part},
          shuffle_row("shfl", "__shfl_sync", "every lane reads one lane of its segment: a broadcast", "--src-lane",
                      ShuffleOp::idx),
          shuffle_row("shfl-up", "__shfl_up_sync", "lane t reads lane t-delta of its segment", "--delta", ShuffleOp::up),
          shuffle_row("shfl-down", "__shfl_down_sync", "lane t reads lane t+delta of its segment", "--delta",
                      ShuffleOp::down),
          shuffle_row("shfl-xor", "__shfl_xor_sync", "lane t reads lane t^laneMask: pairs swap", "--lane-mask",
                      ShuffleOp::bfly),
          {"shfl-64", "64-bit shuffles", "__shfl_down_sync of a long long and a double: two SHFL each",
           {"--delta", "--mask", "--threads", "--values"}, false, false, true, shfl64_part},
          vote_row("ballot", "__ballot_sync", "every lane's predicate as one 32-bit mask", {"--predicate"}),
          vote_row("all", "__all_sync", "1 when the predicate holds in every calling lane", {"--predicate"}),
          vote_row("any", "__any_sync", "1 when the predicate holds in any calling lane", {"--predicate"}),
          vote_row("activemask", "__activemask", "the lanes executing together, no mask, no sync", {}),
          vote_row("match-any", "__match_any_sync", "each lane: the lanes holding its value", {"--key"}),
          vote_row("match-all", "__match_all_sync", "the calling lanes if all hold one value, else 0", {"--key"}),
          reduce_row("reduce-add", "__reduce_add_sync", "one REDUX instruction: the sum (8.0+)"),
          reduce_row("reduce-min", "__reduce_min_sync", "one REDUX instruction: the minimum (8.0+)"),
          reduce_row("reduce-max", "__reduce_max_sync", "one REDUX instruction: the maximum (8.0+)"),
          {"syncwarp", "__syncwarp in a reduction", "the last warp of a shared-memory sum, and its racy loop",
           {"--variant", "--values"}, false, false, true, syncwarp_part},
          {"warp-reduce", "warp sum by shuffles", "shfl_down against shfl_xor, every lane after every step",
           {"--values"}, false, false, true, warp_reduce_part},
          {"cg-tiles", "cooperative-group tiles", "tiled_partition ranks, a tile's shuffle and votes",
           {"--values", "--predicate"}, false, false, true, cg_tiles_part},
          {"cost", "cost", "cycles per operation beside NVIDIA's built-in warp sums", {}, true, false, true, cost_part},
      },
      add_options,
      validate,
      setup,
      {},
      std::nullopt,
      {},
      predictions()};
  return table;
}

}  // namespace cudasync::warp_primitives

// warp-primitives: options, validation, and the run that asks the GPU (when there is one) and the
// reference model the same questions. Sections are built in warp_primitives_sections.cpp.
#include "techniques/warp_primitives/warp_primitives_lesson.hpp"

#include <algorithm>
#include <memory>

#include "core/errors.hpp"
#include "techniques/warp_primitives/warp_primitives_sections.hpp"
#if CUDASYNC_HAVE_CUDA
#include "techniques/warp_primitives/warp_primitives_gpu.hpp"
#endif

namespace cudasync::warp_primitives {

namespace {

bool selected(const std::vector<std::string>& ops, const std::string& op) {
  return ops.empty() || std::find(ops.begin(), ops.end(), op) != ops.end();
}

std::string lanes_text(int threads) { return threads == 1 ? "lane 0" : "lanes 0-" + std::to_string(threads - 1); }

int default_param(int width) { return std::min(2, width / 2); }

// Checks that need more than one option; CLI11 checks each option alone. Runs at parse time (so a
// bad combination is exit 2 before any backend is chosen) and again in resolve().
std::optional<std::string> combination_error(const Options& o) {
  const int delta = o.delta.value_or(default_param(o.width));
  if (delta >= o.width)
    return "--delta " + std::to_string(delta) + " must be less than --width " + std::to_string(o.width) +
           ": accepted 0.." + std::to_string(o.width - 1) + " (a delta of width or more leaves every lane with its "
           "own value)";
  const auto mask = parse_mask(o.mask);
  if (!mask) return "--mask '" + o.mask + "' is not a 32-bit mask: give hex (0xffff0000) or decimal";
  WarpSetup w{o.threads, *mask};
  if (w.calling() == 0)
    return "--mask " + o.mask + " contains none of the " + std::to_string(o.threads) + " threads that run (" +
           lanes_text(o.threads) + "): the calling lanes are the mask's lanes, so it must name at least one of them";
  return std::nullopt;
}

Inputs resolve(const Options& o, std::uint64_t seed) {
  if (const auto e = combination_error(o)) throw UsageError(*e);
  Inputs in;
  in.width = o.width;
  in.delta = o.delta.value_or(default_param(o.width));
  in.lane_mask = o.lane_mask.value_or(default_param(o.width));
  in.src_lane = o.src_lane;
  in.warp.threads = o.threads;
  in.warp.mask = *parse_mask(o.mask);
  in.predicate = *parse_predicate(o.predicate);  // validated by the CLI check
  in.key = *parse_key(o.key);
  in.value_kind = o.values == "random" ? ValueKind::random : ValueKind::tid;
  in.values = make_values(in.value_kind, seed);
  for (auto v : {SyncwarpVariant::guarded, SyncwarpVariant::registers, SyncwarpVariant::racy})
    if (selected(o.variants, variant_name(v))) in.variants.push_back(v);
  return in;
}

ShuffleSpec shuffle_spec(const std::string& op, const Inputs& in) {
  ShuffleSpec s;
  s.width = in.width;
  s.warp = in.warp;
  s.values = in.values;
  if (op == "shfl") s.op = ShuffleOp::idx, s.param = in.src_lane;
  else if (op == "shfl_up") s.op = ShuffleOp::up, s.param = in.delta;
  else if (op == "shfl_down") s.op = ShuffleOp::down, s.param = in.delta;
  else s.op = ShuffleOp::bfly, s.param = in.lane_mask;
  return s;
}

struct CostProbeRow {
  const char* name;
  const char* note;
  int probe;  // CostProbe
  bool needs_cc80;
};
const CostProbeRow kCostRows[] = {
    {"__shfl_xor_sync", "one shuffle", 0, false},
    {"__ballot_sync", "one vote", 1, false},
    {"__match_any_sync", "one match", 2, false},
    {"sum: shared + __syncwarp", "seed 10.2, the guarded loop", 3, false},
    {"sum: 5 x __shfl_down_sync", "seed 10.3.2, then a broadcast from lane 0", 4, false},
    {"sum: 5 x __shfl_xor_sync", "every lane ends with the sum", 5, false},
    {"sum: cg::reduce", "built-in: cooperative_groups::reduce on a tile of 32", 6, false},
    {"sum: __reduce_add_sync", "built-in: one REDUX instruction (8.0+)", 7, true},
};

}  // namespace

report::Report run(const Options& o, const RunContext& ctx) {
  const Inputs in = resolve(o, ctx.seed);
  const bool gpu = ctx.gpu;
  const int cc = gpu ? ctx.device->compute_capability() : 0;
#if !CUDASYNC_HAVE_CUDA
  if (gpu) throw NoGpuError("this cudasync was built without CUDA");
#endif
  report::Report r;
  r.technique = "warp-primitives";
  r.title = "warp-primitives: shuffles, votes, match, reduce and __syncwarp inside one warp";
  const auto waive = [&](const std::string& part) {
    r.waived.push_back({part, "needs compute capability 8.0 or newer (__reduce_*_sync compiles to REDUX); GPU " +
                                  std::to_string(ctx.device->index) + " has " + ctx.device->cc_string()});
  };
  r.sections.push_back(setup_section(in, gpu));

  for (const std::string op : {"shfl", "shfl_up", "shfl_down", "shfl_xor"}) {
    if (!selected(o.ops, op)) continue;
    const ShuffleSpec spec = shuffle_spec(op, in);
    std::optional<Lanes> got;
#if CUDASYNC_HAVE_CUDA
    if (gpu) got = gpu_shuffle(spec);
#endif
    r.sections.push_back(shuffle_section(op, spec, got));
  }

  VoteSpec vs;
  vs.warp = in.warp;
  vs.predicate = evaluate(in.predicate, ctx.seed);
  vs.key = evaluate(in.key);
  vs.values = in.values;
  std::optional<VoteLanes> votes;
  for (const std::string op : {"ballot", "all", "any", "activemask", "match_any", "match_all"}) {
    if (!selected(o.ops, op)) continue;
#if CUDASYNC_HAVE_CUDA
    if (gpu && !votes) votes = gpu_votes(vs);
#endif
    r.sections.push_back(vote_section(op, vs, in.predicate, in.key, votes));
  }

  std::optional<ReduceLanes> reduced;
  for (const std::string op : {"reduce_add", "reduce_min", "reduce_max"}) {
    if (!selected(o.ops, op)) continue;
    if (gpu && cc < 80) {
      waive(op);
      continue;
    }
#if CUDASYNC_HAVE_CUDA
    if (gpu && !reduced) reduced = gpu_reduce(vs);
#endif
    r.sections.push_back(reduce_section(op, vs, reduced));
  }

  if (selected(o.ops, "syncwarp")) {
    std::vector<SyncwarpOutcome> outcomes;
    for (auto v : in.variants) {
      SyncwarpOutcome oc{v, std::nullopt};
#if CUDASYNC_HAVE_CUDA
      if (gpu) oc.gpu = gpu_syncwarp(in.values, v);
#endif
      outcomes.push_back(oc);
    }
    r.sections.push_back(syncwarp_section(in.values, outcomes, gpu));
  }

  if (selected(o.ops, "warp_reduce")) {
    std::optional<ReductionTrace> down, bfly;
#if CUDASYNC_HAVE_CUDA
    if (gpu) {
      down = gpu_reduction_trace(in.values, ShuffleOp::down);
      bfly = gpu_reduction_trace(in.values, ShuffleOp::bfly);
    }
#endif
    r.sections.push_back(warp_reduce_section(in.values, down, bfly));
  }

  if (selected(o.ops, "cost")) {
    const int iterations = ctx.bench ? 4096 : 1024;
    const int reps = ctx.bench ? 31 : 7;
    (void)reps;  // unused in a model-only build
    std::vector<CostRow> rows;
    for (const auto& p : kCostRows) {
      CostRow row{p.name, p.note, {}, false};
      if (gpu && p.needs_cc80 && cc < 80) {
        row.note = "waived: needs compute capability 8.0+";
        row.waived = true;
      }
#if CUDASYNC_HAVE_CUDA
      if (gpu && !row.waived)
        for (int i = 0; i < reps; ++i) row.cycles.push_back(gpu_cycles_per_op(static_cast<CostProbe>(p.probe), iterations));
#endif
      rows.push_back(std::move(row));
    }
    r.sections.push_back(cost_section(rows, gpu, iterations));
  }

  // The setup section alone means every part asked for was waived.
  if (r.sections.size() == 1 && !r.waived.empty()) r.sections.clear();
  return r;
}

cli::Runner attach(CLI::App& sub) {
  auto o = std::make_shared<Options>();
  sub.add_option("--op", o->ops, "Which parts to run, comma-separated (default: every part)")
      ->delimiter(',')
      ->check(CLI::IsMember(kOps));
  sub.add_option("--width", o->width, "Shuffle segment width")->check(CLI::IsMember({2, 4, 8, 16, 32}));
  sub.add_option("--delta", o->delta, "Delta for shfl_up / shfl_down, 0..width-1 (default min(2, width/2))")
      ->check(CLI::Range(0, 31));
  sub.add_option("--src-lane", o->src_lane, "srcLane for shfl (taken modulo width)")->check(CLI::Range(0, 31));
  sub.add_option("--lane-mask", o->lane_mask, "laneMask for shfl_xor (default min(2, width/2))")->check(CLI::Range(0, 31));
  sub.add_option("--mask", o->mask, "Participation mask; the lanes in it call the function (hex or decimal)");
  sub.add_option("--threads", o->threads, "Threads in the one-warp block (the seed uses 16)")->check(CLI::Range(1, 32));
  sub.add_option("--predicate", o->predicate, std::string("Predicate for the votes: ") + kPredicateForms)
      ->check([](const std::string& s) {
        return parse_predicate(s) ? std::string() : "unknown predicate '" + s + "'; accepted: " + kPredicateForms;
      });
  sub.add_option("--key", o->key, std::string("Value compared by the match functions: ") + kKeyForms)
      ->check([](const std::string& s) {
        return parse_key(s) ? std::string() : "unknown key '" + s + "'; accepted: " + kKeyForms;
      });
  sub.add_option("--values", o->values, "What each lane passes in: tid (as the seed) or random (--seed)")
      ->check(CLI::IsMember({"tid", "random"}));
  sub.add_option("--variant", o->variants, "Which __syncwarp reductions to run, comma-separated (default: all three)")
      ->delimiter(',')
      ->check(CLI::IsMember(kVariants));
  sub.callback([o] {
    if (const auto e = combination_error(*o)) throw CLI::ValidationError(*e);
  });
  return [o](const RunContext& ctx) { return run(*o, ctx); };
}

}  // namespace cudasync::warp_primitives

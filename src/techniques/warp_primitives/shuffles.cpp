// Shuffles: parts shfl, shfl-up, shfl-down, shfl-xor (what each lane received, from the GPU beside
// the model), shfl-64 (Fan 10.3: a long long and a double through __shfl_down_sync, and the SASS of
// this build: two SHFL for a 64-bit value, one for 32 bits) and cg-tiles (Fan 10.4: cooperative-group
// partitions of one warp, a thread_block_tile<4>'s shuffle and votes, and nvcc's answer to a shuffle
// on a plain thread_group, compiled at build time: core/expected_errors).
#include <cstring>

#include "core/expected_errors.hpp"
#include "core/kernel_listing.hpp"
#include "core/report/text_format.hpp"
#include "techniques/warp_primitives/lesson.hpp"

namespace cudasync::warp_primitives {

namespace {

using I = std::int64_t;
using report::RowMark;
using report::Undefined;
using report::Value;

// Each op's part id and function, in ShuffleOp's order.
struct ShuffleName {
  const char* part;
  const char* symbol;
};
const ShuffleName kShuffles[] = {
    {"shfl", "__shfl_sync"}, {"shfl-up", "__shfl_up_sync"}, {"shfl-down", "__shfl_down_sync"}, {"shfl-xor", "__shfl_xor_sync"}};
const char* part_id(ShuffleOp op) { return kShuffles[static_cast<int>(op)].part; }

// "the first 2 lanes of each segment have no such lane and keep their own var" (1: "the first lane ...").
std::string edge(bool first, int n) {
  if (n == 1) return say(first ? "shuffles.edge-first-one" : "shuffles.edge-last-one");
  return say(first ? "shuffles.edge-first" : "shuffles.edge-last", {{"n", n}});
}

std::string rule(ShuffleOp op, const ShuffleSpec& s) {
  switch (op) {
    case ShuffleOp::idx:
      return say("shuffles.rule-idx", {{"width", s.width}, {"lane", s.param % s.width}, {"src-lane", s.param}});
    case ShuffleOp::up:
      return say("shuffles.rule-up", {{"width", s.width}, {"delta", s.param}, {"edge", edge(true, s.param)}});
    case ShuffleOp::down:
      return say("shuffles.rule-down", {{"width", s.width}, {"delta", s.param}, {"edge", edge(false, s.param)}});
    case ShuffleOp::bfly: break;
  }
  return say("shuffles.rule-xor", {{"width", s.width}, {"lane-mask", s.param}});
}

RowMark lane_mark(LaneOutcome o) {
  switch (o) {
    case LaneOutcome::inactive: return RowMark::inactive;
    case LaneOutcome::kept_own: return RowMark::kept_own;
    case LaneOutcome::undefined_source: return RowMark::undefined_src;
    case LaneOutcome::received: break;
  }
  return RowMark::none;
}

// The spec a shuffle part runs: its op with the option that gives its parameter.
ShuffleSpec shuffle_spec(ShuffleOp op, const Inputs& in) {
  ShuffleSpec s;
  s.op = op;
  s.width = in.width;
  s.warp = in.warp;
  s.values = in.values;
  s.param = op == ShuffleOp::idx ? in.src_lane : op == ShuffleOp::bfly ? in.lane_mask : in.delta;
  return s;
}

// "__shfl_down_sync(0xffffffff, v, 2, 8)"
std::string shuffle_call(ShuffleOp op, const ShuffleSpec& s) {
  return std::string(kShuffles[static_cast<int>(op)].symbol) + "(" + report::format_value(std::int64_t{s.warp.mask}, report::Format::hex32) +
         ", v, " + std::to_string(s.param) + ", " + std::to_string(s.width) + ")";
}

template <typename T>
bool same_bits(T a, T b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

template <typename T>
bool poisoned(T v) {
  unsigned char bytes[sizeof(T)];
  std::memcpy(bytes, &v, sizeof(T));
  for (unsigned char b : bytes)
    if (b != 0xAB) return false;
  return true;
}

// ---------------------------------------------------------------- shfl-64: the build's SASS

struct Kernel {
  const char* type;
  const char* name;  // short_kernel_name in the listing
};
const Kernel kKernels[] = {{"int", "shfl_down_kernel<int>"},
                           {"long long", "shfl_down_kernel<long long>"},
                           {"double", "shfl_down_kernel<double>"}};

void add_sass(report::Section& s, int compute_capability) {
  const KernelListing& listing = kernel_listing();
  const std::string arch = listing_sass_arch(listing, compute_capability);
  if (!listing.available || arch.empty()) {
    s.note(say("shfl-64.no-listing", {{"reason", listing.available ? say("shfl-64.no-sass") : listing.reason()}}));
    return;
  }
  report::Table t("sass", say("shfl-64.sass-title", {{"arch", arch}}));
  t.column("type", "type").column("shfl", "SHFL").column("instructions", say("shfl-64.instructions"));
  int counts[3] = {-1, -1, -1};
  for (int k = 0; k < 3; ++k) {
    const KernelCode* code = find_kernel(listing.sass, arch, "warp_primitives", kKernels[k].name);
    if (!code) {
      t.row({{"type", kKernels[k].type}, {"shfl", Undefined{}}, {"instructions", say("shfl-64.not-in-listing")}});
      continue;
    }
    counts[k] = shfl_count(code->warp);
    std::string ops;
    for (const auto& [op, n] : opcode_counts(code->warp)) ops += (ops.empty() ? "" : ", ") + op + " x" + std::to_string(n);
    t.row({{"type", kKernels[k].type}, {"shfl", I{counts[k]}}, {"instructions", ops.empty() ? say("shfl-64.none") : ops}});
  }
  s.add(std::move(t));
  s.check("two-shfl-for-64-bit", say("shfl-64.two-shfl"), counts[0] == 1 && counts[1] == 2 && counts[2] == 2,
          say("shfl-64.two-shfl-detail", {{"int", counts[0]}, {"long-long", counts[1]}, {"double", counts[2]}}));
}

// ---------------------------------------------------------------- cg-tiles: one column per field

struct Field {
  const char* key;
  const char* title;
  I (*get)(const TileLanes&, std::size_t);
};

const Field kRanks[] = {
    {"g32-rank", "g32 rank", [](const TileLanes& t, std::size_t l) { return I{t.g32_rank[l]}; }},
    {"g32-size", "g32 size", [](const TileLanes& t, std::size_t l) { return I{t.g32_size[l]}; }},
    {"g4-rank", "g4 rank", [](const TileLanes& t, std::size_t l) { return I{t.g4_rank[l]}; }},
    {"g4-size", "g4 size", [](const TileLanes& t, std::size_t l) { return I{t.g4_size[l]}; }},
};
const Field kTile[] = {
    {"shfl-down", "shfl_down", [](const TileLanes& t, std::size_t l) { return I{t.shfl_down[l]}; }},
    {"any", "any", [](const TileLanes& t, std::size_t l) { return I{t.any[l]}; }},
    {"all", "all", [](const TileLanes& t, std::size_t l) { return I{t.all[l]}; }},
    {"ballot", "ballot", [](const TileLanes& t, std::size_t l) { return I{t.ballot[l]}; }},
};

// One row per lane (drawn across): the inputs, then each field from the model and, on a GPU, from it.
template <std::size_t N>
report::Table lanes_table(const char* id, const std::string& title, const Field (&fields)[N], const TileLanes& model,
                          const std::optional<TileLanes>& gpu, const Inputs* inputs, const Lanes& predicate) {
  report::Table t(id, title);
  t.lanes_across = true;
  t.column("thread", "thread");
  if (inputs) t.column("var", "v").column("predicate", "pred");
  for (const Field& f : fields) {
    t.column(f.key, f.title);
    if (gpu) t.column(std::string(f.key) + "-gpu", "gpu");
  }
  for (std::size_t l = 0; l < kWarpSize; ++l) {
    std::vector<std::pair<std::string, Value>> cells{{"thread", I(l)}};
    if (inputs) {
      cells.emplace_back("var", I{inputs->values[l]});
      cells.emplace_back("predicate", I{predicate[l]});
    }
    bool same = true;
    for (const Field& f : fields) {
      cells.emplace_back(f.key, f.get(model, l));
      if (!gpu) continue;
      cells.emplace_back(std::string(f.key) + "-gpu", f.get(*gpu, l));
      same = same && f.get(*gpu, l) == f.get(model, l);
    }
    t.row(cells, same ? RowMark::none : RowMark::mismatch);
  }
  return t;
}

}  // namespace

// ---------------------------------------------------------------- the model and the judges

std::array<ShuffleLane, kWarpSize> model_shuffle(const ShuffleSpec& spec) {
  std::array<ShuffleLane, kWarpSize> out{};
  const int w = spec.width;
  for (int lane = 0; lane < kWarpSize; ++lane) {
    ShuffleLane& r = out[static_cast<std::size_t>(lane)];
    const int base = lane & ~(w - 1);  // first lane of this lane's width segment
    r.segment_lane = lane & (w - 1);
    if (!spec.warp.calls(lane)) {
      r.outcome = LaneOutcome::inactive;
      r.source = lane;
      continue;
    }
    int src = lane;
    bool in_range = true;
    switch (spec.op) {
      case ShuffleOp::idx:  // srcLane is taken modulo width, inside the caller's segment
        src = base + (spec.param & (w - 1));
        break;
      case ShuffleOp::up:  // no wrap: lanes below delta keep their own value
        in_range = r.segment_lane >= spec.param;
        src = lane - spec.param;
        break;
      case ShuffleOp::down:
        in_range = r.segment_lane + spec.param < w;
        src = lane + spec.param;
        break;
      case ShuffleOp::bfly:  // an earlier segment may be read; a later one is not (PTX: j <= maxLane)
        src = lane ^ spec.param;
        in_range = src <= base + w - 1;
        break;
    }
    if (!in_range) {
      r.outcome = LaneOutcome::kept_own;
      r.source = lane;
      r.value = spec.values[static_cast<std::size_t>(lane)];
    } else if (!spec.warp.calls(src)) {
      r.outcome = LaneOutcome::undefined_source;
      r.source = src;
    } else {
      r.outcome = LaneOutcome::received;
      r.source = src;
      r.value = spec.values[static_cast<std::size_t>(src)];
    }
  }
  return out;
}

Shuffle64Lanes model_shuffle64(const ShuffleSpec& spec) {
  const auto lanes = model_shuffle(spec);
  Shuffle64Lanes r{};
  for (std::size_t l = 0; l < kWarpSize; ++l) {
    if (!lanes[l].defined()) continue;
    const std::int32_t x = spec.values[static_cast<std::size_t>(lanes[l].source)];
    r.ll[l] = wide_long_long(x);
    r.dbl[l] = wide_double(x);
  }
  return r;
}

TileLanes model_tiles(const Lanes& values, const Lanes& predicate) {
  TileLanes t{};
  ShuffleSpec down;
  down.op = ShuffleOp::down;
  down.param = 1;
  down.width = kTileSize;
  down.values = values;
  const auto shuffled = model_shuffle(down);
  for (int lane = 0; lane < kWarpSize; ++lane) {
    const auto l = static_cast<std::size_t>(lane);
    t.g32_rank[l] = lane % kWarpSize;
    t.g32_size[l] = kWarpSize;
    t.g4_rank[l] = lane % kTileSize;
    t.g4_size[l] = kTileSize;
    t.shfl_down[l] = shuffled[l].value;
    const int base = lane - lane % kTileSize;
    std::uint32_t ballot = 0;
    for (int r = 0; r < kTileSize; ++r)
      if (predicate[static_cast<std::size_t>(base + r)] != 0) ballot |= 1u << r;
    t.ballot[l] = ballot;
    t.any[l] = ballot != 0 ? 1 : 0;
    t.all[l] = ballot == (1u << kTileSize) - 1u ? 1 : 0;
  }
  return t;
}

bool shuffle_lane_agrees(const ShuffleLane& model, std::int32_t gpu) {
  if (model.outcome == LaneOutcome::inactive) return gpu == kPoison;
  return model.defined() ? gpu == model.value : true;
}

bool shuffle64_lane_agrees(const ShuffleLane& lane, const Shuffle64Lanes& model, const Shuffle64Lanes& gpu,
                           std::size_t l) {
  if (lane.outcome == LaneOutcome::inactive) return poisoned(gpu.ll[l]) && poisoned(gpu.dbl[l]);
  return lane.defined() ? gpu.ll[l] == model.ll[l] && same_bits(gpu.dbl[l], model.dbl[l]) : true;
}

RowMark note_lane(report::Agreement& a, int lane, const ShuffleLane& model, bool agrees) {
  if (model.outcome == LaneOutcome::undefined_source) return lane_mark(model.outcome);
  return a.note(lane, agrees, lane_mark(model.outcome));
}

report::Agreement judge_tiles(const TileLanes& model, const TileLanes& gpu) {
  report::Agreement a(true);
  for (std::size_t l = 0; l < kWarpSize; ++l)
    a.note(static_cast<I>(l), model.g32_rank[l] == gpu.g32_rank[l] && model.g32_size[l] == gpu.g32_size[l] &&
                                  model.g4_rank[l] == gpu.g4_rank[l] && model.g4_size[l] == gpu.g4_size[l] &&
                                  model.shfl_down[l] == gpu.shfl_down[l] && model.any[l] == gpu.any[l] &&
                                  model.all[l] == gpu.all[l] && model.ballot[l] == gpu.ballot[l]);
  return a;
}

int shfl_count(const std::vector<std::string>& warp_instructions) {
  int n = 0;
  for (const auto& [op, count] : opcode_counts(warp_instructions))
    if (op.rfind("SHFL", 0) == 0) n += count;
  return n;
}

// ---------------------------------------------------------------- the parts

report::Section shuffle_part(Run& run, ShuffleOp op) {
  const ShuffleSpec spec = shuffle_spec(op, run.in);
  const auto model = model_shuffle(spec);
  std::optional<Lanes> gpu;
  if (run.ctx.gpu) gpu = gpu_shuffle(spec);

  report::Section s(part_id(op), shuffle_call(op, spec));
  s.paragraph(rule(op, spec));
  report::Table t("lanes", say("shuffles.lanes-title"));
  t.lanes_across = true;
  t.column("thread", "thread").column("segment-lane", "lane").column("source-lane", "src").column("var", "var");
  t.column("model", "model");
  if (gpu) t.column("gpu", "gpu");
  report::Agreement a(gpu.has_value());
  bool undefined_shown = false;
  for (int lane = 0; lane < spec.warp.threads; ++lane) {
    const auto l = static_cast<std::size_t>(lane);
    const ShuffleLane& m = model[l];
    const bool inactive = m.outcome == LaneOutcome::inactive;
    undefined_shown = undefined_shown || m.outcome == LaneOutcome::undefined_source;
    std::vector<std::pair<std::string, Value>> cells{{"thread", lane},
                                                     {"segment-lane", m.segment_lane},
                                                     {"source-lane", inactive ? Value{Undefined{}} : Value{m.source}},
                                                     {"var", spec.values[l]},
                                                     {"model", m.defined() ? Value{m.value} : Value{Undefined{}}}};
    if (gpu) cells.emplace_back("gpu", inactive && (*gpu)[l] == kPoison ? Value{Undefined{}} : Value{(*gpu)[l]});
    t.row(cells, note_lane(a, lane, m, !gpu || shuffle_lane_agrees(m, (*gpu)[l])));
  }
  t.picture = report::shuffle_picture("thread", "source-lane", spec.width, "var", "model");  // --html draws it
  if (gpu && undefined_shown) t.legend.push_back(say("shuffles.undefined-legend"));
  s.add(std::move(t));
  a.check(s, "gpu-agrees", part_id(op), lanes_detail(a));
  return s;
}

report::Section shfl64_part(Run& run) {
  const ShuffleSpec spec = shuffle_spec(ShuffleOp::down, run.in);
  const auto lanes = model_shuffle(spec);
  const Shuffle64Lanes model = model_shuffle64(spec);
  std::optional<Shuffle64Lanes> gpu;
  if (run.ctx.gpu) gpu = gpu_shuffle64(spec);

  report::Section s("shfl-64", say("shfl-64.title", {{"call", shuffle_call(ShuffleOp::down, spec)}}));
  s.paragraph(say("shfl-64.about"));
  report::Table t("lanes", say("shuffles.lanes-title"));
  t.column("thread", "thread").column("source-lane", "src");
  t.column("ll-model", "long long").column("double-model", "double", report::Format::plain);
  if (gpu) t.column("ll-gpu", "ll gpu").column("double-gpu", "dbl gpu", report::Format::plain);
  report::Agreement a(gpu.has_value());
  for (int lane = 0; lane < spec.warp.threads; ++lane) {
    const auto l = static_cast<std::size_t>(lane);
    const ShuffleLane& m = lanes[l];
    const bool inactive = m.outcome == LaneOutcome::inactive;
    std::vector<std::pair<std::string, Value>> cells{
        {"thread", lane},
        {"source-lane", inactive ? Value{Undefined{}} : Value{m.source}},
        {"ll-model", m.defined() ? Value{I{model.ll[l]}} : Value{Undefined{}}},
        {"double-model", m.defined() ? Value{model.dbl[l]} : Value{Undefined{}}}};
    if (gpu) {
      cells.emplace_back("ll-gpu", inactive ? Value{Undefined{}} : Value{I{gpu->ll[l]}});
      cells.emplace_back("double-gpu", inactive ? Value{Undefined{}} : Value{gpu->dbl[l]});
    }
    t.row(cells, note_lane(a, lane, m, !gpu || shuffle64_lane_agrees(m, model, *gpu, l)));
  }
  s.add(std::move(t));
  a.check(s, "gpu-agrees", say("shfl-64.gpu-agrees"), lanes_detail(a));
  add_sass(s, run.ctx.compute_capability());
  return s;
}

report::Section cg_tiles_part(Run& run) {
  const Lanes& predicate = run.vote.predicate;
  const TileLanes model = model_tiles(run.in.values, predicate);
  std::optional<TileLanes> gpu;
  if (run.ctx.gpu) gpu = gpu_tiles(run.in.values, predicate);

  report::Section s("cg-tiles", say("cg-tiles.title"));
  s.paragraph(say("cg-tiles.partitions"));
  s.fact("block-indices", say("cg-tiles.block-indices"), say("cg-tiles.block-indices-value"), report::Format::plain,
         say("cg-tiles.block-indices-source"));
  s.add(lanes_table("ranks", say("cg-tiles.ranks-title"), kRanks, model, gpu, nullptr, predicate));
  s.paragraph(say("cg-tiles.static-tile"));
  s.add(lanes_table("tile", say("cg-tiles.tile-title"), kTile, model, gpu, &run.in, predicate));
  if (gpu) {
    const report::Agreement a = judge_tiles(model, *gpu);
    a.check(s, "gpu-agrees", say("cg-tiles.gpu-agrees"), lanes_detail(a));
  }

  s.paragraph(say("cg-tiles.no-shfl"));
  const ExpectedError e = expected_error("warp_primitives/thread_group_shfl");
  if (!e.available) {
    s.note(e.reason);
    return s;
  }
  s.fact("thread-group-shfl", e.compiler, e.failed ? e.first_error : say("cg-tiles.it-compiled"));
  s.check("thread-group-has-no-shfl", say("cg-tiles.no-shfl-check"),
          e.failed && e.first_error.find("shfl_down") != std::string::npos,
          say(e.failed ? "cg-tiles.no-shfl-named" : "cg-tiles.no-shfl-compiled"));
  return s;
}

}  // namespace cudasync::warp_primitives

// Parts shfl, shfl-up, shfl-down, shfl-xor: what each lane received, from the GPU beside the model.
#include "core/report/text_format.hpp"
#include "techniques/warp_primitives/warp_primitives_gpu.hpp"
#include "techniques/warp_primitives/warp_primitives_judge.hpp"
#include "techniques/warp_primitives/warp_primitives_lesson.hpp"

namespace cudasync::warp_primitives {

namespace {

using report::RowMark;
using report::Undefined;
using report::Value;

const char* part_id(ShuffleOp op) {
  switch (op) {
    case ShuffleOp::idx: return "shfl";
    case ShuffleOp::up: return "shfl-up";
    case ShuffleOp::down: return "shfl-down";
    case ShuffleOp::bfly: return "shfl-xor";
  }
  return "shfl";
}

const char* symbol(ShuffleOp op) {
  switch (op) {
    case ShuffleOp::idx: return "__shfl_sync";
    case ShuffleOp::up: return "__shfl_up_sync";
    case ShuffleOp::down: return "__shfl_down_sync";
    case ShuffleOp::bfly: return "__shfl_xor_sync";
  }
  return "__shfl_sync";
}

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

}  // namespace

report::RowMark lane_mark(LaneOutcome o) {
  switch (o) {
    case LaneOutcome::inactive: return RowMark::inactive;
    case LaneOutcome::kept_own: return RowMark::kept_own;
    case LaneOutcome::undefined_source: return RowMark::undefined_src;
    case LaneOutcome::received: break;
  }
  return RowMark::none;
}

ShuffleSpec shuffle_spec(ShuffleOp op, const Inputs& in) {
  ShuffleSpec s;
  s.op = op;
  s.width = in.width;
  s.warp = in.warp;
  s.values = in.values;
  s.param = op == ShuffleOp::idx ? in.src_lane : op == ShuffleOp::bfly ? in.lane_mask : in.delta;
  return s;
}

std::string shuffle_call(ShuffleOp op, const ShuffleSpec& s) {
  return std::string(symbol(op)) + "(" + report::format_value(std::int64_t{s.warp.mask}, report::Format::hex32) +
         ", v, " + std::to_string(s.param) + ", " + std::to_string(s.width) + ")";
}

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
  bool undefined_shown = false;
  for (int lane = 0; lane < spec.warp.threads; ++lane) {
    const auto l = static_cast<std::size_t>(lane);
    const ShuffleLane& m = model[l];
    const bool inactive = m.outcome == LaneOutcome::inactive;
    RowMark mark = lane_mark(m.outcome);
    undefined_shown = undefined_shown || m.outcome == LaneOutcome::undefined_source;
    Value got = Undefined{};
    if (gpu) {
      const std::int32_t g = (*gpu)[l];
      if (!shuffle_lane_agrees(m, g)) mark = RowMark::mismatch;
      if (!(inactive && g == kPoison)) got = g;
    }
    std::vector<std::pair<std::string, Value>> cells{{"thread", lane},
                                                     {"segment-lane", m.segment_lane},
                                                     {"source-lane", inactive ? Value{Undefined{}} : Value{m.source}},
                                                     {"var", spec.values[l]},
                                                     {"model", m.defined() ? Value{m.value} : Value{Undefined{}}}};
    if (gpu) cells.emplace_back("gpu", got);
    t.row(cells, mark);
  }
  t.picture = report::shuffle_picture("thread", "source-lane", spec.width, "var", "model");  // --html draws it
  if (gpu && undefined_shown)
    t.legend.push_back(say("shuffles.undefined-legend"));
  s.add(std::move(t));
  if (gpu) {
    const LaneVerdict v = judge_shuffle(model, *gpu, spec.warp.threads);
    s.agreement("gpu-agrees", part_id(op), v.passed(), v.detail());
  }
  return s;
}

}  // namespace cudasync::warp_primitives

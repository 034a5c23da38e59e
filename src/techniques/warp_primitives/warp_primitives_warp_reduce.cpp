// Part warp-reduce: a warp sum by shuffles, every lane after every step, shfl_down against
// shfl_xor (Fan 10.3.2).
#include "techniques/warp_primitives/warp_primitives_gpu.hpp"
#include "techniques/warp_primitives/warp_primitives_judge.hpp"
#include "techniques/warp_primitives/warp_primitives_lesson.hpp"

namespace cudasync::warp_primitives {

namespace {

report::Table trace_table(const std::string& id, const std::string& title, const ReductionTrace& shown,
                          const ReductionTrace& model, bool compare, LaneVerdict& verdict) {
  report::Table t(id, title);
  t.column("lane", "lane").column("start", "start");
  const char* steps[] = {"after-16", "after-8", "after-4", "after-2", "after-1"};
  const char* titles[] = {"+16", "+8", "+4", "+2", "+1"};
  for (int k = 0; k < kTraceSteps - 1; ++k) t.column(steps[k], titles[k]);
  for (int lane = 0; lane < kWarpSize; ++lane) {
    const auto l = static_cast<std::size_t>(lane);
    std::vector<std::pair<std::string, report::Value>> cells{{"lane", lane}, {"start", shown[0][l]}};
    bool ok = shown[0][l] == model[0][l];
    for (int k = 1; k < kTraceSteps; ++k) {
      const auto st = static_cast<std::size_t>(k);
      cells.emplace_back(steps[k - 1], shown[st][l]);
      ok = ok && shown[st][l] == model[st][l];
    }
    if (compare) {
      ++verdict.compared;
      if (!ok) verdict.mismatches.push_back(lane);
    }
    t.row(cells, compare && !ok ? report::RowMark::mismatch : report::RowMark::none);
  }
  return t;
}

int lanes_holding(const Lanes& lanes, std::int64_t value) {
  int n = 0;
  for (auto v : lanes) n += v == value ? 1 : 0;
  return n;
}

}  // namespace

report::Section warp_reduce_part(Run& run) {
  const Lanes& values = run.in.values;
  std::int64_t right = 0;
  for (auto v : values) right += v;
  report::Section s("warp-reduce", say("warp-reduce.title"));
  s.paragraph(say("warp-reduce.about"));
  s.fact("right-sum", say("syncwarp.right-sum"), right);
  const bool gpu = run.ctx.gpu;
  const ReductionTrace m_down = model_reduction_trace(values, ShuffleOp::down);
  const ReductionTrace m_xor = model_reduction_trace(values, ShuffleOp::bfly);
  const ReductionTrace down = gpu ? gpu_reduction_trace(values, ShuffleOp::down) : m_down;
  const ReductionTrace bfly = gpu ? gpu_reduction_trace(values, ShuffleOp::bfly) : m_xor;
  const std::string source = say(gpu ? "warp-reduce.from-gpu" : "warp-reduce.from-model");
  LaneVerdict bad_down, bad_xor;
  s.add(trace_table("shfl-down", "v += __shfl_down_sync(0xffffffff, v, offset) " + source, down, m_down, gpu, bad_down));
  s.add(trace_table("shfl-xor", "v += __shfl_xor_sync(0xffffffff, v, offset) " + source, bfly, m_xor, gpu, bad_xor));
  if (gpu) {
    s.agreement("shfl-down-agrees", say("warp-reduce.down-agrees"), bad_down.passed(), bad_down.detail());
    s.agreement("shfl-xor-agrees", say("warp-reduce.xor-agrees"), bad_xor.passed(), bad_xor.detail());
  }
  const Lanes& last_down = down[kTraceSteps - 1];
  const Lanes& last_xor = bfly[kTraceSteps - 1];
  const int down_total = lanes_holding(last_down, right), xor_total = lanes_holding(last_xor, right);
  s.check("shfl-down-sum-in-lane-0", say("warp-reduce.down-check"), last_down[0] == right,
          say(down_total == 1 ? "warp-reduce.down-detail-one" : "warp-reduce.down-detail",
              {{"lane-0", last_down[0]}, {"holding", down_total}}));
  s.check("shfl-xor-sum-in-every-lane", say("warp-reduce.xor-check"), xor_total == kWarpSize,
          say("warp-reduce.xor-detail", {{"holding", xor_total}, {"sum", right}}));
  return s;
}

}  // namespace cudasync::warp_primitives

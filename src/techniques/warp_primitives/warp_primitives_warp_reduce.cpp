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
  report::Section s("warp-reduce", "warp sum by shuffles, offset 16 ... 1: shfl_down and shfl_xor");
  s.paragraph("Each column is every lane's v after one step. shfl_down moves values towards lane 0: only lane 0 ends "
              "with the sum, the upper lanes hold partial garbage. shfl_xor exchanges in pairs: every lane ends with "
              "the sum (a butterfly), so no broadcast is needed afterwards.");
  s.fact("right-sum", "right sum", right);
  const bool gpu = run.ctx.gpu;
  const ReductionTrace m_down = model_reduction_trace(values, ShuffleOp::down);
  const ReductionTrace m_xor = model_reduction_trace(values, ShuffleOp::bfly);
  const ReductionTrace down = gpu ? gpu_reduction_trace(values, ShuffleOp::down) : m_down;
  const ReductionTrace bfly = gpu ? gpu_reduction_trace(values, ShuffleOp::bfly) : m_xor;
  const std::string source = gpu ? " (values from the GPU)" : " (reference model)";
  LaneVerdict bad_down, bad_xor;
  s.add(trace_table("shfl-down", "v += __shfl_down_sync(0xffffffff, v, offset)" + source, down, m_down, gpu, bad_down));
  s.add(trace_table("shfl-xor", "v += __shfl_xor_sync(0xffffffff, v, offset)" + source, bfly, m_xor, gpu, bad_xor));
  if (gpu) {
    s.agreement("shfl-down-agrees", "shfl_down trace, every step", bad_down.passed(), bad_down.detail());
    s.agreement("shfl-xor-agrees", "shfl_xor trace, every step", bad_xor.passed(), bad_xor.detail());
  }
  const Lanes& last_down = down[kTraceSteps - 1];
  const Lanes& last_xor = bfly[kTraceSteps - 1];
  const int down_total = lanes_holding(last_down, right), xor_total = lanes_holding(last_xor, right);
  s.check("shfl-down-sum-in-lane-0", "shfl_down leaves the sum in lane 0", last_down[0] == right,
          "lane 0 holds " + std::to_string(last_down[0]) + "; " + std::to_string(down_total) +
              (down_total == 1 ? " lane of 32 holds" : " of 32 lanes hold") + " the sum");
  s.check("shfl-xor-sum-in-every-lane", "shfl_xor leaves the sum in every lane", xor_total == kWarpSize,
          std::to_string(xor_total) + " of 32 lanes hold " + std::to_string(right));
  return s;
}

}  // namespace cudasync::warp_primitives

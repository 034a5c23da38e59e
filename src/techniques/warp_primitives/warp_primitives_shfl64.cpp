// Part shfl-64 (Fan 10.3): __shfl_down_sync of a long long and of a double, per lane from the GPU
// beside the model, and the SASS of this build: two SHFL for a 64-bit value, one for 32 bits.
#include <algorithm>

#include "core/kernel_listing.hpp"
#include "techniques/warp_primitives/warp_primitives_gpu.hpp"
#include "techniques/warp_primitives/warp_primitives_judge.hpp"
#include "techniques/warp_primitives/warp_primitives_lesson.hpp"

namespace cudasync::warp_primitives {

namespace {

using I = std::int64_t;
using report::RowMark;
using report::Undefined;
using report::Value;

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
    s.note(say("shfl-64.no-listing", {{"reason", listing.available ? say("shfl-64.no-sass") : listing.reason}}));
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

}  // namespace

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
  std::optional<LaneVerdict> verdict;
  if (gpu) verdict = judge_shuffle64(lanes, model, *gpu, spec.warp.threads);
  for (int lane = 0; lane < spec.warp.threads; ++lane) {
    const auto l = static_cast<std::size_t>(lane);
    const ShuffleLane& m = lanes[l];
    const bool inactive = m.outcome == LaneOutcome::inactive;
    std::vector<std::pair<std::string, Value>> cells{
        {"thread", lane},
        {"source-lane", inactive ? Value{Undefined{}} : Value{m.source}},
        {"ll-model", m.defined() ? Value{I{model.ll[l]}} : Value{Undefined{}}},
        {"double-model", m.defined() ? Value{model.dbl[l]} : Value{Undefined{}}}};
    RowMark mark = lane_mark(m.outcome);
    if (gpu) {
      cells.emplace_back("ll-gpu", inactive ? Value{Undefined{}} : Value{I{gpu->ll[l]}});
      cells.emplace_back("double-gpu", inactive ? Value{Undefined{}} : Value{gpu->dbl[l]});
      const auto& bad = verdict->mismatches;
      if (std::find(bad.begin(), bad.end(), lane) != bad.end()) mark = RowMark::mismatch;
    }
    t.row(cells, mark);
  }
  s.add(std::move(t));
  if (verdict) s.agreement("gpu-agrees", say("shfl-64.gpu-agrees"), verdict->passed(), verdict->detail());
  add_sass(s, run.ctx.compute_capability());
  return s;
}

}  // namespace cudasync::warp_primitives

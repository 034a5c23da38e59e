// --bench's cost model (core/cost/reduce_model.hpp): every kernel's GB/s at every size predicted
// from its launches, the bytes it reads, its blocks and its same-address atomics, each a primitive
// measured in the same run; and the target, the best kernel >= 0.98 x CUB at every size.
#include "techniques/cg_reduce/cg_reduce_cost.hpp"

#include "core/cost/compare.hpp"
#include "core/report/text_format.hpp"
#include "techniques/cg_reduce/cg_reduce_lesson.hpp"
#include "techniques/cg_reduce/cg_reduce_judge.hpp"
#include "techniques/cg_reduce/cg_reduce_model.hpp"

namespace cudasync::cg_reduce {

namespace {

using report::Format;
using report::Value;

constexpr double kLibrarySpeed = 0.98;  // within 2 % of CUB: the library's speed, within two runs' spread

cost::ReduceDesign design_of(Kernel k) {
  switch (k) {
    case Kernel::two_pass_fixed_grid:
    case Kernel::two_pass_occupancy:
    case Kernel::two_pass_vector:
    case Kernel::static_buffer: return cost::ReduceDesign::two_pass;
    case Kernel::grid_sync: return cost::ReduceDesign::grid_sync;
    case Kernel::cub_sum: return cost::ReduceDesign::cub;
    case Kernel::one_pass_vector: return cost::ReduceDesign::one_pass;
    default: return cost::ReduceDesign::atomic;
  }
}

int grid_of(Kernel k, const Plan& p) {
  switch (k) {
    case Kernel::two_pass_fixed_grid:
    case Kernel::static_buffer: return p.seed_grid;
    case Kernel::two_pass_vector: return p.vector_grid;
    case Kernel::grid_sync: return p.grid_sync_grid;
    case Kernel::one_pass_vector: return p.one_pass_grid;
    default: return p.occupancy_grid;  // the occupancy rung, and CUB's second pass read as one like it
  }
}

cost::ReduceShape shape_of(Kernel k, const Plan& p, Dtype d, int log2_n) {
  cost::ReduceShape s;
  s.n = std::int64_t{1} << log2_n;
  s.elem_bytes = static_cast<int>(type_bytes(d));
  s.block = p.block;
  s.grid = grid_of(k, p);
  s.at = "2-" + std::to_string(log2_n);
  return s;
}

Value missing(bool gpu) { return gpu ? Value{report::Undefined{}} : Value{report::NeedsGpu{}}; }

void add_versus_cub(report::Section& s, const std::vector<Kernel>& kernels, const std::vector<int>& sizes,
                const sweep::Sweep& sw, bool gpu) {
  std::size_t cub = 0;
  for (std::size_t r = 0; r < kernels.size(); ++r)
    if (kernels[r] == Kernel::cub_sum) cub = r;
  report::Table t("best-vs-cub", say("cost.title", {{"ratio", report::fixed(kLibrarySpeed, 2)}}));
  t.column("size", say("column.size"))
      .column("cub", "CUB", Format::gbps)
      .column("best", say("cost.best-kernel"))
      .column("best-ratio", "x CUB", Format::ratio)
      .column("library-speed", say("cost.library-speed"));
  bool met = true;
  for (std::size_t c = 0; c < sizes.size(); ++c) {
    const auto best = sw.best(c);
    const auto ratio = best ? sw.ratio(*best, c) : std::nullopt;
    met = met && ratio && *ratio >= kLibrarySpeed;
    t.row({{"size", "2^" + std::to_string(sizes[c])},
           {"cub", sw.median(cub, c) ? Value{*sw.median(cub, c)} : missing(gpu)},
           {"best", best ? Value{std::string(kernel_id(kernels[*best]))} : missing(gpu)},
           {"best-ratio", ratio ? Value{*ratio} : missing(gpu)},
           {"library-speed", ratio ? Value{*ratio >= kLibrarySpeed} : missing(gpu)}});
  }
  s.add(std::move(t));
  s.fact("best-at-library-speed", say("cost.best-at-library-speed"), gpu ? Value{met} : Value{report::NeedsGpu{}});
}

}  // namespace

std::vector<Kernel> bench_kernels() {
  std::vector<Kernel> v(kLadder.begin(), kLadder.end());
  v.insert(v.end(), std::begin(kBenchCandidates), std::end(kBenchCandidates));
  return v;
}

std::vector<cost::Need> cost_needs(const std::vector<Kernel>& kernels, const Plan& p, Dtype d,
                                   const std::vector<int>& sizes) {
  std::vector<cost::Need> needs;
  for (Kernel k : kernels)
    for (int l : sizes)
      for (cost::Need& n : cost::reduce_needs(design_of(k), shape_of(k, p, d, l))) cost::add_need(needs, std::move(n));
  return needs;
}

cost::Key read_key(const Plan& p, Dtype d, int log2_n) {
  return cost::read_need(shape_of(Kernel::two_pass_vector, p, d, log2_n)).key;
}

void add_cost_model(report::Section& s, const std::vector<Kernel>& kernels, const Plan& p, Dtype d,
                    const std::vector<int>& sizes, const sweep::Sweep& sw, const cost::Primitives& prims, bool gpu) {
  std::vector<cost::Cell> cells;
  for (std::size_t r = 0; r < kernels.size(); ++r)
    for (std::size_t c = 0; c < sizes.size(); ++c) {
      const cost::ReduceShape shape = shape_of(kernels[r], p, d, sizes[c]);
      cost::Cell cell;
      cell.row = cell.row_title = kernel_id(kernels[r]);
      cell.column = shape.at;
      cell.column_title = "2^" + std::to_string(sizes[c]);
      cell.predicted = cost::predict_reduce(design_of(kernels[r]), shape, prims);
      cell.measured = sw.median(r, c);
      cell.bytes = shape.bytes();
      cells.push_back(std::move(cell));
    }
  cost::add_model(s, cells, {"GB/s", Format::gbps, cost::kTolerance}, cost_needs(kernels, p, d, sizes), prims, gpu);
  add_versus_cub(s, kernels, sizes, sw, gpu);
}

}  // namespace cudasync::cg_reduce

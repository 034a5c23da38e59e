// --bench's cost model (core/cost/lock_model.hpp): every lock at every contention level predicted
// from primitives measured in the same run under that lock's own waiters, beside its median.
#include <optional>

#include "core/cost/compare.hpp"
#include "core/cost/lock_model.hpp"
#include "techniques/lock/lock_lesson.hpp"

namespace cudasync::lock {

namespace {

std::optional<cost::LockDesign> design_of(Variant v) {
  switch (v) {
    case Variant::book: return cost::LockDesign::book;
    case Variant::fenced: return cost::LockDesign::fenced;
    case Variant::acq_rel: return cost::LockDesign::acq_rel;
    case Variant::ttas: return cost::LockDesign::ttas;
    case Variant::ttas_same_line: return cost::LockDesign::ttas_same_line;
    case Variant::backoff: return cost::LockDesign::backoff;
    case Variant::ticket: return cost::LockDesign::ticket;
    case Variant::warp_aggregated: return cost::LockDesign::warp_aggregated;
    case Variant::combining: return cost::LockDesign::combining;
    default: return std::nullopt;  // not in the bench
  }
}

}  // namespace

std::vector<cost::Need> cost_needs(const BenchPart& p) {
  std::vector<cost::Need> needs;
  for (Variant v : p.locks)
    if (const auto d = design_of(v))
      for (const BenchConfig& c : p.configs)
        for (cost::Need& n : cost::lock_needs(*d, c.blocks, c.threads)) cost::add_need(needs, std::move(n));
  return needs;
}

void add_cost_model(report::Section& s, const BenchPart& p, const std::vector<std::optional<double>>& medians,
                    bool gpu_run) {
  std::vector<cost::Cell> cells;
  for (std::size_t l = 0; l < p.locks.size(); ++l) {
    const auto d = design_of(p.locks[l]);
    if (!d) continue;
    for (std::size_t c = 0; c < p.configs.size(); ++c) {
      const BenchConfig& cfg = p.configs[c];
      cost::Cell cell;
      cell.row = cell.row_title = bench_id(p.locks[l]);
      cell.column = grid_id(cfg.blocks, cfg.threads);
      cell.column_title = grid_id(cfg.blocks, cfg.threads);
      cell.predicted = cost::predict_lock(*d, cfg.blocks, cfg.threads, p.primitives);
      cell.measured = medians.at(l * p.configs.size() + c);
      cells.push_back(std::move(cell));
    }
  }
  cost::add_model(s, cells, {say("bench.unit"), report::Format::ns, cost::kTolerance}, cost_needs(p), p.primitives,
                  gpu_run);
}

}  // namespace cudasync::lock

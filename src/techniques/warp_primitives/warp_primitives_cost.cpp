// Part cost: cycles per operation in a dependent chain in one warp, Fan's warp sums beside
// NVIDIA's built-ins (cooperative_groups::reduce, __reduce_add_sync).
#include "techniques/warp_primitives/warp_primitives_gpu.hpp"
#include "techniques/warp_primitives/warp_primitives_lesson.hpp"

namespace cudasync::warp_primitives {

namespace {

struct CostRow {
  const char* id;
  const char* title;
  const char* note;  // a key of the lesson's catalog
  CostProbe probe;
  bool needs_cc80;
};

const CostRow kRows[] = {
    {"shfl-xor", "__shfl_xor_sync", "cost.note-shfl-xor", CostProbe::shfl_xor, false},
    {"ballot", "__ballot_sync", "cost.note-ballot", CostProbe::ballot, false},
    {"match-any", "__match_any_sync", "cost.note-match-any", CostProbe::match_any, false},
    {"sum-shared-syncwarp", "sum: shared + __syncwarp", "cost.note-sum-shared-syncwarp", CostProbe::sum_shared_syncwarp,
     false},
    {"sum-shfl-down", "sum: 5 x __shfl_down_sync", "cost.note-sum-shfl-down",
     CostProbe::sum_shfl_down, false},
    {"sum-shfl-xor", "sum: 5 x __shfl_xor_sync", "cost.note-sum-shfl-xor", CostProbe::sum_shfl_xor, false},
    {"sum-cg-reduce", "sum: cg::reduce", "cost.note-sum-cg-reduce",
     CostProbe::sum_cg_reduce, false},
    {"sum-reduce-add", "sum: __reduce_add_sync", "cost.note-sum-reduce-add", CostProbe::sum_reduce_add,
     true},
};

}  // namespace

report::Section cost_part(Run& run) {
  const bool bench = run.ctx.bench;
  const int iterations = bench ? 4096 : 1024;
  const int reps = bench ? 31 : 7;
  report::Section s("cost", say("cost.title"));
  s.paragraph(say("cost.about", {{"iterations", iterations}}));
  for (const auto& row : kRows) {
    const bool waived = run.ctx.gpu && row.needs_cc80 && run.ctx.compute_capability() < 80;
    std::vector<double> cycles;
    if (run.ctx.gpu && !waived)
      for (int i = 0; i < reps; ++i) cycles.push_back(gpu_cycles_per_op(row.probe, iterations));
    auto m = report::measured(row.id, row.title, report::Format::cycles, cycles, run.ctx.gpu,
                              say(waived ? "cost.waived-cc80" : row.note));
    s.add(std::move(m));
  }
  return s;
}

}  // namespace cudasync::warp_primitives

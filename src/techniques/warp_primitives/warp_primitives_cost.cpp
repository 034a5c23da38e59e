// Part cost: cycles per operation in a dependent chain in one warp, Fan's warp sums beside
// NVIDIA's built-ins (cooperative_groups::reduce, __reduce_add_sync).
#include "techniques/warp_primitives/warp_primitives_gpu.hpp"
#include "techniques/warp_primitives/warp_primitives_lesson.hpp"

namespace cudasync::warp_primitives {

namespace {

struct CostRow {
  const char* id;
  const char* title;
  const char* note;
  CostProbe probe;
  bool needs_cc80;
};

const CostRow kRows[] = {
    {"shfl-xor", "__shfl_xor_sync", "one shuffle", CostProbe::shfl_xor, false},
    {"ballot", "__ballot_sync", "one vote", CostProbe::ballot, false},
    {"match-any", "__match_any_sync", "one match", CostProbe::match_any, false},
    {"sum-shared-syncwarp", "sum: shared + __syncwarp", "Fan 10.2, the guarded loop", CostProbe::sum_shared_syncwarp,
     false},
    {"sum-shfl-down", "sum: 5 x __shfl_down_sync", "Fan 10.3.2, then a broadcast from lane 0",
     CostProbe::sum_shfl_down, false},
    {"sum-shfl-xor", "sum: 5 x __shfl_xor_sync", "every lane ends with the sum", CostProbe::sum_shfl_xor, false},
    {"sum-cg-reduce", "sum: cg::reduce", "built-in: cooperative_groups::reduce on a tile of 32",
     CostProbe::sum_cg_reduce, false},
    {"sum-reduce-add", "sum: __reduce_add_sync", "built-in: one REDUX instruction (8.0+)", CostProbe::sum_reduce_add,
     true},
};

}  // namespace

report::Section cost_part(Run& run) {
  const bool bench = run.ctx.bench;
  const int iterations = bench ? 4096 : 1024;
  const int reps = bench ? 31 : 7;
  report::Section s("cost", "cost: latency in one warp, a dependent chain");
  s.paragraph("Each figure is clock64 cycles per operation over " + std::to_string(iterations) +
              " dependent repetitions in one warp (one sample per launch). The last two rows are NVIDIA's built-ins "
              "for a warp sum, beside Fan's ladders.");
  for (const auto& row : kRows) {
    const bool waived = run.ctx.gpu && row.needs_cc80 && run.ctx.compute_capability() < 80;
    std::vector<double> cycles;
    if (run.ctx.gpu && !waived)
      for (int i = 0; i < reps; ++i) cycles.push_back(gpu_cycles_per_op(row.probe, iterations));
    auto m = report::measured(row.id, row.title, report::Format::cycles, cycles, run.ctx.gpu,
                              waived ? "waived: needs compute capability 8.0+" : row.note);
    s.add(std::move(m));
  }
  return s;
}

}  // namespace cudasync::warp_primitives

// named-barriers' cost part: ns per barrier in one block, four kinds of barrier at five block sizes, measured
// against __syncthreads() in the same run (core/sweep).
#include "core/sweep/sweep.hpp"
#include "techniques/named_barriers/lesson.hpp"

namespace cudasync::named_barriers {

namespace {

struct CostRow {
  sweep::Point point;
  const char* note;  // a key of the lesson's catalog
  CostVariant variant;
  bool needs_cc80;
};
const CostRow kCostRows[] = {
    {{"syncthreads", "__syncthreads()"}, "cost.note-syncthreads", CostVariant::syncthreads, false},
    {{"named-halves", "bar.sync 1|2, half"}, "cost.note-named-halves",
     CostVariant::named_halves, false},
    {{"arrive-sync", "bar.arrive + bar.sync"}, "cost.note-arrive-sync",
     CostVariant::arrive_sync_pair, false},
    {{"cuda-barrier", "cuda::barrier arrive_and_wait"}, "cost.note-cuda-barrier", CostVariant::cuda_barrier,
     true},
};
const int kCostBlocks[] = {64, 128, 256, 512, 1024};

}  // namespace

report::Section cost_part(Run& run) {
  const bool gpu = run.ctx.gpu;
  const int iterations = run.ctx.bench ? 20000 : 2000;
  const int reps = run.ctx.bench ? 31 : 5;
  report::Section s("cost", say("cost.title"));
  s.paragraph(say("cost.about", {{"iterations", iterations}}));
  // The sweep's titles stay English: core/sweep writes English sentences around them ("the fastest
  // barrier other than ... at each block size").
  sweep::Sweep sw("cost", "ns per barrier", report::Format::ns, sweep::Better::lower);
  std::vector<sweep::Point> rows, columns;
  for (const auto& r : kCostRows) rows.push_back(r.point);
  for (int block : kCostBlocks) columns.push_back({std::to_string(block), std::to_string(block)});
  sw.rows("barrier", rows).columns("block size", columns).baseline("syncthreads");
  for (std::size_t r = 0; r < rows.size(); ++r)
    if (gpu && kCostRows[r].needs_cc80 && run.ctx.compute_capability() < 80)
      for (std::size_t c = 0; c < columns.size(); ++c) sw.skip(r, c, say("cost.waived-cc80"));
  sw.run(gpu, [&](std::size_t r, std::size_t c) {
    std::vector<double> ns;
    for (int i = 0; i < reps; ++i) ns.push_back(gpu_ns_per_barrier(kCostRows[r].variant, kCostBlocks[c], iterations));
    return ns;
  });
  sw.add_to(s, gpu);
  for (const auto& r : kCostRows) s.tables.front().legend.push_back(r.point.title + ": " + say(r.note));
  return s;
}

}  // namespace cudasync::named_barriers

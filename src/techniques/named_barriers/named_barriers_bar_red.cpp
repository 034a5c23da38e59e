// Part bar-red: __syncthreads_count/and/or beside the inline PTX bar.red.popc/.and/.or, one row
// per predicate.
#include "core/report/text_format.hpp"
#include "techniques/named_barriers/named_barriers_gpu.hpp"
#include "techniques/named_barriers/named_barriers_judge.hpp"
#include "techniques/named_barriers/named_barriers_lesson.hpp"

namespace cudasync::named_barriers {

namespace {

using I = std::int64_t;
using report::Value;

// The GPU columns, in RedColumn order.
const char* const kGpuColumns[kRedColumns][2] = {{"sync-count", "__syncthreads_count"}, {"sync-and", "_and"},
                                                 {"sync-or", "_or"},                   {"ptx-popc", "bar.red.popc"},
                                                 {"ptx-and", ".and"},                  {"ptx-or", ".or"}};

}  // namespace

report::Section bar_red_part(Run& run) {
  const int threads = run.in.red_threads, id = run.in.red_id;
  const bool gpu = run.ctx.gpu;
  report::Section s("bar-red", "bar.red: __syncthreads_count / _and / _or beside bar.red.popc / .and / .or");
  s.paragraph(
      "A barrier that also reduces a predicate over the block: every thread waits, and every thread gets the "
      "number of threads whose predicate is true (popc), whether all are (and), whether any is (or). "
      "__syncthreads_count/and/or compile to bar.red on barrier 0; the inline PTX here uses barrier " +
      std::to_string(id) + ". __syncthreads_and/or promise only non-zero for true (CUDA C++ Programming Guide, "
      "\"Synchronization Functions\"); they are compared as truth values.");
  s.fact("threads", "threads in the block", static_cast<I>(threads), report::Format::count,
         "lane = tid % 32, warp = tid / 32");
  report::Table t("reductions", "what every thread received");
  t.column("predicate", "predicate").column("model-count", "count").column("model-and", "and").column("model-or", "or");
  if (gpu)
    for (const auto& c : kGpuColumns) t.column(c[0], c[1]);
  for (std::size_t i = 0; i < run.in.predicates.size(); ++i) {
    const Predicate& p = run.in.predicates[i];
    const auto values = evaluate(p, threads, run.ctx.seed);
    const RedTotals m = model_red(values);
    std::vector<std::pair<std::string, Value>> cells{{"predicate", p.text},
                                                     {"model-count", static_cast<I>(m.count)},
                                                     {"model-and", static_cast<I>(m.all)},
                                                     {"model-or", static_cast<I>(m.any)}};
    report::RowMark mark = report::RowMark::none;
    if (gpu) {
      const RedVerdict v = judge_red(threads, m, gpu_red(RedSpec{threads, id, values}));
      for (int c = 0; c < kRedColumns; ++c) {
        const auto& got = v.values[static_cast<std::size_t>(c)];
        cells.emplace_back(kGpuColumns[c][0], got ? Value{static_cast<I>(*got)} : Value{std::string("differs")});
      }
      if (!v.passed()) mark = report::RowMark::mismatch;
      s.agreement("predicate-" + std::to_string(i) + "-gpu-agrees", p.text, v.passed(),
                  v.passed() ? "all " + std::to_string(threads) + " threads got count " + std::to_string(m.count) +
                                   ", and " + std::to_string(m.all) + ", or " + std::to_string(m.any) + " from both forms"
                             : "columns " + report::list_of(v.bad_columns) + " differ");
    }
    t.row(cells, mark);
  }
  if (gpu) t.legend.push_back("gpu columns: the value every thread received (\"differs\" if threads disagree)");
  s.add(std::move(t));
  if (!gpu) s.note("what the GPU's __syncthreads_* and bar.red return needs a GPU");
  return s;
}

}  // namespace cudasync::named_barriers

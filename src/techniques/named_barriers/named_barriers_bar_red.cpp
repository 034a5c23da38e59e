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

// The GPU columns, in RedColumn order ("bar" ".red.popc": an instruction name written whole would read
// as a catalog key to the words test).
const char* const kGpuColumns[kRedColumns][2] = {{"sync-count", "__syncthreads_count"}, {"sync-and", "_and"},
                                                 {"sync-or", "_or"},                   {"ptx-popc", "bar" ".red.popc"},
                                                 {"ptx-and", ".and"},                  {"ptx-or", ".or"}};

}  // namespace

report::Section bar_red_part(Run& run) {
  const int threads = run.in.red_threads, id = run.in.red_id;
  const bool gpu = run.ctx.gpu;
  report::Section s("bar-red", say("bar-red.title"));
  s.paragraph(say("bar-red.about", {{"id", id}}));
  s.fact("threads", say("bar-red.threads"), static_cast<I>(threads), report::Format::count,
         "lane = tid % 32, warp = tid / 32");
  report::Table t("reductions", say("bar-red.reductions-title"));
  t.column("predicate", say("bar-red.predicate")).column("model-count", say("phases.count"));
  t.column("model-and", "and").column("model-or", "or");
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
        cells.emplace_back(kGpuColumns[c][0], got ? Value{static_cast<I>(*got)} : Value{say("bar-red.differs")});
      }
      if (!v.passed()) mark = report::RowMark::mismatch;
      s.agreement("predicate-" + std::to_string(i) + "-gpu-agrees", p.text, v.passed(),
                  v.passed() ? say("bar-red.agrees-yes", {{"threads", threads}, {"count", m.count}, {"and", m.all}, {"or", m.any}})
                             : say("bar-red.agrees-no", {{"columns", report::list_of(v.bad_columns)}}));
    }
    t.row(cells, mark);
  }
  if (gpu) t.legend.push_back(say("bar-red.gpu-legend"));
  s.add(std::move(t));
  if (!gpu) s.note(say("bar-red.needs-gpu"));
  return s;
}

}  // namespace cudasync::named_barriers

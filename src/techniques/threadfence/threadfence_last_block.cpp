// Part last-block: the SO Docs single-pass reduction, where the last block to finish merges the
// partials; its two guards (with the acquire half they lack) and two broken ones, run after run
// against the model's exact sum.
#include "techniques/threadfence/threadfence_gpu.hpp"
#include "techniques/threadfence/threadfence_lesson.hpp"

namespace cudasync::threadfence {

using report::Format;
using I = std::int64_t;

report::Section last_block_section(const LastBlockSpec& spec, std::uint64_t model_sum,
                                   const std::vector<LastBlockOutcome>& runs, bool gpu_run) {
  report::Section s("last-block", say("last-block.title"));
  s.paragraph(say("last-block.about"));
  s.paragraph(say("last-block.about-broken"));
  s.fact("blocks", say("grid.blocks"), I{spec.blocks}, Format::count);
  s.fact("threads", say("grid.threads"), I{spec.threads}, Format::count);
  s.fact("elements", say("last-block.elements"), static_cast<I>(spec.elements()), Format::count,
         say("last-block.per-thread", {{"count", spec.per_thread}}));
  s.fact("model-sum", say("last-block.model-sum"), static_cast<I>(model_sum), Format::exact, say("last-block.model-sum-note"));
  s.fact("runs", say("last-block.runs"), I{spec.runs}, Format::count, say("last-block.runs-note"));
  report::Table t("guards", say("last-block.table-title"));
  t.column("guard", say("last-block.guard")).column("model", say("the-model")).column("runs", say("last-block.runs-column"), Format::count);
  if (gpu_run)  // what only a GPU gives: the model's table leaves it out
    t.column("right", say("last-block.right"), Format::count)
        .column("wrong", say("last-block.wrong"), Format::count)
        .column("reset", say("last-block.reset"), Format::count);
  for (const auto& o : runs) {
    const bool correct = guard_is_correct(o.variant);
    std::vector<std::pair<std::string, report::Value>> cells{
        {"guard", to_string(o.variant)}, {"model", say(correct ? "last-block.always-right" : "last-block.may-be-wrong")}};
    report::RowMark mark = report::RowMark::none;
    if (!o.gpu) {
      cells.emplace_back("runs", I{spec.runs});
      t.row(cells, mark);
      continue;
    }
    const GuardTally g = tally_guard(*o.gpu, model_sum);
    cells.insert(cells.end(), {{"runs", static_cast<I>(g.runs)},
                               {"right", static_cast<I>(g.right)},
                               {"wrong", static_cast<I>(g.wrong())},
                               {"reset", static_cast<I>(g.reset)}});
    const std::string id = guard_id(o.variant);
    if (correct) {
      if (g.right != g.runs) mark = report::RowMark::mismatch;
      s.agreement(id + "-sum", say("last-block.every-sum", {{"guard", to_string(o.variant)}}), g.right == g.runs,
                  say("last-block.of-runs", {{"count", g.right}, {"runs", g.runs}}));
      s.check(id + "-counter-reset", say("last-block.counter-reset", {{"guard", to_string(o.variant)}}),
              g.reset == g.runs, say("last-block.of-runs", {{"count", g.reset}, {"runs", g.runs}}));
    } else {
      s.note(say("last-block.wrong-note", {{"guard", to_string(o.variant)}, {"wrong", g.wrong()}, {"runs", g.runs}}));
    }
    t.row(cells, mark);
  }
  for (const char* line : {"last-block.legend-1", "last-block.legend-2", "last-block.legend-3", "last-block.legend-4"})
    t.legend.push_back(say(line));
  s.add(std::move(t));
  if (!gpu_run) s.note(say("last-block.no-gpu"));
  return s;
}

report::Section last_block_part(Run& run) {
  LastBlockSpec spec;
  if (run.ctx.gpu) spec.blocks = 2 * run.ctx.device->sm_count;
  spec.runs = run.ctx.bench ? 1000 : 200;
  spec.input = make_last_block_input(spec.elements(), run.ctx.seed);
  const std::uint64_t sum = exact_sum(spec.input);
  std::vector<LastBlockOutcome> outcomes;
  for (int v = 0; v < kLastBlockVariants; ++v) {
    LastBlockOutcome out;
    out.variant = static_cast<LastBlockVariant>(v);
    if (run.ctx.gpu) out.gpu = gpu_last_block(spec, out.variant);
    outcomes.push_back(std::move(out));
  }
  return last_block_section(spec, sum, outcomes, run.ctx.gpu);
}

}  // namespace cudasync::threadfence

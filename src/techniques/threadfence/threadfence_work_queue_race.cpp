// Part work-queue-race: the SO Docs WorkQueue with no __syncthreads() between two fetch() calls.
// fetch() returns a reference to one __shared__ item; a warp still working on it when thread 0
// fetches the next one files its result under the next item. Counted on the GPU, explained by the
// model from the GPU's own fetch order, and fixed by the barrier SO Docs asks for.
#include "core/report/text_format.hpp"
#include "techniques/threadfence/threadfence_gpu.hpp"
#include "techniques/threadfence/threadfence_lesson.hpp"

namespace cudasync::threadfence {

using report::Format;
using report::Value;
using I = std::int64_t;

namespace {

constexpr int kTraceTurns = 6;  // turns of block 0 the trace shows

const RaceVariant kRaceOrder[] = {RaceVariant::no_barrier, RaceVariant::barrier};

Value item_cell(std::int32_t i) {
  if (i >= 0) return I{i};
  return std::string(i == kNoItem ? "none" : "?");
}

// Block 0's first turns: the item thread 0 fetched, and what each warp filed its result under.
report::Table trace_table(const RaceSpec& spec, RaceVariant v, const RaceOutcome& o) {
  const bool gpu = o.gpu.has_value();
  report::Table t("trace-" + std::string(race_id(v)),
                  std::string(to_string(v)) + ": block 0, turn by turn" + (gpu ? " (GPU)" : " (reference model)"));
  t.column("turn", "turn", Format::count).column("item", "worked on");
  for (int w = 0; w < spec.warps(); ++w) t.column("warp-" + std::to_string(w), "warp " + std::to_string(w));
  t.column("misfiled", "misfiled", Format::count);
  const std::vector<std::int32_t> seq = gpu ? fetched_sequences(spec, *o.gpu)[0] : race_schedule(spec, v)[0];
  for (int k = 0; k < kTraceTurns && k < static_cast<int>(seq.size()) && seq[static_cast<std::size_t>(k)] >= 0; ++k) {
    const std::int32_t item = seq[static_cast<std::size_t>(k)];
    const std::int32_t next = k + 1 < static_cast<int>(seq.size()) ? seq[static_cast<std::size_t>(k + 1)] : kNoTurn;
    std::vector<std::pair<std::string, Value>> cells{{"turn", I{k}}, {"item", item_cell(item)}};
    I moved = 0;
    for (int w = 0; w < spec.warps(); ++w) {
      const std::int32_t f =
          gpu ? o.gpu->filed_by[static_cast<std::size_t>(k * spec.warps() + w)] : filed_under(spec, v, item, next, w);
      moved += f != item ? 1 : 0;
      cells.emplace_back("warp-" + std::to_string(w), item_cell(f));
    }
    cells.emplace_back("misfiled", moved);
    t.row(cells);
  }
  t.legend.push_back("warp w: the item warp w filed its result under (none: it filed nothing)");
  t.legend.push_back("a warp's share of an item takes cost x share units of work:");
  t.legend.push_back("share 2 for warp 0, 1 or 3 for each other warp");
  return t;
}

}  // namespace

report::Section work_queue_race_section(const RaceSpec& spec, const std::vector<RaceOutcome>& runs, bool gpu_run) {
  report::Section s("work-queue-race", "WorkQueue race: two fetch() calls with no __syncthreads() between them");
  s.paragraph(
      "SO Docs: WorkQueue::fetch() returns a reference to one __shared__ WorkItem, and \"one must not call "
      "fetch() twice without another __syncthreads() in between\". Here every block loops: fetch(), each warp "
      "works on its share of the item, then reads the item again through the reference to file its result "
      "under it. Warp 0, which holds thread 0, is done with its share before some other warps are with theirs; "
      "without the barrier thread 0 goes straight to the next fetch() and stores the next index in the same "
      "__shared__ word, and a warp still working files its result under that next item.");
  s.paragraph(
      "What the model says: a warp whose share is larger than warp 0's files under the next item thread 0 "
      "fetched (nothing, when the queue was empty); every other warp files under its own. So the item a block "
      "works on first loses the slow warps' results, and an item whose turn follows a slow warp's gets that "
      "warp's result twice when the warp is fast on it. With the __syncthreads() after filing no warp can be "
      "overtaken: every share is filed exactly once, under its own item. No fence is involved: this is a race "
      "on shared memory inside one block.");
  s.fact("blocks", "blocks", I{spec.blocks}, Format::count);
  s.fact("warps", "warps per block", I{spec.warps()}, Format::count, std::to_string(spec.threads) + " threads");
  s.fact("items", "items", I{spec.items()}, Format::count, "1 to 4 units each, drawn with --seed");
  s.fact("unit", "unit", I{spec.unit_cycles}, Format::cycles, "of spinning on clock64");
  s.fact("portions", "shares to file", I{spec.items() * spec.warps()}, Format::count, "items x warps");
  report::Table t("variants", gpu_run ? "every share of every item, counted" : "every share of every item (reference model)");
  t.column("variant", "between fetches").column("model", "the model");
  t.column("once", "once", Format::count).column("lost", "never", Format::count);
  t.column("twice", "twice", Format::count).column("misfiled", "misfiled", Format::count);
  if (gpu_run) t.column("predicted", "predicted", Format::count);
  for (const auto& o : runs) {
    const bool ok = o.variant == RaceVariant::barrier;
    std::vector<std::pair<std::string, Value>> cells{{"variant", std::string(to_string(o.variant))},
                                                     {"model", std::string(ok ? "each share once" : "may lose, double")}};
    report::RowMark mark = report::RowMark::none;
    if (!gpu_run || !o.gpu) {
      const RaceCounts m = race_counts(spec, o.variant, race_schedule(spec, o.variant));
      const RaceSummary sum = summarize_counts(m.counts);
      cells.insert(cells.end(), {{"once", static_cast<I>(sum.once)},
                                 {"lost", static_cast<I>(sum.lost)},
                                 {"twice", static_cast<I>(sum.twice)},
                                 {"misfiled", static_cast<I>(m.misfiled)}});
      if (gpu_run) cells.emplace_back("predicted", report::NeedsGpu{});
      t.row(cells, mark);
      continue;
    }
    const RaceTally g = tally_race(spec, o.variant, *o.gpu);
    cells.insert(cells.end(), {{"once", static_cast<I>(g.gpu.once)},
                               {"lost", static_cast<I>(g.gpu.lost)},
                               {"twice", static_cast<I>(g.gpu.twice)},
                               {"misfiled", static_cast<I>(g.gpu_misfiled)},
                               {"predicted", static_cast<I>(g.predicted)}});
    const std::string id = race_id(o.variant);
    const std::string counted = std::to_string(g.gpu.once) + " of " + std::to_string(g.gpu.portions) +
                                " once, " + std::to_string(g.gpu.lost) + " never, " + std::to_string(g.gpu.twice) +
                                " twice; " + std::to_string(g.lanes_disagree) + " with lanes that disagree";
    if (ok) {
      const bool each = g.gpu.once == g.gpu.portions && g.lanes_disagree == 0 && g.gpu_misfiled == 0;
      if (!each) mark = report::RowMark::mismatch;
      s.agreement(id + "-each-share-once", std::string(to_string(o.variant)) + ": every share filed once, under its item",
                  each, counted);
    } else {
      s.note(std::string(to_string(o.variant)) + " on this GPU: " + counted + "; the model, from this run's own "
             "fetch order, predicted " + std::to_string(g.predicted) + " of " + std::to_string(g.gpu.portions) +
             " counts exactly (" + std::to_string(g.model_summary.lost) + " never, " +
             std::to_string(g.model_summary.twice) + " twice). A race depends on timing: none seen would not "
             "make the loop correct.");
    }
    s.check(id + "-log-complete", std::string(to_string(o.variant)) + ": every block's turns were recorded",
            g.log_complete, "up to " + std::to_string(spec.max_turns) + " turns per block");
    t.row(cells, mark);
  }
  t.legend.push_back("once, never, twice: shares (one warp's part of one item) filed that often");
  t.legend.push_back("misfiled: turns x warps whose result went under another item, or under none");
  if (gpu_run) t.legend.push_back("predicted: shares whose count the model gives from this run's fetch order");
  s.add(std::move(t));
  for (const auto& o : runs) s.add(trace_table(spec, o.variant, gpu_run ? o : RaceOutcome{o.variant, {}}));
  if (!gpu_run) s.note("counts need a GPU: the model's schedule shows the same race under ideal timing");
  return s;
}

report::Section work_queue_race_part(Run& run) {
  const RaceSpec spec = make_race_spec(run.ctx.seed);
  std::vector<RaceOutcome> runs;
  for (RaceVariant v : kRaceOrder) {
    RaceOutcome o;
    o.variant = v;
    if (run.ctx.gpu) o.gpu = gpu_queue_race(spec, v);
    runs.push_back(std::move(o));
  }
  return work_queue_race_section(spec, runs, run.ctx.gpu);
}

}  // namespace cudasync::threadfence

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
  return i == kNoItem ? say("race.none") : std::string("?");
}

// Block 0's first turns: the item thread 0 fetched, and what each warp filed its result under.
report::Table trace_table(const RaceSpec& spec, RaceVariant v, const RaceOutcome& o) {
  const bool gpu = o.gpu.has_value();
  report::Table t("trace-" + std::string(race_id(v)),
                  say(gpu ? "race.trace-title-gpu" : "race.trace-title-model", {{"variant", to_string(v)}}));
  t.column("turn", say("race.turn"), Format::count).column("item", say("race.worked-on"));
  for (int w = 0; w < spec.warps(); ++w) t.column("warp-" + std::to_string(w), say("race.warp", {{"warp", w}}));
  t.column("misfiled", say("race.misfiled"), Format::count);
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
  t.legend.push_back(say("race.trace-legend-1"));
  t.legend.push_back(say("race.trace-legend-2"));
  t.legend.push_back(say("race.trace-legend-3"));
  return t;
}

}  // namespace

report::Section work_queue_race_section(const RaceSpec& spec, const std::vector<RaceOutcome>& runs, bool gpu_run) {
  report::Section s("work-queue-race", say("race.title"));
  s.paragraph(say("race.about"));
  s.paragraph(say("race.about-model"));
  s.fact("blocks", say("grid.blocks"), I{spec.blocks}, Format::count);
  s.fact("warps", say("race.warps"), I{spec.warps()}, Format::count, say("race.threads", {{"threads", spec.threads}}));
  s.fact("items", say("queue.items"), I{spec.items()}, Format::count, say("race.items-note"));
  s.fact("unit", say("queue.unit"), I{spec.unit_cycles}, Format::cycles, say("race.unit-note"));
  s.fact("portions", say("race.portions"), I{spec.items() * spec.warps()}, Format::count, say("race.portions-note"));
  report::Table t("variants", say(gpu_run ? "race.table-gpu" : "race.table-model"));
  t.column("variant", say("race.between-fetches")).column("model", say("the-model"));
  t.column("once", say("race.once"), Format::count).column("lost", say("race.never"), Format::count);
  t.column("twice", say("race.twice"), Format::count).column("misfiled", say("race.misfiled"), Format::count);
  if (gpu_run) t.column("predicted", say("race.predicted"), Format::count);
  for (const auto& o : runs) {
    const bool ok = o.variant == RaceVariant::barrier;
    std::vector<std::pair<std::string, Value>> cells{{"variant", to_string(o.variant)},
                                                     {"model", say(ok ? "race.each-share-once" : "race.may-lose")}};
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
    const std::string counted = say("race.counted", {{"once", g.gpu.once},
                                                     {"portions", g.gpu.portions},
                                                     {"lost", g.gpu.lost},
                                                     {"twice", g.gpu.twice},
                                                     {"disagree", g.lanes_disagree}});
    if (ok) {
      const bool each = g.gpu.once == g.gpu.portions && g.lanes_disagree == 0 && g.gpu_misfiled == 0;
      if (!each) mark = report::RowMark::mismatch;
      s.agreement(id + "-each-share-once", say("race.every-share-once", {{"variant", to_string(o.variant)}}), each,
                  counted);
    } else {
      s.note(say("race.gpu-note", {{"variant", to_string(o.variant)},
                                   {"counted", counted},
                                   {"predicted", g.predicted},
                                   {"portions", g.gpu.portions},
                                   {"lost", g.model_summary.lost},
                                   {"twice", g.model_summary.twice}}));
    }
    s.check(id + "-log-complete", say("race.log-complete", {{"variant", to_string(o.variant)}}), g.log_complete,
            say("race.log-complete-detail", {{"turns", spec.max_turns}}));
    t.row(cells, mark);
  }
  t.legend.push_back(say("race.legend-counts"));
  t.legend.push_back(say("race.legend-misfiled"));
  if (gpu_run) t.legend.push_back(say("race.legend-predicted"));
  s.add(std::move(t));
  for (const auto& o : runs) s.add(trace_table(spec, o.variant, gpu_run ? o : RaceOutcome{o.variant, {}}));
  if (!gpu_run) s.note(say("race.no-gpu"));
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

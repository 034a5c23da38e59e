// The grid parts: grid-oversubscribed (a software grid barrier over more blocks than can be
// resident, and its two fixes: a grid sized by the occupancy API; cudaLaunchCooperativeKernel,
// which refuses) and producer-before-consumer (block b waits for block b + 1, which may have no
// slot; the fix, a ticket per block in the order blocks start). The model runs each block range by
// block range against the co-residency limit.
#include "techniques/deadlock_demo/lesson.hpp"

#include <algorithm>
#include <functional>

namespace cudasync::deadlock_demo {

using report::Format;
using I = std::int64_t;

namespace {

// The co-residency of a grid kernel (the occupancy API's on a GPU, an H100's in the model) and the
// grid (--blocks, or twice what fits).
struct Grid {
  Coresidency c;
  int blocks = 0;
  bool too_many() const { return blocks > c.limit(); }
};

Grid grid_of(const Run& run, GridKernel kernel) {
  Grid g;
  g.c = run.ctx.gpu ? gpu_coresidency(kernel, run.ctx.device->index) : model_coresidency();
  g.blocks = run.options.blocks.value_or(std::clamp(2 * g.c.limit(), 2, kMaxBlocks));  // half has no slot
  return g;
}

// The launch's facts and the model's side of a grid part: its schedule, wait-for graph and stuck
// set, its count of blocks that never get a slot ("model-no-slot": the cycle's words as a number),
// its checks.
void add_grid_model(report::Section& s, const Run& run, const Grid& g, const ScenarioModel& m, const Describe& describe,
                    const std::string& what) {
  s.fact("launch", say("grid.launch"), say("grid.launch-value", {{"grid", grid_text(g.blocks, kGridThreads)}, {"what", what}}),
         Format::plain, say("grid.launch-note", {{"ms", run.options.deadline_ms}}));
  s.fact("blocks", say("grid.blocks"), I{g.blocks}, Format::count);
  s.fact("resident", say("grid.resident"), I{g.c.limit()}, Format::count, g.c.text());
  s.add(steps_table(m.steps, "schedule", say("tables.schedule-title")));
  add_model_facts(s, m, describe, "block");
  const auto late = std::count_if(m.records.begin(), m.records.end(),
                                  [](const Record& r) { return r.state == static_cast<int>(State::late); });
  s.fact("model-no-slot", say("grid.model-no-slot"), I{late}, Format::count, say("grid.model-no-slot-note"));
  add_model_checks(s, m, g.too_many());
}

// The broken launch on this GPU: what every block did, and its checks against the deadline or the
// result, and against the model (`completes` names the check of a grid that fits).
void add_gpu_grid(report::Section& s, const Run& run, const Grid& g, const GridRun& gpu, const ScenarioModel& model,
                  const Describe& describe, const std::string& completes) {
  add_gpu_ranges(s, gpu.records, describe, "block", "gpu-blocks", say("gpu.every-block"), "gpu-stuck",
                 say("gpu.who-was-stuck"));
  if (g.too_many()) {
    s.check("ended", say("checks.ended-block"),
            ended_at_deadline(gpu.records, gpu.timed_out, run.options.deadline_ms, "block"));
  } else {
    s.check("completes", completes, completed(gpu));
  }
  s.agreement("gpu-agrees", say("gpu.agrees"), stuck_agreement(gpu.records, model.records, describe, "block"));
}

}  // namespace

// ---- grid-oversubscribed --------------------------------------------------------------------------

Describe barrier_describe(int blocks) {
  return describe_as(say("describe.passed-barrier"), [blocks](const Record& r) {
    return say("describe.spun-on-counter", {{"seen", r.seen}, {"blocks", blocks}});
  });
}

ScenarioModel grid_barrier_model(int blocks, const Coresidency& c) {
  ScenarioModel m;
  const int limit = c.limit();
  const int first = std::min(blocks, limit);
  m.steps.push_back({say("model.block-scheduler"), say("grid-model.starts", {{"blocks", blocks_text(0, first - 1)},
                                                                             {"limit", limit}, {"coresidency", c.text()}})});
  m.steps.push_back({blocks_text(0, first - 1), say("grid-model.each-add", {{"first", first}, {"blocks", blocks}})});
  if (blocks <= limit) {
    m.steps.push_back({blocks_text(0, blocks - 1), say("grid-model.pass", {{"blocks", blocks}})});
    m.records.assign(static_cast<std::size_t>(blocks), rec(State::finished, 0, blocks));
  } else {
    m.deadlock = true;
    const std::string resident = blocks_text(0, limit - 1), waiting = blocks_text(limit, blocks - 1);
    m.steps.push_back({resident, say("grid-model.spin", {{"blocks", blocks}})});
    m.steps.push_back({waiting, say("grid-model.wait-slot")});
    m.steps.push_back({say("model.deadlock"), say("grid-model.deadlock")});
    m.steps.push_back({say("model.the-deadline"), say("grid-model.deadline", {{"resident", resident}, {"waiting", waiting}})});
    const int a = m.graph.add_node(say("model.node-resident", {{"blocks", resident}}));
    const int b = m.graph.add_node(say("model.node-no-slot", {{"blocks", waiting}}));
    m.graph.add_edge(a, b, say("grid-model.edge-counter", {{"limit", limit}, {"blocks", blocks}}));
    m.graph.add_edge(b, a, say("model.edge-slot", {{"limit", limit}}));
    m.waits = {say("grid-model.waits-counter", {{"resident", resident}, {"waiting", waiting}, {"limit", limit}, {"blocks", blocks}}),
               say("model.waits-slot", {{"waiting", waiting}, {"resident", resident}})};
    m.records.assign(static_cast<std::size_t>(limit), rec(State::gave_up, 0, limit));
    m.records.resize(static_cast<std::size_t>(blocks), rec(State::late, 0));
  }
  m.fix_steps = {
      {say("grid-model.fix-1"), say("grid-model.fix-1-what", {{"limit", limit}})},
      {say("grid-model.fix-2"), say(blocks <= limit ? "grid-model.fix-2-fits" : "grid-model.fix-2-refused",
                                    {{"blocks", blocks}})},
  };
  m.fix_completes = true;
  m.fix_result = say("grid-model.fix-result",
                     {{"limit", limit}, {"sum", static_cast<long long>(limit) * (limit + 1) / 2}});
  return m;
}

// ---- producer-before-consumer -----------------------------------------------------------------------

Describe chain_describe() {
  return describe_as(say("state.finished"),
                     [](const Record& r) { return say("describe.spun-on-next-block", {{"seen", r.seen}}); });
}

ScenarioModel chain_model(int blocks, const Coresidency& c) {
  ScenarioModel m;
  const int limit = c.limit();
  const int first = std::min(blocks, limit);
  m.steps.push_back({say("model.block-scheduler"), say("chain-model.starts", {{"blocks", blocks_text(0, first - 1)}})});
  if (blocks <= limit) {
    m.steps.push_back({blocks_text(blocks - 1, blocks - 1), say("chain-model.producer")});
    m.steps.push_back({blocks_text(0, blocks - 1), say("chain-model.each-sees")});
    m.records.assign(static_cast<std::size_t>(blocks), rec(State::finished));
    for (int b = 0; b + 1 < blocks; ++b) m.records[static_cast<std::size_t>(b)] = rec(State::finished, b + 1, 1);
  } else {
    m.deadlock = true;
    const std::string resident = blocks_text(0, limit - 1), waiting = blocks_text(limit, blocks - 1);
    m.steps.push_back({resident, say("chain-model.spin", {{"last", limit - 1}, {"limit", limit}})});
    m.steps.push_back({waiting, say("chain-model.wait-slot", {{"producer", blocks - 1}})});
    m.steps.push_back({say("model.deadlock"), say("chain-model.deadlock")});
    m.steps.push_back({say("model.the-deadline"), say("chain-model.deadline", {{"resident", resident}, {"waiting", waiting}})});
    const int a = m.graph.add_node(say("model.node-resident", {{"blocks", resident}}));
    const int b = m.graph.add_node(say("model.node-no-slot", {{"blocks", waiting}}));
    m.graph.add_edge(a, b, say("chain-model.edge-flag", {{"last", limit - 1}, {"limit", limit}}));
    m.graph.add_edge(b, a, say("model.edge-slot", {{"limit", limit}}));
    m.waits = {say("chain-model.waits-chain", {{"resident", resident}, {"waiting", waiting}, {"producer", blocks - 1}}),
               say("model.waits-slot", {{"waiting", waiting}, {"resident", resident}})};
    for (int b2 = 0; b2 < limit; ++b2) m.records.push_back(rec(State::gave_up, b2 + 1, 0));
    for (int b2 = limit; b2 < blocks; ++b2) m.records.push_back(rec(State::late, b2 + 1 < blocks ? b2 + 1 : -1));
  }
  m.fix_steps = {
      {say("chain-model.fix-first"), say("chain-model.fix-first-what")},
      {say("chain-model.fix-ticket-0"), say("chain-model.fix-ticket-0-what")},
      {say("chain-model.fix-ticket-t"), say("chain-model.fix-ticket-t-what")},
      {say("chain-model.fix-finish"), say("chain-model.fix-finish-what")},
  };
  m.fix_completes = true;
  m.fix_result = say("chain-model.fix-result");
  return m;
}

// Part grid-oversubscribed: a software grid barrier over more blocks than can be resident, and its
// two fixes (a grid sized by the occupancy API; cudaLaunchCooperativeKernel, which refuses).

report::Section grid_part(Run& run) {
  const Grid grid = grid_of(run, GridKernel::counter_barrier);
  const int blocks = grid.blocks;
  const ScenarioModel model = grid_barrier_model(blocks, grid.c);
  report::Section s("grid-oversubscribed", say("grid.title"));
  s.paragraph(say("grid.about"));
  s.paragraph(say("grid.fixes"));
  const Describe describe = barrier_describe(blocks);
  add_grid_model(s, run, grid, model, describe, say("grid.counter-barrier"));
  const std::string launch_title = say("grid.launch-title");
  if (!run.ctx.gpu) {
    s.fact("gpu", say("gpu.this-gpu"), report::NeedsGpu{}, Format::plain, say("grid.gpu-note"));
    s.add(steps_table(model.fix_steps, "fix", say("grid.fixes-title")));
    s.add(launch_time("launch", launch_title, std::nullopt));
    return s;
  }
  const unsigned long long ns = run.deadline_ns();
  const GridRun g = gpu_grid_barrier(blocks, ns);
  add_gpu_grid(s, run, grid, g, model, describe, say("grid.completes"));
  s.fact("counter", say("grid.counter"), I{g.counter}, Format::count, say("grid.counter-note", {{"blocks", blocks}}));
  s.add(launch_time("launch", launch_title, g.ms, say("grid.launch-time-note")));

  const GridRun fix = gpu_grid_barrier(std::min(grid.c.limit(), kMaxBlocks), ns);
  s.fact("fix-occupancy", say("grid.fix-occupancy"), grid_text(fix.blocks, kGridThreads), Format::plain,
         fix.completed ? say("gpu.completed-in", {{"ms", ms_text(fix.ms)}, {"result", fix.result}})
                       : say("grid.a-block-gave-up"));
  s.check("fix-occupancy", say("grid.fix-occupancy-check"), completed(fix));
  if (!gpu_cooperative_launch(run.ctx.device->index)) {
    s.note(say("grid.fix-2-not-run"));
  } else {
    const CoopRun coop = gpu_grid_barrier_cooperative(blocks, ns);
    s.fact("fix-cooperative", say("grid.fix-cooperative"),
           say("grid.fix-cooperative-value", {{"grid", grid_text(blocks, kGridThreads)}, {"outcome", cooperative_outcome(coop)}}),
           Format::plain, say("grid.fix-cooperative-note", {{"ms", ms_text(coop.host_ms)}}));
    if (grid.too_many())
      s.check("fix-cooperative", say("grid.fix-cooperative-refused"), cooperative_refused(coop));
    else
      s.check("fix-cooperative", say("grid.fix-cooperative-completes"), cooperative_completed(coop));
  }
  add_health(s, gpu_health(), "grid-oversubscribed");
  return s;
}

// Part producer-before-consumer: block b waits for block b + 1, which may have no slot; the fix, a
// ticket per block in the order blocks start.

report::Section chain_part(Run& run) {
  const Grid grid = grid_of(run, GridKernel::chain);
  const int blocks = grid.blocks, limit = grid.c.limit();
  const ScenarioModel model = chain_model(blocks, grid.c);
  report::Section s("producer-before-consumer", say("chain.title"));
  s.paragraph(say("chain.about", {{"last", limit - 1}, {"limit", limit}}));
  s.paragraph(say("chain.guaranteed"));
  s.paragraph(say("chain.fix-about"));
  const Describe describe = chain_describe();
  add_grid_model(s, run, grid, model, describe, say("chain.flag-chain"));
  s.add(steps_table(model.fix_steps, "fix", say("chain.fix-title")));
  const std::string launch_title = say("chain.launch-title");
  if (!run.ctx.gpu) {
    s.fact("gpu", say("gpu.this-gpu"), report::NeedsGpu{}, Format::plain, say("chain.gpu-note"));
    s.add(launch_time("launch", launch_title, std::nullopt));
    return s;
  }
  const GridRun g = gpu_chain(blocks, run.deadline_ns(), false);
  add_gpu_grid(s, run, grid, g, model, describe, say("chain.completes"));
  s.add(launch_time("launch", launch_title, g.ms, say("gpu.cuda-events")));

  const GridRun fix = gpu_chain(blocks, run.deadline_ns(), true);
  s.fact("fix-tickets", say("chain.fix-tickets"), grid_text(fix.blocks, kGridThreads), Format::plain,
         fix.completed ? say("gpu.completed-in", {{"ms", ms_text(fix.ms)}, {"result", fix.result}})
                       : say(kGaveUpAtDeadline));
  s.fact("tickets-in-order", say("chain.tickets-in-order"), I{tickets_in_order(fix.tickets)}, Format::count,
         say("chain.tickets-in-order-note", {{"blocks", fix.blocks}}));
  s.check("fix-completes", say("chain.fix-completes"), completed(fix));
  add_health(s, gpu_health(), "producer-before-consumer");
  return s;
}

}  // namespace cudasync::deadlock_demo

// Part work-queue: the SO Docs WorkQueue (each block fetches the next item with atomicAdd when it is
// free) against a fixed a-priori assignment, on items of very uneven cost.
#include <algorithm>

#include "core/report/text_format.hpp"
#include "techniques/threadfence/threadfence_gpu.hpp"
#include "techniques/threadfence/threadfence_lesson.hpp"

namespace cudasync::threadfence {

using report::Format;
using report::Value;
using I = std::int64_t;

namespace {

std::string bar(double v, double max, int width = 12) {
  if (max <= 0) return "";
  const int n = static_cast<int>(v / max * width + 0.5);
  return std::string(static_cast<std::size_t>(std::max(0, n)), '#');
}

void add_model_facts(report::Section& s, const QueueSpec& spec, const Schedule& st, const Schedule& qu) {
  std::uint64_t total = 0;
  std::uint32_t biggest = 0;
  for (auto c : spec.cost_units) {
    total += c;
    biggest = std::max(biggest, c);
  }
  s.fact("blocks", say("grid.blocks"), I{spec.blocks}, Format::count);
  s.fact("threads", say("grid.threads"), I{spec.threads}, Format::count);
  s.fact("items", say("queue.items"), I{spec.items()}, Format::count,
         say("queue.items-note", {{"total", total}, {"largest", biggest}}));
  s.fact("unit", say("queue.unit"), I{spec.unit_cycles}, Format::cycles, say("queue.unit-note"));
  s.fact("slowest-a-priori-model", say("queue.slowest-a-priori-model"), static_cast<I>(st.makespan()), Format::count,
         say("queue.average", {{"average", report::fixed(static_cast<double>(total) / spec.blocks, 1)}}));
  s.fact("slowest-queue-model", say("queue.slowest-queue-model"), static_cast<I>(qu.makespan()), Format::count,
         say("queue.greedy"));
  s.fact("a-priori-vs-queue-model", say("queue.ratio-model"),
         static_cast<double>(st.makespan()) / static_cast<double>(qu.makespan()), Format::ratio);
}

}  // namespace

report::Section work_queue_section(const QueueSpec& spec, const QueueOutcome& gpu, bool gpu_run) {
  report::Section s("work-queue", say("queue.title"));
  s.paragraph(say("queue.about"));
  s.paragraph(say("queue.about-fetch"));
  const Schedule st = static_schedule(spec.cost_units, spec.blocks), qu = queue_schedule(spec.cost_units, spec.blocks);
  add_model_facts(s, spec, st, qu);
  const bool have = gpu.a_priori && gpu.queue;
  std::vector<double> a_ns, q_ns;
  if (have) {
    a_ns = block_ns(*gpu.a_priori);
    q_ns = block_ns(*gpu.queue);
    const double ma = *std::max_element(a_ns.begin(), a_ns.end()), mq = *std::max_element(q_ns.begin(), q_ns.end());
    s.fact("slowest-a-priori-gpu", say("queue.slowest-a-priori-gpu"), ma, Format::ns, say("queue.block-time-note"));
    s.fact("slowest-queue-gpu", say("queue.slowest-queue-gpu"), mq, Format::ns);
    s.fact("a-priori-vs-queue-gpu", say("queue.ratio-gpu"), ma / mq, Format::ratio);
  }
  const Format f = have ? Format::ns : Format::count;
  report::Table t("blocks", say(have ? "queue.table-gpu" : "queue.table-model"));
  t.column("block", say("queue.block"))
      .column("a-priori-items", say("queue.items"), Format::count)
      .column("a-priori", say(have ? "queue.a-priori-ns" : "queue.a-priori-units"), f)
      .column("a-priori-bar", "")
      .column("queue-items", say("queue.items"), Format::count)
      .column("queue", say(have ? "queue.queue-ns" : "queue.queue-units"), f)
      .column("queue-bar", "");
  const auto value = [&](bool queue, std::size_t b) -> double {
    if (have) return (queue ? q_ns : a_ns)[b];
    return static_cast<double>((queue ? qu : st).block_units[b]);
  };
  const auto cell = [&](bool queue, std::size_t b) -> Value {
    if (have) return value(queue, b);
    return static_cast<I>((queue ? qu : st).block_units[b]);
  };
  double max = 0;
  for (std::size_t b = 0; b < static_cast<std::size_t>(spec.blocks); ++b)
    max = std::max({max, value(false, b), value(true, b)});
  for (std::size_t b = 0; b < static_cast<std::size_t>(spec.blocks); ++b)
    t.row({{"block", static_cast<I>(b)},
           {"a-priori-items", I{have ? gpu.a_priori->block_items[b] : st.block_items[b]}},
           {"a-priori", cell(false, b)},
           {"a-priori-bar", bar(value(false, b), max)},
           {"queue-items", I{have ? gpu.queue->block_items[b] : qu.block_items[b]}},
           {"queue", cell(true, b)},
           {"queue-bar", bar(value(true, b), max)}});
  s.add(std::move(t));
  if (!have) {
    if (!gpu_run) s.note(say("queue.no-gpu"));
    return s;
  }
  // Every item exactly once; the fixed assignment exactly as the model says; the checksum.
  for (const auto& [id, title, run] : {std::tuple{"a-priori", "queue.a-priori-each-once", &*gpu.a_priori},
                                       std::tuple{"queue", "queue.queue-each-once", &*gpu.queue}}) {
    const QueueTally q = tally_queue(*run);
    s.agreement(std::string(id) + "-each-item-once", say(title), q.passed(),
                say(q.checksum_equal ? "queue.once-checksum-equal" : "queue.once-checksum-differs",
                    {{"once", q.once}, {"items", q.items}}));
  }
  s.agreement("a-priori-assignment", say("queue.a-priori-assignment"), assignment_agrees(*gpu.a_priori, st),
              say("queue.items-count", {{"count", st.item_block.size()}}));
  return s;
}

report::Section work_queue_part(Run& run) {
  QueueSpec spec;
  spec.cost_units = make_costs(128, run.ctx.seed);
  QueueOutcome got;
  if (run.ctx.gpu) {
    got.a_priori = gpu_queue(spec, false);
    got.queue = gpu_queue(spec, true);
  }
  return work_queue_section(spec, got, run.ctx.gpu);
}

}  // namespace cudasync::threadfence

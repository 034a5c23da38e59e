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
  s.fact("blocks", "blocks", I{spec.blocks}, Format::count);
  s.fact("threads", "threads per block", I{spec.threads}, Format::count);
  s.fact("items", "items", I{spec.items()}, Format::count,
         "costs 1..32 units (log-uniform, --seed), " + std::to_string(total) + " units in all, largest " +
             std::to_string(biggest));
  s.fact("unit", "unit", I{spec.unit_cycles}, Format::cycles, "of spinning on clock64, every thread of the block");
  s.fact("slowest-a-priori-model", "slowest block, a-priori (model, units)", static_cast<I>(st.makespan()), Format::count,
         "the average is " + report::fixed(static_cast<double>(total) / spec.blocks, 1));
  s.fact("slowest-queue-model", "slowest block, WorkQueue (model, units)", static_cast<I>(qu.makespan()), Format::count,
         "greedy: never more than the average + the largest item");
  s.fact("a-priori-vs-queue-model", "a-priori / WorkQueue (model)",
         static_cast<double>(st.makespan()) / static_cast<double>(qu.makespan()), Format::ratio);
}

}  // namespace

report::Section work_queue_section(const QueueSpec& spec, const QueueOutcome& gpu, bool gpu_run) {
  report::Section s("work-queue", "WorkQueue (SO Docs): the next item when free, against a fixed assignment");
  s.paragraph(
      "Items of very uneven cost. A-priori: block b does items b, b + G, b + 2G, ... decided before the launch. "
      "WorkQueue: thread 0 takes the next index with atomicAdd on a counter in global memory, hands it to its "
      "block through shared memory, and the block fetches again when done. No fence is needed: the items were "
      "written before the launch, and the atomicAdd gives every index to exactly one block.");
  s.paragraph(
      "The SO Docs fetch() passes a size_t member by value to atomicAdd (it needs a pointer, and atomicAdd has no "
      "size_t overload: unsigned long long), and returns a reference to the __shared__ item, which the next "
      "fetch() overwrites: SO Docs asks for a __syncthreads() between two calls (--part work-queue-race shows "
      "why); here the item is copied out and a second barrier follows.");
  const Schedule st = static_schedule(spec.cost_units, spec.blocks), qu = queue_schedule(spec.cost_units, spec.blocks);
  add_model_facts(s, spec, st, qu);
  const bool have = gpu.a_priori && gpu.queue;
  std::vector<double> a_ns, q_ns;
  if (have) {
    a_ns = block_ns(*gpu.a_priori);
    q_ns = block_ns(*gpu.queue);
    const double ma = *std::max_element(a_ns.begin(), a_ns.end()), mq = *std::max_element(q_ns.begin(), q_ns.end());
    s.fact("slowest-a-priori-gpu", "slowest block, a-priori (GPU)", ma, Format::ns,
           "clock64 from the block's start to its end");
    s.fact("slowest-queue-gpu", "slowest block, WorkQueue (GPU)", mq, Format::ns);
    s.fact("a-priori-vs-queue-gpu", "a-priori / WorkQueue (GPU)", ma / mq, Format::ratio);
  }
  const Format f = have ? Format::ns : Format::count;
  report::Table t("blocks", have ? "time per block (GPU, ns)" : "work per block (reference model, units)");
  t.column("block", "block")
      .column("a-priori-items", "items", Format::count)
      .column("a-priori", have ? "a-priori ns" : "a-priori units", f)
      .column("a-priori-bar", "")
      .column("queue-items", "items", Format::count)
      .column("queue", have ? "WorkQueue ns" : "WorkQueue units", f)
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
    if (!gpu_run) s.note("times need a GPU: the model's units show the same imbalance");
    return s;
  }
  // Every item exactly once; the fixed assignment exactly as the model says; the checksum.
  for (const auto& [id, name, run] : {std::tuple{"a-priori", "a-priori", &*gpu.a_priori},
                                      std::tuple{"queue", "WorkQueue", &*gpu.queue}}) {
    const QueueTally q = tally_queue(*run);
    s.agreement(std::string(id) + "-each-item-once", std::string(name) + ": every item processed exactly once",
                q.passed(),
                std::to_string(q.once) + " of " + std::to_string(q.items) + " items once, checksum " +
                    (q.checksum_equal ? "equal" : "differs"));
  }
  s.agreement("a-priori-assignment", "a-priori: each item done by the block the model assigns",
              assignment_agrees(*gpu.a_priori, st), std::to_string(st.item_block.size()) + " items");
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

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
  report::Section s("last-block", "lastBlock (SO Docs): one launch, the last block to finish merges");
  s.paragraph(
      "Every block sums its slice and one thread stores partial[blockIdx.x]; then the guard: __threadfence(), "
      "thread 0 takes a ticket with atomicAdd(counter, 1), and the block that draws gridDim.x - 1 adds all the "
      "partials. The fence before the atomicAdd is the release half: the partial is performed before the ticket. "
      "The SO Docs guards stop there. The block that finds itself last also needs the acquire half, a fence after "
      "its atomicAdd and before it reads the partials; cudasync's guards add it, and the last block resets the "
      "counter for the next launch (the SO Docs code never does, so its second launch finds no last block).");
  s.paragraph(
      "Two broken guards run too, and are counted: without any fence, and with guard 1's fences but the partial "
      "stored by the block's last thread while thread 0 takes the ticket: a fence orders only its own thread's "
      "accesses, so without a __syncthreads() between that store and the atomicAdd nothing keeps the ticket "
      "behind the partial. Each run has its own counter and partials, zeroed, so a partial read too early reads "
      "0 and the sum comes out wrong.");
  s.fact("blocks", "blocks", I{spec.blocks}, Format::count);
  s.fact("threads", "threads per block", I{spec.threads}, Format::count);
  s.fact("elements", "elements", static_cast<I>(spec.elements()), Format::count,
         std::to_string(spec.per_thread) + " per thread");
  s.fact("model-sum", "sum (reference model)", static_cast<I>(model_sum), Format::exact, "exact, 64-bit");
  s.fact("runs", "runs per guard", I{spec.runs}, Format::count, "launches, each with fresh counter and partials");
  report::Table t("guards", "each guard, run after run");
  t.column("guard", "guard").column("model", "the model").column("runs", "runs", Format::count);
  if (gpu_run)  // what only a GPU gives: the model's table leaves it out
    t.column("right", "right sum", Format::count)
        .column("wrong", "wrong sum", Format::count)
        .column("reset", "counter reset", Format::count);
  for (const auto& o : runs) {
    const bool correct = guard_is_correct(o.variant);
    std::vector<std::pair<std::string, report::Value>> cells{
        {"guard", std::string(to_string(o.variant))}, {"model", std::string(correct ? "always right" : "may be wrong")}};
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
    const std::string of_runs = std::to_string(g.runs) + " runs";
    const std::string id = guard_id(o.variant);
    if (correct) {
      if (g.right != g.runs) mark = report::RowMark::mismatch;
      s.agreement(id + "-sum", std::string(to_string(o.variant)) + ": every run's sum is the model's",
                  g.right == g.runs, std::to_string(g.right) + " of " + of_runs);
      s.check(id + "-counter-reset", std::string(to_string(o.variant)) + ": the last block reset the counter in every run",
              g.reset == g.runs, std::to_string(g.reset) + " of " + of_runs);
    } else {
      s.note(std::string(to_string(o.variant)) + ": " + std::to_string(g.wrong()) + " wrong of " + of_runs +
             " on this GPU. The PTX memory model allows a wrong sum here; none seen is not proof of correctness.");
    }
    t.row(cells, mark);
  }
  t.legend.push_back("guard 1: __threadfence(); if (tid == 0) last = atomicAdd(counter, 1);");
  t.legend.push_back("         return __syncthreads_or(last == gridDim.x - 1);");
  t.legend.push_back("         (+ __threadfence() after the atomicAdd)");
  t.legend.push_back("guard 2: the same, with __shared__ unsigned last and __syncthreads()");
  s.add(std::move(t));
  if (!gpu_run) s.note("the runs need a GPU: the model gives the sum every right run must produce");
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

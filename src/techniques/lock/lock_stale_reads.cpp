// Part stale-reads: *cnt = *cnt + 1 under the lock with no fence. A block's L1 keeps the counter's
// line from its last critical section; the blog's fixes, and the SASS they compile to.
#include <algorithm>

#include "core/kernel_listing.hpp"
#include "techniques/lock/lock_gpu.hpp"
#include "techniques/lock/lock_lesson.hpp"
#include "techniques/lock/lock_trace.hpp"

namespace cudasync::lock {

namespace {

using I = std::int64_t;

bool is_stale_read_fix(Variant v) { return v == Variant::book_atomic_add || v == Variant::fenced || v == Variant::acq_rel; }

const char* variant_id(Variant v) {
  switch (v) {
    case Variant::book_atomic_add: return "fix-1";
    case Variant::fenced: return "fix-2";
    case Variant::acq_rel: return "fix-3";
    default: return "book";
  }
}

}  // namespace

report::RowMark add_lost_cells(std::vector<std::pair<std::string, report::Value>>& cells,
                               const std::vector<LockRun>& gpu, bool gpu_run, bool must_be_exact, bool runs_losing) {
  if (!gpu_run) {
    for (const char* k : {"lost", "share", "runs-losing", "ns"})
      if (runs_losing || std::string(k) != "runs-losing") cells.emplace_back(k, report::NeedsGpu{});
    return report::RowMark::none;
  }
  if (gpu.empty()) return report::RowMark::none;
  const Lost l = lost_updates(gpu);
  if (l.stuck) cells.emplace_back("lost", std::string("stuck: a wait passed its deadline"));
  else cells.insert(cells.end(), {{"lost", static_cast<I>(l.lost)},
                                  {"share", static_cast<double>(l.lost) / static_cast<double>(l.total)}});
  if (runs_losing) cells.emplace_back("runs-losing", static_cast<I>(l.losing));
  cells.emplace_back("ns", report::median(ns_samples(gpu)));
  return must_be_exact && (l.lost != 0 || l.stuck) ? report::RowMark::mismatch : report::RowMark::none;
}

report::Section stale_reads_section(const StalePart& p, bool gpu_run) {
  report::Section s("stale-reads", "part 3, stale reads: *cnt = *cnt + 1 under the lock, with no fence");
  s.paragraph(
      "The blog says a plain read inside the lock may see an old value written by another block, and offers three "
      "fixes: a delay, atomicAdd, and __threadfence() in lock() and unlock(). The PTX ISA says why: global memory "
      "is coherent in L2, but the L1 caches of different SMs are not, and a plain load (ld.global, cached at all "
      "levels by default) may be served by this SM's L1. atomicCAS and atomicExch are relaxed: they order nothing "
      "else. So after taking the lock a block can read the counter from the line its own L1 kept from its last "
      "critical section, add one to that, and overwrite the updates of every block in between. Alglave et al. "
      "(ASPLOS 2015) found this lock letting stale values through on real GPUs.");
  s.paragraph(
      "Each variant runs " + (p.runs == 1 ? std::string("once") : std::to_string(p.runs) + " times") + " as " +
      grid_text(p.spec.blocks, 1) + " x " + std::to_string(p.spec.iters) +
      " acquisitions; lost updates = expected count - final count. The delay is part 4. The fixes: atomicAdd does "
      "the update in L2; __threadfence() compiles to a fence followed by CCTL.IVALL in the SASS, read here as "
      "dropping this SM's L1 (an inference from the listing and the measurements: NVIDIA does not document "
      "SASS); the third is the modern one the blog does not have, cuda::atomic_ref with acquire when taking the "
      "lock (the atomic, then CCTL.IVALL: no fence) and release when giving it back (a fence, then the store).");
  report::Table t("variants", "lost updates per variant");
  t.column("variant", "variant")
      .column("lost", "lost updates (gpu)", report::Format::count)
      .column("share", "of all updates", report::Format::percent)
      .column("runs-losing", "runs that lost (of " + std::to_string(p.runs) + ")", report::Format::count)
      .column("ns", "ns per handoff (gpu, median)", report::Format::ns)
      .column("model-count", "model: count of 4", report::Format::count)
      .column("model-stale", "model: stale loads", report::Format::count)
      .column("compiled", "fences / cache ops" + (p.arch.empty() ? std::string() : " (" + p.arch + ")"));
  for (const auto& row : p.rows) {
    std::vector<std::pair<std::string, report::Value>> cells{
        {"variant", std::string(variant_name(row.variant))},
        {"model-count", static_cast<I>(row.model.count)},
        {"model-stale", static_cast<I>(row.model.stale_reads)}};
    const report::RowMark mark = add_lost_cells(cells, row.gpu, gpu_run, is_stale_read_fix(row.variant), true);
    if (!p.arch.empty())
      cells.emplace_back("compiled", row.compiled.empty() ? std::string("none") : distinct_instructions(row.compiled));
    t.row(cells, mark);
  }
  t.legend.push_back("model: the counter at the end of its run (2 blocks x 2 acquisitions), and how many loads "
                     "returned an old value");
  if (!p.arch.empty())
    t.legend.push_back("this build's SASS, each instruction once with how often it appears: MEMBAR: a fence; "
                       "ERRBAR: waits for the earlier accesses to be acknowledged; CCTL.IVALL: read as invalidating "
                       "this SM's L1 (what makes the next load go to L2; inferred, not documented); none: no "
                       "fence, no invalidation");
  s.add(std::move(t));
  s.add(program_table(Protocol::book));
  s.add(trace_table(p.trace, "trace",
                    "trace of the model, the blog's code: 2 blocks on 2 SMs, one instruction each per step", true));
  if (!p.trace.first_stale.empty())
    s.fact("how-lost", "reference model: how an update is lost", p.trace.first_stale, report::Format::plain,
           "the store that follows writes that old value + 1 over the newer one");
  for (const auto& row : p.rows) {
    const std::string id = variant_id(row.variant);
    if (is_stale_read_fix(row.variant)) {
      s.check("model-" + id, std::string("reference model: ") + variant_name(row.variant) + " loses nothing",
              row.model.exact() && row.model.stale_reads == 0, model_outcome_text(row.model));
      if (gpu_run) {
        const Verdict v = runs_exact(row.gpu);
        s.agreement("gpu-agrees-" + id, std::string(variant_name(row.variant)) + ": every count exact", v.passed,
                    v.detail);
      }
    } else if (gpu_run && any_timed_out(row.gpu)) {
      s.check(id + "-within-deadline", std::string(variant_name(row.variant)) + ": every wait within its deadline",
              false, "a thread gave up: the count says nothing about stale reads");
    }
  }
  if (gpu_run) {
    Lost book;
    for (const auto& row : p.rows)
      if (row.variant == Variant::book) book = lost_updates(row.gpu);
    s.fact("verdict", "verdict",
           book.lost > 0 ? "the blog's code lost " + std::to_string(book.lost) + " of " + std::to_string(book.total) +
                               " updates on this GPU; each fix made every count exact"
                         : std::string("the blog's code lost no update on this GPU in these runs (its L1 served no "
                                       "old line); the fixes are still what the memory model requires"));
  } else {
    s.fact("verdict", "verdict",
           std::string("the model shows how an L1 line kept from the last critical section loses updates, and that "
                       "each fix prevents it; the counts need a GPU"));
  }
  return s;
}

report::Section stale_reads_part(Run& run) {
  StalePart p;
  p.spec.blocks = run.options.blocks.value_or(kStaleBlocks);
  p.spec.threads = 1;
  p.spec.iters = run.options.iterations.value_or(kStaleIters);
  p.spec.deadline_ns = deadline_for(p.spec.acquisitions());
  p.runs = stale_runs(run.options.runs, p.spec.blocks, p.spec.iters);
  p.arch = run.arch;
  for (Variant v : {Variant::book, Variant::book_atomic_add, Variant::fenced, Variant::acq_rel}) {
    StaleRow row;
    row.variant = v;
    row.model = sim(protocol_of(v), Regime::independent, 2, 1, 2);
    row.compiled = run.sass(kernel_name(v));
    if (run.ctx.gpu) {
      RunSpec spec = p.spec;
      spec.variant = v;
      row.gpu = gpu_runs(spec, p.runs, false);
    }
    p.rows.push_back(std::move(row));
  }
  p.trace = sim(Protocol::book, Regime::independent, 2, 1, 2, kTraceRows);
  return stale_reads_section(p, run.ctx.gpu);
}

}  // namespace cudasync::lock

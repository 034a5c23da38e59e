// Part delay-fix: the blog's first remedy for stale reads, "add a delay after the increment", run
// at several delays and in two places beside the book's lock with no delay and the two real fixes.
// The model shows why no delay can help: the stale line stays in this SM's L1 however long the
// block waits, and in one lockstep warp the delay leaves the deadlock of part 2 where it was.
#include "core/report/text_format.hpp"
#include "techniques/lock/lock_gpu.hpp"
#include "techniques/lock/lock_lesson.hpp"
#include "techniques/lock/lock_trace.hpp"

namespace cudasync::lock {

namespace {

using I = std::int64_t;

bool is_delay(Variant v) { return v == Variant::delay_after || v == Variant::delay_before; }
bool is_fence_fix(Variant v) { return v == Variant::fenced || v == Variant::acq_rel; }

std::string row_name(const DelayRow& r) {
  if (r.variant == Variant::delay_after) return "delay " + delay_text(r.delay_ns) + " after the increment";
  if (r.variant == Variant::delay_before) return "delay " + delay_text(r.delay_ns) + " before the load";
  if (r.variant == Variant::book) return "no delay, no fence";
  if (r.variant == Variant::fenced) return "fix 2: __threadfence()";
  return "fix 3: acquire / release";
}

// The fixes' ids, as part 3 names them.
std::string fix_id(Variant v) { return v == Variant::fenced ? "fix-2" : "fix-3"; }

}  // namespace

report::Section delay_fix_section(const DelayPart& p, bool gpu_run) {
  report::Section s("delay-fix", "part 4, the delay remedy: \"add a delay\" against a stale read");
  s.paragraph(
      "The blog's first remedy for the stale reads of part 3 is to add a delay after the increment, and it doubts "
      "it at once: how long is long enough? Too short is unsafe, too long is slow. It is neither: no delay is long "
      "enough. The lost update comes from a plain load served by this SM's L1, which still holds the line this "
      "block wrote in its last critical section. A delay is a loop on the clock: it reads no memory, orders "
      "nothing, and does not drop the line. The next load reads the same old value, however long the block "
      "waited. Only what the fixes add changes that: a fence or an acquire, which on the GPUs measured drops the "
      "L1 (CCTL.IVALL in the SASS, part 3's table; inferred from the listing, not documented), or an atomic, "
      "which reads in L2.");
  s.paragraph(
      "Each row runs " + (p.runs == 1 ? std::string("once") : std::to_string(p.runs) + " times") + " as " +
      grid_text(p.spec.blocks, 1) + " x " + std::to_string(p.spec.iters) +
      " acquisitions around *cnt = *cnt + 1: the book's lock with no delay, with each delay after the increment "
      "(where the blog puts it) and after taking the lock, before the load (to give the last holder's store time "
      "to arrive), and the two fixes. The delay is a spin on %globaltimer inside the critical section.");
  report::Table t("delays", "lost updates with a delay, and with a fix");
  t.column("variant", "variant")
      .column("lost", "lost (gpu)", report::Format::count)
      .column("share", "of all", report::Format::percent)
      .column("ns", "ns per handoff", report::Format::ns)
      .column("model-count", "model: count of 4", report::Format::count)
      .column("model-stale", "stale loads", report::Format::count);
  std::vector<DelayRuns> delayed;
  std::vector<std::vector<LockRun>> fixes;
  for (const auto& row : p.rows) {
    std::vector<std::pair<std::string, report::Value>> cells{{"variant", row_name(row)},
                                                             {"model-count", static_cast<I>(row.model.count)},
                                                             {"model-stale", static_cast<I>(row.model.stale_reads)}};
    const report::RowMark mark = add_lost_cells(cells, row.gpu, gpu_run, is_fence_fix(row.variant), false);
    t.row(cells, mark);
    if (is_delay(row.variant)) delayed.push_back({row.delay_ns, row.gpu});
    if (is_fence_fix(row.variant)) fixes.push_back(row.gpu);
  }
  t.legend.push_back("gpu: lost updates over every run, their share, ns per handoff (median of the runs)");
  t.legend.push_back("model: the counter after 2 blocks x 2 acquisitions, and its loads that returned an old value;");
  t.legend.push_back("its delay is one step of waiting: any number of steps leaves the same L1 line");
  s.add(std::move(t));
  s.add(program_table(Protocol::delay_after));
  s.add(trace_table(p.trace, "trace",
                    "trace of the model, the blog's delay: 2 blocks on 2 SMs, one instruction each per step", true));
  if (!p.trace.first_stale.empty())
    s.fact("how-lost", "reference model: the read the delay did not prevent", p.trace.first_stale,
           report::Format::plain, "the block waited, and its L1 still held its own old line");
  bool any_delay = false, model_loses = true;
  std::string delayed_model;
  for (const auto& row : p.rows) {
    if (is_delay(row.variant)) {
      any_delay = true;
      model_loses = model_loses && row.model.stale_reads > 0 && row.model.count < row.model.expected;
      if (delayed_model.empty()) delayed_model = model_outcome_text(row.model);
    }
    if (!is_fence_fix(row.variant)) continue;
    s.check("model-" + fix_id(row.variant), std::string("reference model: ") + variant_name(row.variant) + " loses nothing",
            row.model.exact() && row.model.stale_reads == 0, model_outcome_text(row.model));
    if (gpu_run) {
      const Verdict v = runs_exact(row.gpu);
      s.agreement("gpu-agrees-" + fix_id(row.variant), std::string(variant_name(row.variant)) + ": every count exact",
                  v.passed, v.detail);
    }
  }
  if (any_delay)
    s.check("model-delay-loses", "reference model: every delay still reads a stale line and loses an update",
            model_loses, delayed_model);
  if (p.lockstep)
    s.check("model-delay-deadlocks", "reference model, lockstep: lock() with the delay still deadlocks a warp",
            p.lockstep->outcome == Outcome::deadlock,
            p.lockstep->holder.empty() ? model_outcome_text(*p.lockstep) : p.lockstep->holder);
  if (gpu_run) {
    const DelayFinding f = delay_finding(delayed, fixes);
    s.fact("delay-lost", "lost with a delay (every delayed row)", static_cast<I>(f.lost.lost), report::Format::count,
           "of " + report::grouped(static_cast<std::uint64_t>(f.lost.total)) + " updates");
    s.fact("verdict", "verdict", delay_verdict(f));
  } else {
    s.fact("verdict", "verdict",
           std::string("in the model every delay still reads the old line and loses an update, and in one lockstep "
                       "warp it still deadlocks; the counts on a GPU need a GPU"));
  }
  return s;
}

report::Section delay_fix_part(Run& run) {
  DelayPart p;
  p.spec.blocks = run.options.blocks.value_or(kDelayBlocks);
  p.spec.threads = 1;
  p.spec.iters = run.options.iterations.value_or(kDelayIters);
  p.runs = run.options.runs.value_or(kDelayRuns);
  const std::vector<int> delays = run.options.delays.value_or(kDefaultDelaysNs);
  std::vector<std::pair<Variant, unsigned>> rows{{Variant::book, 0}};
  for (int d : delays) rows.emplace_back(Variant::delay_after, static_cast<unsigned>(d));
  for (int d : delays) rows.emplace_back(Variant::delay_before, static_cast<unsigned>(d));
  rows.emplace_back(Variant::fenced, 0);
  rows.emplace_back(Variant::acq_rel, 0);
  for (const auto& [v, ns] : rows) {
    DelayRow row;
    row.variant = v;
    row.delay_ns = ns;
    row.model = sim(protocol_of(v), Regime::independent, 2, 1, 2);
    if (run.ctx.gpu) {
      RunSpec spec = RunSpec::of(v, p.spec.blocks, 1, p.spec.iters);
      spec.delay_ns = ns;
      spec.deadline_ns += static_cast<unsigned long long>(spec.acquisitions()) * ns;  // every holder's delay
      row.gpu = gpu_runs(spec, p.runs, false);
    }
    p.rows.push_back(std::move(row));
  }
  p.trace = sim(Protocol::delay_after, Regime::independent, 2, 1, 2, kTraceRows);
  p.lockstep = sim(Protocol::delay_after, Regime::lockstep, 1, 4, 1);
  return delay_fix_section(p, run.ctx.gpu);
}

}  // namespace cudasync::lock

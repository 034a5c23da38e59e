// Part combining, beyond the blog: the combining lock (flat combining, Hendler et al., SPAA 2010),
// its model run and trace, and on a GPU its time per critical section beside the CAS lock's time
// per handoff at the same grid, in the same run.
#include <algorithm>

#include "core/report/text_format.hpp"
#include "techniques/lock/lock_gpu.hpp"
#include "techniques/lock/lock_lesson.hpp"
#include "techniques/lock/lock_trace.hpp"

namespace cudasync::lock {

namespace {

// The CAS lock runs beside it for its time per handoff, as many iterations as give about
// kBenchUpdates handoffs, and only up to 132 x 128 threads (at about 20 us per contended handoff
// there, more threads would take seconds per launch).
constexpr long long kCasCompareThreads = 132 * 128;

std::string answers_text(const SimResult& r) {
  return r.answers_exact() ? "0.." + std::to_string(r.expected - 1) + ", each once"
                           : std::to_string(r.answers.size()) + " answers, not 0.." + std::to_string(r.expected - 1) +
                                 " each once";
}

std::string model_text(const SimResult& r) {
  std::string t = model_outcome_text(r);
  if (r.outcome != Outcome::completed) return t;
  return t + "; answers " + answers_text(r) + "; " + std::to_string(r.handoffs) + " lock handoffs, " +
         std::to_string(r.served_by_others) + " of " + std::to_string(r.expected) +
         " requests answered by another thread's pass";
}

}  // namespace

report::Section combining_section(const CombiningPart& p, bool gpu_run) {
  report::Section s("combining", "part 8, beyond the blog: a combining lock, many critical sections per lock handoff");
  const std::string grid = grid_text(p.spec.blocks, p.spec.threads);
  s.paragraph(
      "Every lock above hands the lock from one thread to the next once per critical section, and with one thread "
      "per block that handoff is a chain of L2 round trips: the take, the critical section's load, the release "
      "that waits until the store is acknowledged. A combining lock (flat combining: Hendler, Incze, Shavit and "
      "Tzafrir, SPAA 2010) hands it over once for many critical sections. Each thread publishes its request, the "
      "operation and its argument, in its own slot, then waits until the slot holds the answer. A waiter that "
      "finds the lock free takes it (compare_exchange with acquire), serves every request published in the slot "
      "array, writing each answer into its slot, and releases it (store with release); its own request is among "
      "them. Here every request is fetch-and-add(1) on the counter, and its answer is the counter before the "
      "update.");
  s.paragraph(
      "What it can protect: the requests carry data, not code. The thread holding the lock runs operations it "
      "knows (here fetch-and-add) on data that only the lock holder touches: a counter, a queue, a histogram, any "
      "structure whose operations are a name, an argument and an answer. It cannot run a critical section that a "
      "caller writes inline, and the caller never touches the protected data itself: it gets an answer, from "
      "whichever thread held the lock.");
  s.paragraph(
      "Ordering: the counter passes from one lock holder to the next through the lock word's acquire and release. "
      "The slot words are relaxed device-scope atomics: the argument and the answer live in the word that also "
      "says pending or done, so reading done is reading the answer, and a later holder cannot read the old "
      "pending again (it took the lock after the done was written). The check is stronger than a count: n "
      "requests must return 0 .. n-1, each exactly once; two critical sections that overlapped, or a request "
      "served twice, would repeat a value.");
  s.fact("launch", "launch", grid + ", " + std::to_string(p.spec.iters) + " requests per thread", report::Format::plain,
         std::to_string(p.spec.acquisitions()) + " critical sections per launch");
  const SimConfig& m = p.model.config;
  s.fact("model", "reference model, " + std::string(simt::to_string(m.regime)), model_text(p.model),
         report::Format::plain,
         std::to_string(m.blocks) + " x " + std::to_string(m.threads) + " threads x " + std::to_string(m.iters) +
             " requests");
  if (p.lockstep)
    s.fact("model-lockstep-warp", "reference model, one warp of 32 in lockstep", model_outcome_text(*p.lockstep),
           report::Format::plain,
           "the lane that takes the lock serves its whole warp and releases it before the warp reconverges: no lane "
           "holds the lock while it waits (part 2's deadlock cannot happen)");
  s.check("model-exact", "reference model: every count exact and every answer 0..n-1 once", p.model.exact(),
          model_text(p.model));
  if (p.lockstep)
    s.check("model-lockstep-warp", "reference model, lockstep: one warp completes", p.lockstep->exact(),
            model_outcome_text(*p.lockstep));
  s.add(program_table(Protocol::combining));
  for (const auto& tr : p.traces) {
    const bool blocks = tr.config.threads == 1;
    s.add(trace_table(tr, trace_id(tr.config.regime),
                      "trace, " + regime_title(tr.config.regime) + ": " +
                          std::to_string(blocks ? tr.config.blocks : tr.config.threads) + (blocks ? " blocks" : " lanes") +
                          ", " + std::to_string(tr.config.iters) + " requests each",
                      false));
  }
  s.add(report::measured("critical-section", "time per critical section, combining lock, " + grid, report::Format::ns,
                         ns_samples(p.gpu), gpu_run, "launch time / requests, CUDA events"));
  if (p.cas.iters > 0)
    s.add(report::measured("cas-handoff", "time per handoff, CAS lock (atomicCAS, __threadfence, atomicExch), " + grid,
                           report::Format::ns, ns_samples(p.gpu_cas), gpu_run,
                           "the same grid, " + std::to_string(p.cas.iters) +
                               (p.cas.iters == 1 ? " acquisition" : " acquisitions") +
                               " per thread; one critical section per handoff"));
  else
    s.note("the CAS lock is not run beside it above 132 x 128 threads: at about 20 us per contended handoff a launch "
           "would take seconds; --bench compares them up to 132 x 128");
  s.add(report::measured("served-per-handoff", "critical sections served per handoff, combining lock, " + grid,
                         report::Format::count, per_handoff(p.gpu), gpu_run, "requests / times the lock was taken"));
  if (!gpu_run) {
    s.fact("verdict", "verdict",
           std::string("in the model every request gets its own answer; the time per critical section and how many "
                       "one handoff serves need a GPU"));
    return s;
  }
  const Verdict comb = runs_exact(p.gpu);
  s.check("combining-exact", "combining lock: every count exact and every answer 0..n-1 returned once", comb.passed,
          comb.detail);
  if (p.cas.iters > 0) {
    const Verdict cas = runs_exact(p.gpu_cas);
    s.check("cas-exact", "CAS lock at the same grid: every count exact", cas.passed, cas.detail);
  }
  const double comb_ns = report::median(ns_samples(p.gpu)), cas_ns = report::median(ns_samples(p.gpu_cas));
  const std::string served = report::fixed(report::median(per_handoff(p.gpu)), 1);
  if (const auto ratio = combining_ratio(p.gpu, p.gpu_cas)) {
    s.fact("vs-cas", "combining / CAS lock", *ratio, report::Format::ratio,
           report::fixed(comb_ns, 1) + " ns per critical section against " + report::fixed(cas_ns, 1) +
               " ns per handoff (medians of " + std::to_string(p.gpu.size()) + " launches each, this run)");
    s.fact("verdict", "verdict",
           "every request got its own answer; one lock handoff served " + served +
               " critical sections (median), so a critical section cost " + report::fixed(*ratio, 3) +
               " x a CAS lock handoff");
  } else if (comb_ns > 0) {
    s.fact("verdict", "verdict",
           "every request got its own answer; one lock handoff served " + served + " critical sections (median), " +
               report::fixed(comb_ns, 1) + " ns each");
  } else {
    s.fact("verdict", "verdict", std::string("a launch did not complete: see the checks"));
  }
  return s;
}

report::Section combining_part(Run& run) {
  CombiningPart p;
  p.spec = RunSpec::of(Variant::combining, run.options.blocks.value_or(kCombiningBlocks),
                       run.options.threads.value_or(kCombiningThreads),
                       run.options.iterations.value_or(kCombiningIters));
  // The model's trace runs a few blocks of one thread (or a few lanes of one block, when the part
  // runs wider blocks).
  const bool by_block = p.spec.threads == 1;
  const int few_blocks = by_block ? std::min(kTraceLanes, p.spec.blocks) : 1;
  const int few_threads = by_block ? 1 : std::min(kTraceLanes, p.spec.threads);
  if (run.checks(Regime::lockstep)) p.lockstep = sim(Protocol::combining, Regime::lockstep, 1, kWarpSize, 1);
  p.model = sim(Protocol::combining, run.checks(Regime::independent) ? Regime::independent : Regime::lockstep,
                few_blocks, few_threads, 2);
  for (Regime g : run.traced({Regime::independent}))
    p.traces.push_back(sim(Protocol::combining, g, few_blocks, few_threads, 2, kTraceRows));
  if (p.spec.threads_total() <= kCasCompareThreads)
    p.cas = RunSpec::of(Variant::fenced, p.spec.blocks, p.spec.threads,
                        static_cast<int>(std::clamp<long long>(kBenchUpdates / p.spec.threads_total(), 1, p.spec.iters)));
  if (run.ctx.gpu) {
    p.gpu = gpu_runs(p.spec, kTimedReps, true);
    if (p.cas.iters > 0) p.gpu_cas = gpu_runs(p.cas, kTimedReps, true);
  }
  return combining_section(p, run.ctx.gpu);
}

}  // namespace cudasync::lock

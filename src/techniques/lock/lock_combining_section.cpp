// Part 6, beyond the seed: the combining lock (flat combining, Hendler et al., SPAA 2010), its
// model run and trace, and on a GPU its time per critical section beside the CAS lock's time per
// handoff at the same grid, in the same run.
#include <algorithm>

#include "core/report/text_format.hpp"
#include "techniques/lock/lock_section_tools.hpp"
#include "techniques/lock/lock_sections.hpp"

namespace cudasync::lock {

using report::Check;
using report::Fact;
using report::Section;
using report::fixed;

namespace {

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

// Critical sections per lock handoff of each launch that completed.
std::vector<double> per_handoff(const std::vector<LockRun>& runs) {
  std::vector<double> v;
  for (const auto& r : runs)
    if (!r.timed_out() && r.handoffs > 0) v.push_back(static_cast<double>(r.expected) / static_cast<double>(r.handoffs));
  return v;
}

double median_ns(const std::vector<LockRun>& runs) {
  std::vector<double> v;
  for (const auto& r : runs)
    if (!r.timed_out()) v.push_back(ns_per_acquisition(r));
  return report::median(v);
}

}  // namespace

Section combining_section(const CombiningPart& p, bool gpu_run) {
  Section s;
  s.id = "combining";
  s.title = "part 6, beyond the seed: a combining lock, many critical sections per lock handoff";
  const std::string grid = grid_text(p.spec.blocks, p.spec.threads);
  s.paragraphs.push_back(
      "Every lock above hands the lock from one thread to the next once per critical section, and with one thread "
      "per block that handoff is a chain of L2 round trips: the take, the critical section's load, the release "
      "that waits until the store is acknowledged. A combining lock (flat combining: Hendler, Incze, Shavit and "
      "Tzafrir, SPAA 2010) hands it over once for many critical sections. Each thread publishes its request, the "
      "operation and its argument, in its own slot, then waits until the slot holds the answer. A waiter that "
      "finds the lock free takes it (compare_exchange with acquire), serves every request published in the slot "
      "array, writing each answer into its slot, and releases it (store with release); its own request is among "
      "them. Here every request is fetch-and-add(1) on the counter, and its answer is the counter before the "
      "update.");
  s.paragraphs.push_back(
      "What it can protect: the requests carry data, not code. The thread holding the lock runs operations it "
      "knows (here fetch-and-add) on data that only the lock holder touches: a counter, a queue, a histogram, any "
      "structure whose operations are a name, an argument and an answer. It cannot run a critical section that a "
      "caller writes inline, and the caller never touches the protected data itself: it gets an answer, from "
      "whichever thread held the lock.");
  s.paragraphs.push_back(
      "Ordering: the counter passes from one lock holder to the next through the lock word's acquire and release. "
      "The slot words are relaxed device-scope atomics: the argument and the answer live in the word that also "
      "says pending or done, so reading done is reading the answer, and a later holder cannot read the old "
      "pending again (it took the lock after the done was written). The check is stronger than a count: n "
      "requests must return 0 .. n-1, each exactly once; two critical sections that overlapped, or a request "
      "served twice, would repeat a value.");
  s.facts.push_back({"launch", grid + ", " + std::to_string(p.spec.iters) + " requests per thread", "",
                     std::to_string(p.spec.acquisitions()) + " critical sections per launch"});
  s.facts.push_back({"reference model, " + std::string(to_string(p.independent.config.regime)),
                     model_text(p.independent), "",
                     std::to_string(p.independent.config.blocks) + " x " + std::to_string(p.independent.config.threads) +
                         " threads x " + std::to_string(p.independent.config.iters) + " requests"});
  s.facts.push_back({"reference model, one warp of 32 in lockstep", model_outcome_text(p.lockstep), "",
                     "the lane that takes the lock serves its whole warp and releases it before the warp reconverges: "
                     "no lane holds the lock while it waits (part 2's deadlock cannot happen)"});
  s.checks.push_back({"reference model: every count exact and every answer 0..n-1 once", p.independent.exact(),
                      model_text(p.independent)});
  s.checks.push_back({"reference model, lockstep: one warp completes", p.lockstep.exact(),
                      model_outcome_text(p.lockstep)});
  s.tables.push_back(program_table(Protocol::combining, "program"));
  for (const auto& tr : p.traces) {
    const bool blocks = tr.config.threads == 1;
    s.tables.push_back(trace_table(
        tr, std::string("trace_") + to_string(tr.config.regime),
        "trace, " + regime_title(tr.config.regime) + ": " +
            std::to_string(blocks ? tr.config.blocks : tr.config.threads) + (blocks ? " blocks" : " lanes") + ", " +
            std::to_string(tr.config.iters) + " requests each",
        false));
  }
  s.measurements.push_back(per_acquisition("time per critical section, combining lock, " + grid, p.gpu, gpu_run,
                                           "launch time / requests, CUDA events"));
  if (p.cas.iters > 0)
    s.measurements.push_back(per_acquisition(
        "time per handoff, CAS lock (atomicCAS, __threadfence, atomicExch), " + grid, p.gpu_cas, gpu_run,
        "the same grid, " + std::to_string(p.cas.iters) + (p.cas.iters == 1 ? " acquisition" : " acquisitions") +
            " per thread; one critical section per handoff"));
  else
    s.notes.push_back("the CAS lock is not run beside it above 132 x 128 threads: at about 20 us per contended "
                      "handoff a launch would take seconds; --bench compares them up to 132 x 128");
  s.measurements.push_back(report::measured("critical sections served, combining lock, " + grid, "per handoff",
                                            per_handoff(p.gpu), gpu_run, "requests / times the lock was taken"));
  if (!gpu_run) {
    s.facts.push_back({"verdict",
                       std::string("in the model every request gets its own answer; the time per critical section "
                                   "and how many one handoff serves need a GPU"),
                       "", ""});
    return s;
  }
  s.checks.push_back(exact_check("combining lock: every count exact and every answer 0..n-1 returned once", p.gpu));
  if (p.cas.iters > 0) s.checks.push_back(exact_check("CAS lock at the same grid: every count exact", p.gpu_cas));
  const double comb = median_ns(p.gpu), cas = median_ns(p.gpu_cas);
  const std::vector<double> batch = per_handoff(p.gpu);
  if (comb > 0 && cas > 0) {
    const double ratio = comb / cas;
    s.facts.push_back({"combining / CAS lock", fixed(ratio, 3) + " x", "",
                       fixed(comb, 1) + " ns per critical section against " + fixed(cas, 1) +
                           " ns per handoff (medians of " + std::to_string(p.gpu.size()) + " launches each, this run)"});
    s.facts.push_back(
        {"verdict",
         "every request got its own answer; one lock handoff served " + fixed(report::median(batch), 1) +
             " critical sections (median), so a critical section cost " + fixed(ratio, 3) + " x a CAS lock handoff",
         "", ""});
  } else if (comb > 0) {
    s.facts.push_back({"verdict",
                       "every request got its own answer; one lock handoff served " + fixed(report::median(batch), 1) +
                           " critical sections (median), " + fixed(comb, 1) + " ns each",
                       "", ""});
  } else {
    s.facts.push_back({"verdict", std::string("a launch did not complete: see the checks"), "", ""});
  }
  return s;
}

}  // namespace cudasync::lock

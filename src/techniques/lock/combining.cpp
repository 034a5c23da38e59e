// Part combining, beyond the blog: the combining lock (flat combining, Hendler et al., SPAA 2010),
// its model run and trace, and on a GPU its time per critical section beside the CAS lock's time
// per handoff at the same grid, in the same run; and the check of its answers.
#include <algorithm>

#include "core/report/text_format.hpp"
#include "techniques/lock/lesson.hpp"

namespace cudasync::lock {

// check_answers: the combining lock's answers as a check of mutual exclusion and
// linearizability. n fetch-and-add(1) requests on a counter that starts at 0 must return 0 .. n-1,
// each exactly once. Two critical sections that overlapped, an update lost, or a request served
// twice each leave a value missing and another one repeated (or out of range). The count alone
// would not see a wrong answer.
void check_answers(const std::vector<int>& answers, int iters, LockRun& run) {
  const long long n = static_cast<long long>(answers.size());
  std::vector<int> first_seen(answers.size(), -1);  // index of the request that returned each value
  run.answers_checked = n;
  run.answers_bad = 0;
  run.first_bad_answer.clear();
  const auto who = [&](long long k) {
    return say("answers.who", {{"thread", k / iters}, {"request", k % iters + 1}});
  };
  for (long long k = 0; k < n; ++k) {
    const int v = answers[static_cast<std::size_t>(k)];
    std::string bad;
    if (v < 0 || v >= n) {
      bad = say("answers.out-of-range", {{"value", v}, {"last", n - 1}, {"who", who(k)}});
    } else if (first_seen[static_cast<std::size_t>(v)] >= 0) {
      bad = say("answers.twice", {{"value", v}, {"first", who(first_seen[static_cast<std::size_t>(v)])}, {"second", who(k)}});
    } else {
      first_seen[static_cast<std::size_t>(v)] = static_cast<int>(k);
    }
    if (!bad.empty()) {
      ++run.answers_bad;
      if (run.first_bad_answer.empty()) run.first_bad_answer = bad;
    }
  }
}

namespace {

// The CAS lock runs beside it for its time per handoff, as many iterations as give about
// kBenchUpdates handoffs, and only up to 132 x 128 threads (at about 20 us per contended handoff
// there, more threads would take seconds per launch).
constexpr long long kCasCompareThreads = 132 * 128;

std::string answers_text(const SimResult& r) {
  return r.answers_exact() ? say("combining.answers-exact", {{"last", r.expected - 1}})
                           : say("combining.answers-wrong", {{"answers", r.answers.size()}, {"last", r.expected - 1}});
}

std::string model_text(const SimResult& r) {
  std::string t = model_outcome_text(r);
  if (r.outcome != Outcome::completed) return t;
  return say("combining.model-text", {{"outcome", t},
                                      {"answers", answers_text(r)},
                                      {"handoffs", r.handoffs},
                                      {"others", r.served_by_others},
                                      {"requests", r.expected}});
}

}  // namespace

report::Section combining_section(const CombiningPart& p, bool gpu_run) {
  report::Section s("combining", say("combining.title"));
  const std::string grid = grid_text(p.spec.blocks, p.spec.threads);
  s.paragraph(say("combining.about"));
  s.paragraph(say("combining.about-what"));
  s.paragraph(say("combining.about-ordering"));
  s.fact("launch", say("combining.launch"), say("combining.launch-value", {{"grid", grid}, {"iterations", p.spec.iters}}),
         report::Format::plain, say("combining.launch-note", {{"sections", p.spec.acquisitions()}}));
  const SimConfig& m = p.model.config;
  s.fact("model", say("combining.model", {{"regime", simt::to_string(m.regime)}}), model_text(p.model),
         report::Format::plain,
         say("combining.model-note", {{"blocks", m.blocks}, {"threads", m.threads}, {"iterations", m.iters}}));
  s.fact("model-handoffs", say("combining.model-handoffs"), static_cast<std::int64_t>(p.model.handoffs),
         report::Format::count, say("combining.model-handoffs-note"));
  if (p.lockstep)
    s.fact("model-lockstep-warp", say("combining.model-lockstep-warp"), model_outcome_text(*p.lockstep),
           report::Format::plain, say("combining.model-lockstep-warp-note"));
  s.check("model-exact", say("combining.check-model-exact"), p.model.exact(), model_text(p.model));
  if (p.lockstep)
    s.check("model-lockstep-warp", say("combining.check-lockstep"), p.lockstep->exact(), model_outcome_text(*p.lockstep));
  s.add(program_table(Protocol::combining));
  for (const auto& tr : p.traces) {
    const bool blocks = tr.config.threads == 1;
    s.add(trace_table(tr, trace_id(tr.config.regime),
                      say(blocks ? "combining.trace-title-blocks" : "combining.trace-title-lanes",
                          {{"regime", regime_title(tr.config.regime)},
                           {"n", blocks ? tr.config.blocks : tr.config.threads},
                           {"iterations", tr.config.iters}}),
                      false));
  }
  s.add(report::measured("critical-section", say("combining.section-title", {{"grid", grid}}), report::Format::ns,
                         ns_samples(p.gpu), gpu_run, say("combining.section-note")));
  if (p.cas.iters > 0)
    s.add(report::measured("cas-handoff", say("combining.cas-title", {{"grid", grid}}), report::Format::ns,
                           ns_samples(p.gpu_cas), gpu_run,
                           say(p.cas.iters == 1 ? "combining.cas-note-one" : "combining.cas-note",
                               {{"iterations", p.cas.iters}})));
  else
    s.note(say("combining.no-cas"));
  s.add(report::measured("served-per-handoff", say("combining.served-title", {{"grid", grid}}), report::Format::count,
                         per_handoff(p.gpu), gpu_run, say("combining.served-note")));
  if (!gpu_run) {
    s.fact("verdict", say("verdict"), say("combining.verdict-model"));
    return s;
  }
  const Verdict comb = runs_exact(p.gpu);
  s.check("combining-exact", say("combining.check-exact"), comb.passed, comb.detail);
  if (p.cas.iters > 0) {
    const Verdict cas = runs_exact(p.gpu_cas);
    s.check("cas-exact", say("combining.check-cas-exact"), cas.passed, cas.detail);
  }
  const double comb_ns = report::median(ns_samples(p.gpu)), cas_ns = report::median(ns_samples(p.gpu_cas));
  const std::string served = report::fixed(report::median(per_handoff(p.gpu)), 1);
  if (const auto ratio = combining_ratio(p.gpu, p.gpu_cas)) {
    s.fact("vs-cas", say("combining.vs-cas"), *ratio, report::Format::ratio,
           say("combining.vs-cas-note", {{"section-ns", report::fixed(comb_ns, 1)},
                                         {"handoff-ns", report::fixed(cas_ns, 1)},
                                         {"launches", p.gpu.size()}}));
    s.fact("verdict", say("verdict"),
           say("combining.verdict-ratio", {{"served", served}, {"ratio", report::fixed(*ratio, 3)}}));
  } else if (comb_ns > 0) {
    s.fact("verdict", say("verdict"),
           say("combining.verdict-ns", {{"served", served}, {"ns", report::fixed(comb_ns, 1)}}));
  } else {
    s.fact("verdict", say("verdict"), say("combining.verdict-incomplete"));
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

// Every part of lockfree-barrier: one barrier run in the multi-phase kernel. The model simulates
// its protocol step by step and computes the words it must leave; a GPU runs it, and the part
// checks the values, the words and the deadline, or, past co-residency, who never arrived.
#include <algorithm>

#include "core/errors.hpp"
#include "core/report/text_format.hpp"
#include "techniques/lockfree_barrier/lockfree_barrier_gpu.hpp"
#include "techniques/lockfree_barrier/lockfree_barrier_judge.hpp"
#include "techniques/lockfree_barrier/lockfree_barrier_lesson.hpp"
#include "techniques/lockfree_barrier/lockfree_barrier_model.hpp"

namespace cudasync::lockfree_barrier {

namespace {

using I = std::int64_t;
using report::Format;
using report::Section;

constexpr int kK1 = 100, kK2 = 500;  // barriers per timed kernel in a run of the parts (relaunch: launches)

// The catalog key of barrier b's paragraph ("" for --bench's candidates, which are not parts).
const char* how_it_works(Barrier b) {
  switch (b) {
    case Barrier::relaunch: return "how.relaunch";
    case Barrier::graph: return "how.graph";
    case Barrier::xf_lock: return "how.xf-lock";
    case Barrier::xf_lockfree: return "how.xf-lockfree";
    case Barrier::grid_sync: return "how.grid-sync";
    case Barrier::own: return "how.own";
    case Barrier::own_cluster: return "how.own-cluster";
    case Barrier::xf_lock_unrepaired: return "how.xf-lock-unrepaired";
    case Barrier::xf_lockfree_unrepaired: return "how.xf-lockfree-unrepaired";
    case Barrier::own_stagger:
    case Barrier::own_paced: return "";  // --bench's candidates for own, not parts
  }
  return "";
}

std::string blocks_count(std::size_t n) {
  return n == 1 ? say("count.block", {{"count", n}}) : say("count.blocks", {{"count", n}});
}

std::string ranges_or_none(const std::vector<int>& v) { return v.empty() ? say("none") : block_ranges(v); }

// The result of barrier b: the model's simulation and words, and, on a GPU, its run and timing.
BarrierResult run_barrier(Run& run, Barrier b) {
  const Setup& s = run.s;
  BarrierResult br;
  br.barrier = b;
  br.sim = simulate({b, s.blocks, s.limit_of(b), s.threads, std::min(s.phases - 1, kSimBarriers), s.own_counters,
                     kSimBarriers, s.cluster_size});
  if (is_correct(b) && !s.beyond(b)) br.model_words = final_words(b, s.blocks, s.phases, s.own_counters);
  if (!run.ctx.gpu) return br;
  if (b == Barrier::grid_sync && !run.limits.cooperative_launch) {
    br.waived = say("gpu.no-cooperative-launch");
    return br;
  }
  if (uses_clusters(b) && !run.limits.cluster_unsupported.empty()) {
    br.waived = run.limits.cluster_unsupported;
    return br;
  }
  const GpuSpec spec = gpu_spec(run, s.blocks, s.phases);
  GpuRun g = gpu_run(b, spec, run.x0);
  if (is_correct(b) && g.refused.empty() && !s.beyond(b) && !g.deadline_hit) {
    const Timing t = gpu_time(b, spec, kTimingReps, kK1, kK2);
    if (!t.deadline_hit) g.ns_per_barrier = t.ns;
  }
  br.gpu = std::move(g);
  return br;
}

// Past co-residency on the GPU: who arrived, who never did, and whether the deadline ended it.
void beyond_section(Section& sec, const BarrierResult& r, const Run& run) {
  const GpuRun& g = *r.gpu;
  const Barrier b = r.barrier;
  const Arrivals a = arrivals(g);
  sec.fact("gpu-arrived", say("beyond.arrived"), block_ranges(a.arrived), Format::plain,
           say("beyond.arrived-note", {{"blocks", blocks_count(a.arrived.size())}, {"slots", run.s.limit_of(b)}}));
  sec.fact("gpu-never-arrived", say("beyond.never-arrived"), ranges_or_none(a.never), Format::plain,
           a.never.empty() ? say("beyond.every-block-arrived")
                           : say("beyond.never-note", {{"blocks", blocks_count(a.never.size())}}));
  sec.fact("gpu-gave-up", say("beyond.gave-up"), ranges_or_none(a.gave_up), Format::plain,
           blocks_count(a.gave_up.size()));
  const std::string how = say("beyond.how", {{"never", a.never.size()},
                                             {"ms", report::fixed(g.kernel_ms, 1)},
                                             {"deadline", run.options.deadline_ms}});
  if (is_correct(b)) {
    sec.check("deadline-ended", say("beyond.deadline-ended"), a.deadline_ended(g, run.s.blocks), how);
    sec.note(say("beyond.not-compared-note"));
  } else {
    sec.fact("gpu-deadline", say("gpu.deadline"), g.deadline_hit, Format::plain, how);
    sec.note(say("beyond.unrepaired-note"));
  }
}

// Within co-residency on the GPU: the values and words against the model, and the deadline.
void within_section(Section& sec, const BarrierResult& r, const Run& run) {
  const GpuRun& g = *r.gpu;
  const Barrier b = r.barrier;
  const int blocks = run.s.blocks;
  const ValuesVerdict v = judge_values(g.values, run.want);
  const std::string values_text = say("within.values", {{"count", run.want.size()}, {"phases", run.s.phases}});
  if (is_correct(b)) {
    sec.agreement("gpu-agrees", values_text, v.passed(), v.detail(run.s.threads));
    if (!r.model_words.empty())
      sec.agreement("gpu-agrees-words", say("within.words"), g.words == r.model_words,
                    say("within.words-detail",
                        {{"gpu", words_text(b, g.words, blocks)}, {"model", words_text(b, r.model_words, blocks)}}));
    sec.check("no-deadline", say("within.no-deadline"), !g.deadline_hit,
              g.deadline_hit ? say("within.gave-up", {{"blocks", block_ranges(arrivals(g).gave_up)}})
                             : say("within.passed-every"));
  } else {
    sec.fact("gpu-wrong-values", say("within.wrong-values"), static_cast<I>(v.wrong), Format::count,
             v.wrong > 0 ? say("within.wrong-early", {{"values", values_text}})
                         : say("within.wrong-lucky", {{"values", values_text}}));
    sec.fact("gpu-deadline", say("gpu.deadline"), g.deadline_hit, Format::plain,
             g.deadline_hit ? say("within.deadlock-note", {{"blocks", block_ranges(arrivals(g).gave_up)}}) : "");
    sec.fact("gpu-words", say("within.gpu-words"), words_text(b, g.words, blocks));
    sec.note(say("within.unrepaired-note"));
  }
  sec.add(report::measured("multi-phase-run", say("within.multi-phase-run"), Format::ns, {g.kernel_ms * 1e6}, true,
                           b == Barrier::graph ? say("within.one-graph-replay") : ""));
  if (is_correct(b))
    sec.add(report::measured("time-per-barrier", say("time-per-barrier"), Format::ns, g.ns_per_barrier, true,
                             say(b == Barrier::relaunch || b == Barrier::graph ? "within.empty-launches"
                                                                               : "within.barrier-kernel")));
  if (run.options.trace) sec.add(trace_table(g, run.s.timer_step_ns));
}

}  // namespace

Section barrier_section(const BarrierResult& r, const Run& run) {
  const Barrier b = r.barrier;
  const Setup& s = run.s;
  Section sec(barrier_key(b), std::string(barrier_key(b)) + ": " + barrier_heading(b));
  sec.paragraph(say(how_it_works(b)));
  const bool beyond = s.beyond(b);
  if (uses_clusters(b) && !run.ctx.gpu) sec.note(say("section.cluster-note"));

  sec.fact("model-sim", say("section.model-sim"), sim_outcome(r.sim), Format::plain,
           say("section.model-sim-note", {{"barriers", std::min(s.phases - 1, kSimBarriers)},
                                          {"blocks", s.blocks},
                                          {"slots", s.limit_of(b)}}));
  // What the simulation's words say, as data an exercise reads: its outcome, whether a block passed
  // a barrier early, and Xiao & Feng's g_mutex.
  sec.fact("model-outcome", say("section.model-outcome"), std::string(sim_outcome_id(r.sim)));
  sec.fact("model-early", say("section.model-early"), r.sim.early_barrier > 0);
  if (!r.model_words.empty())
    sec.fact("model-words", say("section.model-words"), words_text(b, r.model_words, s.blocks), Format::plain,
             say("section.model-words-note", {{"count", s.phases - 1}}));
  if (!r.model_words.empty() && uses_g_mutex(b))
    sec.fact("model-g-mutex", say("section.model-g-mutex"), static_cast<I>(r.model_words[0]), Format::count);
  if (s.blocks <= kStepTableMaxBlocks || run.options.trace)
    sec.add(step_table(r.sim));
  if (auto t = model_timeline(r.sim); t && run.options.trace) sec.add(std::move(*t));
  else
    sec.note(say("section.step-table-note", {{"max", kStepTableMaxBlocks}}));
  if (is_correct(b) && !beyond)
    sec.check("model-passes", say("section.model-passes"), sim_passes(r.sim), sim_outcome(r.sim));
  if (is_correct(b) && beyond && b != Barrier::grid_sync)
    sec.check("model-deadlocks", say("section.model-deadlocks"), r.sim.deadlock,
              r.sim.deadlock ? say("section.deadlock-detail", {{"spinning", block_ranges(r.sim.spinning)},
                                                               {"waiting", block_ranges(r.sim.waiting)}})
                             : sim_outcome(r.sim));

  if (!r.gpu) {
    sec.add(report::measured("time-per-barrier", say("time-per-barrier"), Format::ns, {}, false));
    return sec;
  }
  const GpuRun& g = *r.gpu;
  if (!g.refused.empty()) {
    sec.fact("gpu-launch", say("gpu.launch"), say("status.refused"), Format::plain, g.refused);
    sec.check("gpu-refused", say("gpu.refused-check"), beyond,
              say("gpu.refused-detail", {{"blocks", s.blocks}, {"limit", s.cooperative.limit()}}));
    return sec;
  }
  if (beyond)
    beyond_section(sec, r, run);
  else
    within_section(sec, r, run);
  return sec;
}

Section barrier_part(Run& run, Barrier b) {
  run.results.push_back(run_barrier(run, b));
  const BarrierResult& r = run.results.back();
  if (r.waived) throw WaivedError(*r.waived);
  return barrier_section(r, run);
}

}  // namespace cudasync::lockfree_barrier

// Every part of lockfree-barrier: one barrier run in the multi-phase kernel. The model computes the
// values every correct barrier must leave and the words its protocol leaves behind, and simulates
// the protocol step by step (steps.cpp); a GPU runs it, and the part checks the values, the words
// and the deadline, or, past co-residency, who never arrived. When several barriers ran, the
// table's finish shows them side by side from the results their parts kept (nothing is run again).
#include <algorithm>

#include "core/errors.hpp"
#include "core/report/text_format.hpp"
#include "techniques/lockfree_barrier/lesson.hpp"

namespace cudasync::lockfree_barrier {

using I = std::int64_t;
using report::Format;
using report::Section;

namespace {

// Xiao & Feng's lock-based barrier: its one word is the counter g_mutex.
constexpr bool uses_g_mutex(Barrier b) { return b == Barrier::xf_lock || b == Barrier::xf_lock_unrepaired; }

constexpr int kK1 = 100, kK2 = 500;  // barriers per timed kernel in a run of the parts (relaunch: launches)

struct Named {
  Barrier barrier;
  const char* key;
  const char* how;  // the catalog key of its paragraph ("" for --bench's candidates, which are not parts)
};

const Named kNamed[] = {
    {Barrier::relaunch, "relaunch", "how.relaunch"},
    {Barrier::graph, "graph", "how.graph"},
    {Barrier::xf_lock, "xf-lock", "how.xf-lock"},
    {Barrier::xf_lockfree, "xf-lockfree", "how.xf-lockfree"},
    {Barrier::grid_sync, "grid-sync", "how.grid-sync"},
    {Barrier::own, "own", "how.own"},
    {Barrier::own_cluster, "own-cluster", "how.own-cluster"},
    {Barrier::xf_lock_unrepaired, "xf-lock-unrepaired", "how.xf-lock-unrepaired"},
    {Barrier::xf_lockfree_unrepaired, "xf-lockfree-unrepaired", "how.xf-lockfree-unrepaired"},
    {Barrier::own_stagger, "own-stagger", ""},
    {Barrier::own_paced, "own-paced", ""},
    {Barrier::own_tree, "own-tree", ""},
    {Barrier::own_ticket, "own-ticket", ""},
};

// Barrier 1 on the GPU, block by block, as a timeline (--trace).
report::Table trace_table(const GpuRun& g, double timer_step_ns) {
  const bool launches = g.barrier == Barrier::relaunch || g.barrier == Barrier::graph;
  report::Table t("timeline", say(launches ? "trace.title-launches" : "trace.title"));
  t.column("block", say("column.block"))
      .column("arrive-ns", say("trace.arrive"), Format::ns)
      .column("release-ns", say("trace.release"), Format::ns)
      .column("waited-ns", say("trace.waited"), Format::ns)
      .column("timeline", say("trace.timeline"));
  std::int64_t t0 = 0, t1 = 0;
  bool any = false;
  for (std::size_t b = 0; b < g.arrive_ns.size(); ++b) {
    if (g.arrive_ns[b] == 0) continue;
    const std::int64_t hi = g.release_ns[b] != 0 ? g.release_ns[b] : g.arrive_ns[b];
    if (!any || g.arrive_ns[b] < t0) t0 = g.arrive_ns[b];
    if (!any || hi > t1) t1 = hi;
    any = true;
  }
  constexpr int kWidth = 40;
  for (std::size_t b = 0; b < g.arrive_ns.size(); ++b) {
    const std::int64_t a = g.arrive_ns[b], r = g.release_ns[b];
    if (a == 0) {
      t.row({{"block", static_cast<I>(b)}, {"timeline", say("trace.never-arrived")}}, report::RowMark::inactive);
      continue;
    }
    if (r == 0) {
      const bool gave_up = b < g.gave_up.size() && g.gave_up[b] != 0;
      t.row({{"block", static_cast<I>(b)},
             {"arrive-ns", a - t0},
             {"timeline", say(gave_up ? "trace.gave-up" : "trace.stopped", {{"timeline", timeline(a, 0, t0, t1, kWidth)}})}});
      continue;
    }
    t.row({{"block", static_cast<I>(b)},
           {"arrive-ns", a - t0},
           {"release-ns", r - t0},
           {"waited-ns", r - a},
           {"timeline", timeline(a, r, t0, t1, kWidth)}});
  }
  t.legend.push_back(say("trace.legend", {{"span", t1 - t0}, {"width", kWidth}}));
  if (timer_step_ns > 0) t.legend.push_back(say("trace.timer-legend", {{"step", report::fixed(timer_step_ns, 0)}}));
  t.legend.push_back(say(launches ? "trace.launches-legend" : "trace.barrier-legend"));
  t.picture = report::timeline_picture("block", "arrive-ns", "release-ns");  // --html draws it
  return t;
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

const char* barrier_key(Barrier b) { return kNamed[static_cast<int>(b)].key; }

std::optional<Barrier> barrier_from_key(const std::string& key) {
  for (const auto& n : kNamed)
    if (key == n.key) return n.barrier;
  return std::nullopt;
}

const std::vector<Barrier>& all_barriers() {
  static const std::vector<Barrier> v = [] {
    std::vector<Barrier> parts;
    for (int i = 0; i < kBarrierCount; ++i) parts.push_back(static_cast<Barrier>(i));
    return parts;
  }();
  return v;
}

int own_counters_for(int blocks) {
  if (blocks <= 192) return 1;
  return std::clamp((blocks + 527) / 528, 2, kMaxOwnCounters);
}

int own_pollers_for(int blocks, int sm_count, int threads) {
  if (blocks <= 0 || sm_count <= 0) return 1;
  return std::clamp(std::min(4 * sm_count / blocks, threads / kWarpSize), 1, kMaxOwnPollers);
}

int own_share(int blocks, int counters, int l) {
  if (counters <= 0 || l < 0 || l >= counters || l >= blocks) return 0;
  return (blocks - l + counters - 1) / counters;
}

Coresidency model_coresidency(int threads) {
  return assumed_coresidency(threads, 32, kH100Limits, say("model.assumed"));
}

Coresidency model_cluster_coresidency(int threads, int cluster_size) {
  return assumed_cluster_coresidency(model_coresidency(threads), cluster_size,
                                     say("model.assumed-clusters"));
}

int own_cluster_size(int blocks, const std::vector<Coresidency>& by_size) {
  int best = 1, best_limit = -1;
  for (int i = kClusterSizeCount - 1; i >= 0; --i) {
    const int cs = kClusterSizes[i];
    if (blocks % cs != 0 || static_cast<std::size_t>(i) >= by_size.size()) continue;
    const int limit = by_size[static_cast<std::size_t>(i)].limit();
    if (blocks <= limit) return cs;
    if (limit > best_limit) {
      best = cs;
      best_limit = limit;
    }
  }
  return best;
}

std::vector<std::uint32_t> initial_values(int blocks, int threads, std::uint64_t seed) {
  const auto n = static_cast<std::size_t>(blocks) * static_cast<std::size_t>(threads);
  std::vector<std::uint32_t> x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = initial_value(seed, static_cast<std::uint32_t>(i));
  return x;
}

std::vector<std::uint32_t> model_values(int blocks, int threads, int phases, std::uint64_t seed) {
  std::vector<std::uint32_t> cur = initial_values(blocks, threads, seed), next(cur.size());
  const auto T = static_cast<std::size_t>(threads);
  const auto N = static_cast<std::size_t>(blocks);
  for (int p = 1; p <= phases; ++p) {
    for (std::size_t b = 0; b < N; ++b) {
      const std::size_t right = (b + 1) % N, left = (b + N - 1) % N;
      for (std::size_t t = 0; t < T; ++t)
        next[b * T + t] = mix(cur[b * T + t], cur[right * T + t], cur[left * T + (t + 1) % T], static_cast<std::uint32_t>(p));
    }
    cur.swap(next);
  }
  return cur;
}

std::vector<std::uint32_t> final_words(Barrier b, int blocks, int phases, int own_counters) {
  const auto k = static_cast<std::uint32_t>(std::max(0, phases - 1));
  const auto N = static_cast<std::uint32_t>(blocks);
  switch (b) {
    case Barrier::xf_lock:
    case Barrier::xf_lock_unrepaired:
    case Barrier::own_ticket: return {k * N};
    case Barrier::xf_lockfree:
    case Barrier::xf_lockfree_unrepaired: return std::vector<std::uint32_t>(2 * static_cast<std::size_t>(blocks), k);
    case Barrier::own:
    case Barrier::own_cluster: {
      std::vector<std::uint32_t> w;
      for (int l = 0; l < own_counters; ++l) w.push_back(k * static_cast<std::uint32_t>(own_share(blocks, own_counters, l)));
      return w;
    }
    case Barrier::own_tree: return {k};  // the generation word: the last barrier released
    default: return {};
  }
}

std::string block_ranges(const std::vector<int>& blocks, std::size_t max_ranges) {
  std::vector<int> v = blocks;
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  std::string s;
  std::size_t ranges = 0;
  for (std::size_t i = 0; i < v.size();) {
    std::size_t j = i;
    while (j + 1 < v.size() && v[j + 1] == v[j] + 1) ++j;
    if (ranges == max_ranges) {
      s += ", ... (" + std::to_string(v.size() - i) + " more)";
      break;
    }
    s += (s.empty() ? "" : ", ") + std::to_string(v[i]) + (j > i ? "-" + std::to_string(v[j]) : "");
    ++ranges;
    i = j + 1;
  }
  return s;
}

std::string sim_outcome(const SimResult& m) {
  std::string s = m.deadlock    ? say("sim.deadlock", {{"step", m.total_steps}})
                  : m.completed ? say("sim.completed", {{"steps", m.total_steps}})
                                : say("sim.stopped");
  if (m.early_barrier > 0) s += say("sim.early", {{"block", m.early_block}, {"barrier", m.early_barrier}});
  return s;
}

const char* sim_outcome_id(const SimResult& m) {
  return m.deadlock ? "deadlocks" : m.completed ? "completes" : "stops";
}

bool sim_passes(const SimResult& m) { return m.completed && m.early_barrier == 0; }

std::string ValuesVerdict::detail(int threads) const {
  if (compared == 0) return say("values.nothing-compared");
  if (wrong == 0) return say("values.every-equal");
  const auto t = static_cast<std::size_t>(std::max(1, threads));
  return say("values.differ", {{"wrong", wrong}, {"block", first_wrong / t}, {"thread", first_wrong % t}});
}

ValuesVerdict judge_values(const std::vector<std::uint32_t>& gpu, const std::vector<std::uint32_t>& model) {
  ValuesVerdict v;
  if (model.empty() || gpu.size() != model.size()) return v;
  v.compared = model.size();
  for (std::size_t i = 0; i < model.size(); ++i)
    if (gpu[i] != model[i] && v.wrong++ == 0) v.first_wrong = i;
  return v;
}

std::string words_text(Barrier b, const std::vector<std::uint32_t>& w, int blocks) {
  if (w.empty()) return "-";
  switch (b) {
    case Barrier::xf_lock:
    case Barrier::xf_lock_unrepaired: return "g_mutex " + std::to_string(w[0]);
    case Barrier::xf_lockfree:
    case Barrier::xf_lockfree_unrepaired: {
      const auto n = static_cast<std::ptrdiff_t>(std::min<std::size_t>(static_cast<std::size_t>(blocks), w.size()));
      const auto range = [](auto first, auto last) {
        if (first == last) return say("none");
        const auto [lo, hi] = std::minmax_element(first, last);
        return *lo == *hi ? say("words.all", {{"value", *lo}}) : std::to_string(*lo) + ".." + std::to_string(*hi);
      };
      return "Arrayin " + range(w.begin(), w.begin() + n) + ", Arrayout " + range(w.begin() + n, w.end());
    }
    case Barrier::own:
    case Barrier::own_cluster: {
      std::string values;
      for (std::size_t i = 0; i < w.size() && i < 8; ++i) values += (i ? " " : "") + std::to_string(w[i]);
      if (w.size() > 8) values += " ...";
      return w.size() == 1 ? say("words.counter", {{"values", values}}) : say("words.counters", {{"values", values}});
    }
    default: return "-";
  }
}

bool Arrivals::deadline_ended(const GpuRun& g, int blocks) const {
  return g.deadline_hit && !never.empty() && arrived.size() + never.size() == static_cast<std::size_t>(blocks);
}

Arrivals arrivals(const GpuRun& g) {
  Arrivals a;
  for (std::size_t i = 0; i < g.arrive_ns.size(); ++i)
    (g.arrive_ns[i] != 0 ? a.arrived : a.never).push_back(static_cast<int>(i));
  for (std::size_t i = 0; i < g.gave_up.size(); ++i)
    if (g.gave_up[i] != 0) a.gave_up.push_back(static_cast<int>(i));
  return a;
}

std::string gpu_status(const GpuRun& g, bool beyond) {
  if (!g.refused.empty()) return say("status.refused");
  return say(beyond || g.deadline_hit ? "status.deadline" : "status.ran");
}

std::string BenchDeadlines::detail() const {
  if (hit.empty()) return say("bench.every-completed");
  std::string cells;
  for (const auto& h : hit) cells += (cells.empty() ? "" : ", ") + h;
  return say("bench.gave-up", {{"cells", cells}});
}

std::string timeline(std::int64_t arrive, std::int64_t release, std::int64_t t0, std::int64_t t1, int width) {
  std::string line(static_cast<std::size_t>(std::max(2, width)), ' ');
  const std::int64_t span = std::max<std::int64_t>(1, t1 - t0);
  const auto col = [&](std::int64_t t) {
    const std::int64_t c = (t - t0) * (static_cast<std::int64_t>(line.size()) - 1) / span;
    return static_cast<std::size_t>(std::clamp<std::int64_t>(c, 0, static_cast<std::int64_t>(line.size()) - 1));
  };
  const std::size_t a = col(arrive);
  if (release == 0) {
    for (std::size_t i = a; i < line.size(); ++i) line[i] = '-';
    line[a] = 'a';
    return line;
  }
  const std::size_t r = col(release);
  for (std::size_t i = a; i <= r; ++i) line[i] = '-';
  line[a] = 'a';
  line[r] = r == a ? 'x' : 'r';
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line;
}

Section barrier_section(const BarrierResult& r, const Run& run) {
  const Barrier b = r.barrier;
  const Setup& s = run.s;
  const std::string key = barrier_key(b);
  Section sec(key, key + ": " + say("part." + key + ".title"));
  sec.paragraph(say(kNamed[static_cast<int>(b)].how));
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

void summary_finish(Run& run, report::Report& r) {
  // One barrier needs no summary; when every one was waived the run has nothing to show (exit 77).
  const auto waived = [](const BarrierResult& b) { return b.waived.has_value(); };
  if (run.results.size() < 2 || std::all_of(run.results.begin(), run.results.end(), waived)) return;
  const bool gpu = run.ctx.gpu;
  std::optional<double> grid_ns;
  for (const auto& b : run.results)
    if (b.barrier == Barrier::grid_sync && b.gpu && !b.gpu->ns_per_barrier.empty())
      grid_ns = report::median(b.gpu->ns_per_barrier);
  report::Section sec("summary", say("summary.title"));
  report::Table t("barriers", say(gpu ? "summary.table-gpu" : "summary.table-model",
                                  {{"blocks", run.s.blocks}, {"threads", run.s.threads}}));
  t.column("barrier", say("column.barrier"))
      .column("model", say("column.model"))
      .column("gpu", "GPU")
      .column("ns", say("summary.ns-column"), report::Format::ns)
      .column("vs-grid-sync", "x grid.sync", report::Format::ratio);
  const report::Value none = gpu ? report::Value{report::Undefined{}} : report::Value{report::NeedsGpu{}};
  for (const auto& b : run.results) {
    report::Value status = none, ns = none, ratio = none;
    if (b.waived) status = say("waived");
    if (b.gpu) {
      status = gpu_status(*b.gpu, run.s.beyond(b.barrier));
      if (!b.gpu->ns_per_barrier.empty()) {
        const double m = report::median(b.gpu->ns_per_barrier);
        ns = m;
        if (grid_ns && *grid_ns > 0) ratio = m / *grid_ns;
      }
    }
    t.row({{"barrier", std::string(barrier_key(b.barrier))},
           {"model", sim_outcome(b.sim)},
           {"gpu", status},
           {"ns", ns},
           {"vs-grid-sync", ratio}});
  }
  t.legend.push_back(say("summary.legend"));
  if (gpu) t.legend.push_back(say("summary.timing-legend", {{"reps", kTimingReps}}));
  // On a GPU the HTML page draws each barrier's time as bars, grid.sync()'s beside each.
  t.picture = report::bars_picture({"barrier"}, {"ns", "vs-grid-sync"}, barrier_key(Barrier::grid_sync));
  sec.add(std::move(t));
  r.sections.push_back(std::move(sec));
}

}  // namespace cudasync::lockfree_barrier

#include "techniques/lockfree_barrier/lockfree_barrier_sections.hpp"

#include <algorithm>
#include <cstdio>

#include "core/report/text_format.hpp"

namespace cudasync::lockfree_barrier {

using report::Check;
using report::Fact;
using report::LaneTable;
using report::Measurement;
using report::RowMark;
using report::Section;
using report::Undefined;
using report::Value;
using I = std::int64_t;
using report::measured;

namespace {

const char* how_it_works(Barrier b) {
  switch (b) {
    case Barrier::relaunch:
      return "The \"CPU implicit synchronization\" of Xiao & Feng: one kernel per phase, launched back to back in "
             "one stream. A kernel starts only after the previous one has finished, so the launch boundary is the "
             "barrier, with every write of the previous kernel visible. It needs no co-residency: a grid larger "
             "than the GPU simply runs in waves.";
    case Barrier::graph:
      return "The same launches, captured once into a CUDA graph (cudaStreamBeginCapture ... "
             "cudaStreamEndCapture, cudaGraphInstantiate) and replayed with one cudaGraphLaunch: the driver "
             "prepares the chain of kernels once, which takes most of the launch cost off each barrier.";
    case Barrier::xf_lock:
      return "Xiao & Feng's lock-based barrier, repaired: __syncthreads(); thread 0 runs __threadfence(), "
             "atomicAdd(&g_mutex, 1) and spins while g_mutex < goalVal, with goalVal = N at the first call and "
             "N more at each call after, then __threadfence() again; __syncthreads(). All N arrivals are atomics "
             "on one address, and all N blocks poll that address.";
    case Barrier::xf_lockfree:
      return "Xiao & Feng's lock-free barrier, repaired: thread 0 of block i writes Arrayin[i] = goalVal after "
             "a __threadfence(); the master block (block 0) has its threads check Arrayin[tid], Arrayin[tid + "
             "blockDim.x], ... until every slot holds goalVal, then __syncthreads(), __threadfence() and writes "
             "every Arrayout[i] = goalVal; thread 0 of block i spins until Arrayout[i] == goalVal. No atomics, but "
             "two hops: arrivals reach the master, the master's writes reach everyone.";
    case Barrier::grid_sync:
      return "cooperative_groups::this_grid().sync() in a kernel launched with cudaLaunchCooperativeKernel. In "
             "CUDA 13 (cooperative_groups/details/sync.h) it is __syncthreads(), then thread 0 of each block does "
             "atom.add.release.gpu on one word (block 0 adds 0x80000000 - (N - 1), the others 1, so the top bit "
             "flips when all have arrived) and polls that word with ld.acquire.gpu; __syncthreads(). The runtime "
             "refuses a grid that cannot be resident at once.";
    case Barrier::own:
      return "cudasync's own: __syncthreads(); thread 0 does red.release.gpu.add on the counter, a reduction "
             "that returns nothing, so no block waits a round trip before it starts polling, and polls it with "
             "ld.relaxed.gpu until it holds k x N; one fence.acquire.gpu after the loop (on sm_90 a single "
             "CCTL.IVALL, where ld.acquire invalidates the L1 on every try); __syncthreads(). Against grid.sync "
             "it saves the round trip of the atomic's return value. Past 192 blocks the arrivals are spread over "
             "C counters 256 bytes apart (block b adds to counter b mod C) and lanes 0..C-1 of warp 0 poll one "
             "each, so the N same-address atomics that one L2 slice performs one by one become N / C on each "
             "of C addresses.";
    case Barrier::own_cluster:
      return "The own barrier on thread-block clusters (compute capability 9.0): the grid is launched in clusters "
             "of 1, 2, 4 or 8 consecutive blocks (cudaLaunchKernelEx with a cluster dimension), every block arrives "
             "as in own (red.release on the counters), but only the first block of each cluster, its leader, polls "
             "them; the other blocks go straight to the cluster's hardware barrier (barrier.cluster.arrive / "
             "barrier.cluster.wait), which the leader joins with a release once it has seen every arrival. N / "
             "cluster size pollers instead of N. The price: one more hop, the cluster barrier, after the last "
             "arrival, and barrier.cluster.arrive.release compiles to the same MEMBAR.ALL.GPU as a gpu-scope "
             "release. Its co-residency is counted in whole clusters (cudaOccupancyMaxActiveClusters), since a "
             "cluster starts only when all its blocks fit in one GPC.";
    case Barrier::xf_lock_seed:
      return "The seed's lock-based code as written: thread 0 runs atomicAdd((int*)&g_mutex, 1) and `while "
             "(g_mutex != goalVal)`, then __syncthreads(). Three bugs: (1) no __syncthreads() before the "
             "atomicAdd, so thread 0 announces its block while other warps may still be writing; (2) no fence, so "
             "the data of the last phase need not be visible when the counter says so (and the L1 cache may serve "
             "a stale copy); (3) `!=`: a block that is released and reaches the next barrier first adds 1 before "
             "a slower block has looked, and the slower block then never sees goalVal: a deadlock, which the "
             "deadline turns into a report.";
    case Barrier::xf_lockfree_seed:
      return "The seed's lock-free code as written. `if (tid_in_blk = 0)` assigns 0 and tests it, so no thread "
             "ever waits for Arrayout: every block except the master runs straight on. The master (block 1, as "
             "in the seed; a grid of one block has none) checks Arrayin[tid_in_blk] for tid_in_blk < nBlockNum, "
             "one slot per thread, so with more blocks than threads per block the slots from blockDim.x on are "
             "never checked. And no fences.";
  }
  return "";
}

std::string words_text(Barrier b, const std::vector<std::uint32_t>& w, int blocks) {
  if (w.empty()) return "-";
  switch (b) {
    case Barrier::xf_lock:
    case Barrier::xf_lock_seed: return "g_mutex " + std::to_string(w[0]);
    case Barrier::xf_lockfree:
    case Barrier::xf_lockfree_seed: {
      const auto n = static_cast<std::size_t>(blocks);
      const auto in_min = *std::min_element(w.begin(), w.begin() + static_cast<std::ptrdiff_t>(n));
      const auto in_max = *std::max_element(w.begin(), w.begin() + static_cast<std::ptrdiff_t>(n));
      const auto out_min = *std::min_element(w.begin() + static_cast<std::ptrdiff_t>(n), w.end());
      const auto out_max = *std::max_element(w.begin() + static_cast<std::ptrdiff_t>(n), w.end());
      const auto range = [](std::uint32_t lo, std::uint32_t hi) {
        return lo == hi ? "all " + std::to_string(lo) : std::to_string(lo) + ".." + std::to_string(hi);
      };
      return "Arrayin " + range(in_min, in_max) + ", Arrayout " + range(out_min, out_max);
    }
    case Barrier::own:
    case Barrier::own_cluster: {
      std::string s = w.size() == 1 ? "counter" : "counters";
      for (std::size_t i = 0; i < w.size() && i < 8; ++i) s += " " + std::to_string(w[i]);
      if (w.size() > 8) s += " ...";
      return s;
    }
    default: return "-";
  }
}

std::string blocks_count(std::size_t n) { return std::to_string(n) + (n == 1 ? " block" : " blocks"); }

std::string sim_outcome(const SimResult& m) {
  std::string s = m.deadlock    ? "deadlock at step " + std::to_string(m.total_steps)
                  : m.completed ? "completed in " + std::to_string(m.total_steps) + " steps"
                                : "stopped";
  if (m.early_barrier > 0)
    s += "; block " + std::to_string(m.early_block) + " passed barrier " + std::to_string(m.early_barrier) +
         " before every block had arrived";
  return s;
}

std::vector<int> blocks_where(const std::vector<std::uint8_t>& f, bool value) {
  std::vector<int> v;
  for (std::size_t i = 0; i < f.size(); ++i)
    if ((f[i] != 0) == value) v.push_back(static_cast<int>(i));
  return v;
}

LaneTable step_table(const SimResult& m) {
  LaneTable t;
  t.id = "steps";
  t.title = "the model, step by step";
  t.columns = {{"step", "step", ""}, {"blocks", "blocks", ""}, {"event", "event", ""}, {"state", "state after", ""}};
  for (const auto& s : m.steps)
    t.add_row({static_cast<I>(s.step), s.blocks.empty() ? Value{Undefined{}} : Value{s.blocks}, s.event,
               s.state.empty() ? Value{Undefined{}} : Value{s.state}});
  t.legend.push_back("schedule: " + m.schedule);
  return t;
}

LaneTable trace_table(const GpuRun& g, const Setup& s) {
  LaneTable t;
  t.id = "timeline";
  const bool launches = g.barrier == Barrier::relaunch || g.barrier == Barrier::graph;
  t.title = launches ? "barrier 1 on the GPU: block b's end in kernel 1 (a) and its start in kernel 2 (r), %globaltimer"
                     : "barrier 1 on the GPU: each block's arrival (a) and release (r), %globaltimer";
  t.columns = {{"block", "block", ""},    {"arrive_ns", "arrive ns", ""}, {"release_ns", "release ns", ""},
               {"waited_ns", "waited ns", ""}, {"timeline", "timeline", ""}};
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
      t.add_row({static_cast<I>(b), Undefined{}, Undefined{}, Undefined{}, std::string("never arrived")},
                RowMark::inactive);
      continue;
    }
    Value rel = Undefined{}, waited = Undefined{};
    std::string line;
    if (r != 0) {
      rel = static_cast<I>(r - t0);
      waited = static_cast<I>(r - a);
      line = timeline(a, r, t0, t1, kWidth);
    } else {
      line = timeline(a, 0, t0, t1, kWidth) + (b < g.gave_up.size() && g.gave_up[b] ? " gave up" : " stopped");
    }
    t.add_row({static_cast<I>(b), static_cast<I>(a - t0), rel, waited, line});
  }
  t.legend.push_back("times in ns from the earliest arrival; a: arrival, r: release, - waiting; span " +
                     std::to_string(t1 - t0) + " ns over " + std::to_string(kWidth) + " columns");
  if (s.timer_step_ns > 0)
    t.legend.push_back("%globaltimer advanced in steps of " + report::fixed(s.timer_step_ns, 0) +
                       " ns on this GPU: differences smaller than that are not resolved");
  if (launches)
    t.legend.push_back("between a block's end in kernel 1 and its start in kernel 2 lie the ends of all other blocks "
                       "and the start of the next launch");
  else
    t.legend.push_back("the last arrival releases everybody: every r lies after the last a");
  return t;
}

std::string per_sm(const Coresidency& c) {
  return std::to_string(c.blocks_per_sm) + " per SM x " + std::to_string(c.sm_count) + " SMs; " + c.source;
}

}  // namespace

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

Section setup_section(const Setup& s) {
  Section sec;
  sec.id = "setup";
  sec.title = "setup: " + std::to_string(s.blocks) + " blocks of " + std::to_string(s.threads) + " threads, " +
              std::to_string(s.phases) + " phases";
  sec.paragraphs.push_back(
      "Every barrier guards the same kernel: " + std::to_string(s.phases) + " phases, and in each, thread t of block b "
      "combines its value with thread t of block b + 1 and thread t + 1 of block b - 1, all from the previous "
      "phase (two buffers, swapped every phase). A barrier that lets one block through too early makes it read a "
      "neighbour's value of the wrong phase, and the final values differ from the reference model's, which "
      "computes every phase on the CPU.");
  sec.paragraphs.push_back(
      "A software barrier spins inside the kernel, so every block of the grid must be resident at once: a block "
      "that waits keeps its SM slot, and a block that has no slot cannot start until one is freed. Every spin "
      "here has a deadline read from %globaltimer: a block that waits longer gives up, and the others stop at "
      "their next spin.");
  sec.facts.push_back({"blocks (--blocks)", static_cast<I>(s.blocks), "", ""});
  sec.facts.push_back({"threads per block (--threads)", static_cast<I>(s.threads), "", ""});
  sec.facts.push_back({"phases (--phases)", static_cast<I>(s.phases), "", std::to_string(s.phases - 1) + " barriers"});
  sec.facts.push_back({"seed (--seed)", static_cast<I>(s.seed), "", "the initial values"});
  sec.facts.push_back({"backend", s.gpu ? s.device : std::string("reference model"), "", ""});
  sec.facts.push_back({"resident at once, software barriers", static_cast<I>(s.software.limit()), "", per_sm(s.software)});
  sec.facts.push_back({"resident at once, grid.sync kernel", static_cast<I>(s.cooperative.limit()), "",
                       per_sm(s.cooperative)});
  sec.facts.push_back({"own barrier's counters (C)", static_cast<I>(s.own_counters), "",
                       s.own_counters == 1 ? "one counter up to 192 blocks" : "arrivals spread over C counters"});
  if (s.gpu && !s.cluster_unsupported.empty())
    sec.facts.push_back({"own-cluster", std::string("waived"), "", s.cluster_unsupported});
  else
    sec.facts.push_back({"resident at once, own-cluster", static_cast<I>(s.cluster.limit()), "",
                         "clusters of " + std::to_string(s.cluster_size) + ": " + s.cluster.text()});
  sec.facts.push_back({"deadline per spin (--deadline-ms)", static_cast<I>(s.deadline_ms), "", "ms"});
  if (s.beyond())
    sec.notes.push_back("--allow-unsafe: " + std::to_string(s.blocks) + " blocks is more than the " +
                        std::to_string(s.software.limit()) +
                        " that can be resident at once. Every software barrier below deadlocks and is ended by its "
                        "deadline; relaunch and graph still work (a kernel's blocks run in waves).");
  if (!s.gpu)
    sec.notes.push_back("without a GPU the model computes the values every barrier must produce and simulates each "
                        "protocol step by step; the GPU's results, traces and times need a GPU");
  return sec;
}

Section barrier_section(const BarrierResult& r, const Setup& s, const std::vector<std::uint32_t>& model_values) {
  const Barrier b = r.barrier;
  Section sec;
  sec.id = barrier_key(b);
  std::replace(sec.id.begin(), sec.id.end(), '-', '_');
  sec.title = std::string(barrier_key(b)) + ": " + barrier_title(b);
  sec.paragraphs.push_back(how_it_works(b));
  const bool beyond = s.beyond(b);
  if (uses_clusters(b) && !s.gpu)
    sec.notes.push_back("on a GPU, own-cluster needs sm_90 (compute capability 9.0): thread-block clusters");

  // the model
  const int slots = s.limit_of(b);
  sec.facts.push_back({"model: step simulation", sim_outcome(r.sim), "",
                       "its first " + std::to_string(std::min(s.phases - 1, kSimBarriers)) + " barriers, " +
                           std::to_string(s.blocks) + " blocks, " + std::to_string(slots) + " resident slots"});
  if (!r.model_words.empty())
    sec.facts.push_back({"model: words at the end", words_text(b, r.model_words, s.blocks), "",
                         "after " + std::to_string(s.phases - 1) + " barriers"});
  if (s.blocks <= kStepTableMaxBlocks || s.trace) sec.tables.push_back(step_table(r.sim));
  else
    sec.notes.push_back("the model's step table is printed for --blocks " + std::to_string(kStepTableMaxBlocks) +
                        " or fewer, or with --trace");
  if (is_correct(b)) {
    if (beyond) {
      if (b != Barrier::grid_sync)
        sec.checks.push_back({"model: past co-residency the protocol deadlocks", r.sim.deadlock,
                              r.sim.deadlock ? "blocks " + block_ranges(r.sim.spinning) + " spin, blocks " +
                                                   block_ranges(r.sim.waiting) + " never get a slot"
                                             : sim_outcome(r.sim)});
    } else {
      sec.checks.push_back({"model: every block passes every barrier, and only after all have arrived",
                            r.sim.completed && r.sim.early_barrier == 0, sim_outcome(r.sim)});
    }
  }

  if (r.waived) {
    sec.notes.push_back("waived on this GPU: " + *r.waived);
    return sec;
  }
  if (!r.gpu) {
    sec.measurements.push_back(measured("time per barrier", "ns", {}, false, ""));
    return sec;
  }
  const GpuRun& g = *r.gpu;
  if (!g.refused.empty()) {
    sec.facts.push_back({"GPU: launch", std::string("refused"), "", g.refused});
    sec.checks.push_back({"the runtime refuses a cooperative grid past co-residency", beyond,
                          std::to_string(s.blocks) + " blocks, at most " + std::to_string(s.cooperative.limit())});
    return sec;
  }
  const auto n = static_cast<int>(g.arrive_ns.size());
  std::vector<int> arrived, never;
  for (int i = 0; i < n; ++i) (g.arrive_ns[static_cast<std::size_t>(i)] != 0 ? arrived : never).push_back(i);
  const std::vector<int> gave_up = blocks_where(g.gave_up, true);
  std::size_t wrong = 0, first_wrong = 0;
  if (!model_values.empty() && g.values.size() == model_values.size())
    for (std::size_t i = 0; i < model_values.size(); ++i)
      if (g.values[i] != model_values[i] && wrong++ == 0) first_wrong = i;

  if (beyond) {
    sec.facts.push_back({"GPU: arrived at barrier 1", block_ranges(arrived), "",
                         blocks_count(arrived.size()) + "; the model's resident slots: " +
                             std::to_string(s.limit_of(b))});
    sec.facts.push_back({"GPU: never arrived", never.empty() ? std::string("none") : block_ranges(never), "",
                         never.empty() ? std::string("every block arrived")
                                       : blocks_count(never.size()) +
                                             ": they could start only after a resident block had given up"});
    sec.facts.push_back({"GPU: gave up at the deadline", gave_up.empty() ? std::string("none") : block_ranges(gave_up),
                         "", blocks_count(gave_up.size())});
    const std::string how = std::to_string(never.size()) + " never arrived, the kernel took " +
                            report::fixed(g.kernel_ms, 1) + " ms (deadline " + std::to_string(s.deadline_ms) + " ms)";
    if (is_correct(b)) {
      sec.checks.push_back({"the deadline ended the kernel, and the blocks that never arrived are named",
                            g.deadline_hit && !never.empty() &&
                                arrived.size() + never.size() == static_cast<std::size_t>(s.blocks),
                            how});
      sec.notes.push_back("the values are not compared: no barrier can work past co-residency");
    } else {
      sec.facts.push_back({"GPU: a spin reached its deadline", std::string(g.deadline_hit ? "yes" : "no"), "", how});
      sec.notes.push_back("the seed's code is run to show its bugs; its results are reported, not checked (its "
                          "lock-free barrier waits for nothing, so past co-residency it may not even deadlock)");
    }
    return sec;
  }

  const std::string values_text = std::to_string(model_values.size()) + " values after " + std::to_string(s.phases) +
                                  " phases";
  if (is_correct(b)) {
    sec.checks.push_back({"GPU agrees with the reference model: " + values_text, wrong == 0 && !model_values.empty(),
                          wrong == 0 ? "every value equal"
                                     : std::to_string(wrong) + " differ, the first at block " +
                                           std::to_string(first_wrong / static_cast<std::size_t>(s.threads)) +
                                           ", thread " + std::to_string(first_wrong % static_cast<std::size_t>(s.threads))});
    if (!r.model_words.empty())
      sec.checks.push_back({"GPU agrees with the reference model: the protocol's words at the end",
                            g.words == r.model_words,
                            "GPU " + words_text(b, g.words, s.blocks) + ", model " + words_text(b, r.model_words, s.blocks)});
    sec.checks.push_back({"no spin reached its deadline", !g.deadline_hit,
                          g.deadline_hit ? "gave up: blocks " + block_ranges(gave_up) : "every block passed every barrier"});
  } else {
    sec.facts.push_back({"GPU: wrong values", static_cast<I>(wrong), "",
                         "of " + values_text + (wrong > 0 ? ": blocks were let through early" : ": this time the race did not show")});
    sec.facts.push_back({"GPU: a spin reached its deadline", std::string(g.deadline_hit ? "yes" : "no"), "",
                         g.deadline_hit ? "blocks " + block_ranges(gave_up) + " gave up: the deadlock of `!=`, ended"
                                        : ""});
    sec.facts.push_back({"GPU: words at the end", words_text(b, g.words, s.blocks), "", ""});
    sec.notes.push_back("the seed's code is run to show its bugs; its results are reported, not checked");
  }
  sec.measurements.push_back(measured("multi-phase run", "ms", {g.kernel_ms}, true,
                                      b == Barrier::graph ? "one graph replay" : ""));
  if (is_correct(b))
    sec.measurements.push_back(measured("time per barrier", "ns", g.ns_per_barrier, true,
                                        b == Barrier::relaunch || b == Barrier::graph
                                            ? "empty launches of this grid, back to back"
                                            : "a kernel of nothing but barriers: (t(k2) - t(k1)) / (k2 - k1)"));
  if (s.trace) sec.tables.push_back(trace_table(g, s));
  return sec;
}

Section summary_section(const std::vector<BarrierResult>& results, const Setup& s) {
  Section sec;
  sec.id = "summary";
  sec.title = "every barrier side by side";
  double grid_ns = 0;
  for (const auto& r : results)
    if (r.barrier == Barrier::grid_sync && r.gpu && !r.gpu->ns_per_barrier.empty())
      grid_ns = report::median(r.gpu->ns_per_barrier);
  LaneTable t;
  t.id = "summary";
  t.title = std::to_string(s.blocks) + " blocks of " + std::to_string(s.threads) + (s.gpu ? ", on the GPU" : ", reference model");
  t.columns = {{"barrier", "barrier", ""},     {"model", "model", ""},       {"gpu", "GPU", ""},
               {"ns_per_barrier", "ns / barrier", ""}, {"vs_grid_sync", "x grid.sync", ""}};
  for (const auto& r : results) {
    Value gpu = Undefined{}, ns = Undefined{}, ratio = Undefined{};
    RowMark mark = RowMark::none;
    if (r.waived) gpu = std::string("waived");
    if (r.gpu) {
      const GpuRun& g = *r.gpu;
      if (!g.refused.empty()) gpu = std::string("refused");
      else if (s.beyond(r.barrier)) gpu = std::string("deadline");
      else gpu = std::string(g.deadline_hit ? "deadline" : "ran");
      if (!g.ns_per_barrier.empty()) {
        ns = report::median(g.ns_per_barrier);
        if (grid_ns > 0) ratio = report::median(g.ns_per_barrier) / grid_ns;
      }
    }
    t.add_row({std::string(barrier_key(r.barrier)), sim_outcome(r.sim), gpu, ns, ratio}, mark);
  }
  t.legend.push_back("model: how the step simulation ended; GPU: ran (see each section's checks), deadline (a spin "
                     "gave up), refused (by the runtime) or waived");
  t.legend.push_back(s.gpu ? "ns / barrier: median of " + std::to_string(s.reps) + " samples; x grid.sync: over "
                                 "grid.sync's median in this run; --bench measures more, at several grid sizes"
                           : "ns / barrier and x grid.sync need a GPU");
  sec.tables.push_back(std::move(t));
  return sec;
}

Section bench_setup_section(const BenchSetup& b) {
  Section sec;
  sec.id = "setup";
  sec.title = "setup: bench sweep";
  sec.paragraphs.push_back(
      "ns per barrier, measured as a difference: a kernel that does nothing but barriers runs with k1 = " +
      std::to_string(b.k1) + " and with k2 = " + std::to_string(b.k2) +
      " barriers, and (t2 - t1) / (k2 - k1) leaves the launch out. Relaunch: k1 empty launches of the same grid "
      "back to back, time / k1; graph: one replay of a graph of k1 such launches, time / k1. Each figure is the "
      "median of " + std::to_string(b.reps) + " samples, and every ratio divides by grid.sync's median at the same "
      "grid size, measured in the same run.");
  std::string list;
  for (int n : b.blocks) list += (list.empty() ? "" : ", ") + std::to_string(n);
  sec.facts.push_back({"block counts", list, "", "1, 2, 4 blocks per SM and full co-residency"});
  sec.facts.push_back({"threads per block (--threads)", static_cast<I>(b.threads), "", ""});
  sec.facts.push_back({"backend", b.gpu ? b.device : std::string("reference model"), "", ""});
  sec.facts.push_back({"resident at once, software barriers", static_cast<I>(b.software.limit()), "", per_sm(b.software)});
  sec.facts.push_back({"resident at once, grid.sync kernel", static_cast<I>(b.cooperative.limit()), "",
                       per_sm(b.cooperative)});
  sec.facts.push_back({"own-cluster", b.gpu && !b.cluster_unsupported.empty() ? "waived" : std::string("sm_90"), "",
                       b.gpu && !b.cluster_unsupported.empty()
                           ? b.cluster_unsupported
                           : "each grid in the largest of clusters of 8, 4, 2, 1 blocks that divides it and fits at "
                             "once (cudaOccupancyMaxActiveClusters)"});
  if (!b.gpu) sec.notes.push_back("without a GPU every figure of the sweep says 'needs a GPU'");
  return sec;
}

Section bench_section(const BenchSetup& b, const std::vector<BenchRow>& rows) {
  Section sec;
  sec.id = "bench";
  sec.title = "bench: ns per barrier by grid size";
  std::vector<double> grid(b.blocks.size(), 0.0);
  for (const auto& r : rows)
    if (r.barrier == Barrier::grid_sync)
      for (std::size_t i = 0; i < r.cells.size(); ++i)
        if (!r.cells[i].ns.empty()) grid[i] = report::median(r.cells[i].ns);
  LaneTable ns, ratio;
  ns.id = "ns_per_barrier";
  ns.title = "ns per barrier, median";
  ratio.id = "vs_grid_sync";
  ratio.title = "x grid.sync (median over grid.sync's median, same run, same grid)";
  for (LaneTable* t : {&ns, &ratio}) {
    t->columns = {{"barrier", "barrier", ""}};
    for (int n : b.blocks) t->columns.push_back({"blocks_" + std::to_string(n), std::to_string(n) + " blocks", ""});
  }
  const double floor = report::median(b.floor_ns);
  {
    std::vector<Value> fr{std::string("floor: 1 dependent L2 atomic")}, fq{std::string("floor: 1 dependent L2 atomic")};
    for (std::size_t i = 0; i < b.blocks.size(); ++i) {
      fr.push_back(b.floor_ns.empty() ? Value{Undefined{}} : Value{floor});
      fq.push_back(b.floor_ns.empty() || grid[i] <= 0 ? Value{Undefined{}} : Value{floor / grid[i]});
    }
    ns.add_row(std::move(fr));
    ratio.add_row(std::move(fq));
  }
  sec.measurements.push_back(measured("floor: one dependent L2 atomic round trip", "ns", b.floor_ns, b.gpu,
                                      "one thread, atomicAdd whose address depends on the previous result, " +
                                          std::to_string(b.floor_chain) + " in a chain"));
  bool any_deadline = false;
  for (const auto& r : rows) {
    std::vector<Value> q{std::string(barrier_key(r.barrier))}, x{std::string(barrier_key(r.barrier))};
    for (std::size_t i = 0; i < r.cells.size(); ++i) {
      const BenchCell& c = r.cells[i];
      any_deadline = any_deadline || c.deadline_hit;
      if (c.ns.empty()) {
        q.push_back(Undefined{});
        x.push_back(Undefined{});
      } else {
        q.push_back(report::median(c.ns));
        x.push_back(grid[i] > 0 ? Value{report::median(c.ns) / grid[i]} : Value{Undefined{}});
      }
      Measurement m = measured(std::string(barrier_key(r.barrier)) + " @ " + std::to_string(c.blocks) + " blocks", "ns",
                               c.ns, b.gpu, c.note);
      if (c.note.rfind("waived", 0) == 0 && c.ns.empty()) m.needs_gpu = false;
      sec.measurements.push_back(std::move(m));
    }
    ns.add_row(std::move(q));
    ratio.add_row(std::move(x));
  }
  if (!b.gpu) {
    ns.legend.push_back("every cell needs a GPU");
    ratio.legend.push_back("every cell needs a GPU");
  }
  sec.tables.push_back(std::move(ns));
  sec.tables.push_back(std::move(ratio));
  // The own barriers against grid.sync at one block per SM and at full co-residency: the
  // project's target is 0.70 or less at both, in the same run.
  for (const auto& r : rows) {
    if (r.barrier != Barrier::own && r.barrier != Barrier::own_cluster) continue;
    for (std::size_t i : {std::size_t{0}, b.blocks.size() - 1}) {
      if (i >= r.cells.size() || r.cells[i].ns.empty() || grid[i] <= 0) continue;
      const double own = report::median(r.cells[i].ns);
      const double x = own / grid[i];
      const std::string where = i == 0 ? "1 block per SM" : "full co-residency";
      sec.facts.push_back({std::string(barrier_key(r.barrier)) + " / grid.sync, " + where + " (" +
                               std::to_string(b.blocks[i]) + " blocks)",
                           report::fixed(x, 3), "",
                           "medians, " + report::fixed(own, 1) + " ns against " + report::fixed(grid[i], 1) + " ns" +
                               (b.device.empty() ? "" : " on " + b.device) + "; target 0.70 or less: " +
                               (x <= 0.70 ? "met" : "not met")});
      if (i == 0 && b.blocks.size() == 1) break;
    }
  }
  if (!b.floor_ns.empty())
    sec.facts.push_back({"floor", report::fixed(floor, 1) + " ns", "",
                         "no barrier can be cheaper than one round trip to the L2: an arrival must travel there and "
                         "the news of the last one must travel back"});
  if (b.gpu)
    sec.checks.push_back({"no bench kernel reached its deadline", !any_deadline,
                          any_deadline ? "a spin gave up: the figure of that cell is not a barrier's"
                                       : "every timed barrier completed"});
  return sec;
}

}  // namespace cudasync::lockfree_barrier

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
    case Barrier::xf_lock_unrepaired:
      return "Xiao & Feng's lock-based barrier as a widely copied transcription has it: thread 0 runs "
             "atomicAdd((int*)&g_mutex, 1) and `while (g_mutex != goalVal)`, then __syncthreads(). Three bugs: "
             "(1) no __syncthreads() before the atomicAdd, so thread 0 announces its block while other warps may "
             "still be writing; (2) no fence, so the data of the last phase need not be visible when the counter "
             "says so (and the L1 cache may serve a stale copy); (3) `!=`: a block that is released and reaches "
             "the next barrier first adds 1 before a slower block has looked, and the slower block then never "
             "sees goalVal: a deadlock, which the deadline turns into a report.";
    case Barrier::xf_lockfree_unrepaired:
      return "Xiao & Feng's lock-free barrier as a widely copied transcription has it. `if (tid_in_blk = 0)` "
             "assigns 0 and tests it, so no thread ever waits for Arrayout: every block except the master runs "
             "straight on. The master (block 1, as written; a grid of one block has none) checks "
             "Arrayin[tid_in_blk] for tid_in_blk < nBlockNum, one slot per thread, so with more blocks than "
             "threads per block the slots from blockDim.x on are never checked. And no fences.";
    case Barrier::own_stagger:
    case Barrier::own_paced: return "";  // --bench's candidates for own, not parts
  }
  return "";
}

std::string blocks_count(std::size_t n) { return std::to_string(n) + (n == 1 ? " block" : " blocks"); }

std::string ranges_or_none(const std::vector<int>& v) { return v.empty() ? std::string("none") : block_ranges(v); }

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
    br.waived = "this GPU does not support cooperative launches (cudaDevAttrCooperativeLaunch is 0)";
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
  sec.fact("gpu-arrived", "GPU: arrived at barrier 1", block_ranges(a.arrived), Format::plain,
           blocks_count(a.arrived.size()) + "; the model's resident slots: " + std::to_string(run.s.limit_of(b)));
  sec.fact("gpu-never-arrived", "GPU: never arrived", ranges_or_none(a.never), Format::plain,
           a.never.empty() ? std::string("every block arrived")
                           : blocks_count(a.never.size()) + ": they could start only after a resident block had given up");
  sec.fact("gpu-gave-up", "GPU: gave up at the deadline", ranges_or_none(a.gave_up), Format::plain,
           blocks_count(a.gave_up.size()));
  const std::string how = std::to_string(a.never.size()) + " never arrived, the kernel took " +
                          report::fixed(g.kernel_ms, 1) + " ms (deadline " + std::to_string(run.options.deadline_ms) +
                          " ms)";
  if (is_correct(b)) {
    sec.check("deadline-ended", "the deadline ended the kernel, and the blocks that never arrived are named",
              a.deadline_ended(g, run.s.blocks), how);
    sec.note("the values are not compared: no barrier can work past co-residency");
  } else {
    sec.fact("gpu-deadline", "GPU: a spin reached its deadline", g.deadline_hit, Format::plain, how);
    sec.note("the code as written is run to show its bugs; its results are reported, not checked (its lock-free "
             "barrier waits for nothing, so past co-residency it may not even deadlock)");
  }
}

// Within co-residency on the GPU: the values and words against the model, and the deadline.
void within_section(Section& sec, const BarrierResult& r, const Run& run) {
  const GpuRun& g = *r.gpu;
  const Barrier b = r.barrier;
  const int blocks = run.s.blocks;
  const ValuesVerdict v = judge_values(g.values, run.want);
  const std::string values_text =
      std::to_string(run.want.size()) + " values after " + std::to_string(run.s.phases) + " phases";
  if (is_correct(b)) {
    sec.agreement("gpu-agrees", values_text, v.passed(), v.detail(run.s.threads));
    if (!r.model_words.empty())
      sec.agreement("gpu-agrees-words", "the protocol's words at the end", g.words == r.model_words,
                    "GPU " + words_text(b, g.words, blocks) + ", model " + words_text(b, r.model_words, blocks));
    sec.check("no-deadline", "no spin reached its deadline", !g.deadline_hit,
              g.deadline_hit ? "gave up: blocks " + block_ranges(arrivals(g).gave_up) : "every block passed every barrier");
  } else {
    sec.fact("gpu-wrong-values", "GPU: wrong values", static_cast<I>(v.wrong), Format::count,
             "of " + values_text + (v.wrong > 0 ? ": blocks were let through early" : ": this time the race did not show"));
    sec.fact("gpu-deadline", "GPU: a spin reached its deadline", g.deadline_hit, Format::plain,
             g.deadline_hit ? "blocks " + block_ranges(arrivals(g).gave_up) + " gave up: the deadlock of `!=`, ended" : "");
    sec.fact("gpu-words", "GPU: words at the end", words_text(b, g.words, blocks));
    sec.note("the code as written is run to show its bugs; its results are reported, not checked");
  }
  sec.add(report::measured("multi-phase-run", "multi-phase run", Format::ns, {g.kernel_ms * 1e6}, true,
                           b == Barrier::graph ? "one graph replay" : ""));
  if (is_correct(b))
    sec.add(report::measured("time-per-barrier", "time per barrier", Format::ns, g.ns_per_barrier, true,
                             b == Barrier::relaunch || b == Barrier::graph
                                 ? "empty launches of this grid, back to back"
                                 : "a kernel of nothing but barriers: (t(k2) - t(k1)) / (k2 - k1)"));
  if (run.options.trace) sec.add(trace_table(g, run.s.timer_step_ns));
}

}  // namespace

Section barrier_section(const BarrierResult& r, const Run& run) {
  const Barrier b = r.barrier;
  const Setup& s = run.s;
  Section sec(barrier_key(b), std::string(barrier_key(b)) + ": " + barrier_title(b));
  sec.paragraph(how_it_works(b));
  const bool beyond = s.beyond(b);
  if (uses_clusters(b) && !run.ctx.gpu)
    sec.note("on a GPU, own-cluster needs sm_90 (compute capability 9.0): thread-block clusters");

  sec.fact("model-sim", "model: step simulation", sim_outcome(r.sim), Format::plain,
           "its first " + std::to_string(std::min(s.phases - 1, kSimBarriers)) + " barriers, " +
               std::to_string(s.blocks) + " blocks, " + std::to_string(s.limit_of(b)) + " resident slots");
  if (!r.model_words.empty())
    sec.fact("model-words", "model: words at the end", words_text(b, r.model_words, s.blocks), Format::plain,
             "after " + std::to_string(s.phases - 1) + " barriers");
  if (s.blocks <= kStepTableMaxBlocks || run.options.trace)
    sec.add(step_table(r.sim));
  if (auto t = model_timeline(r.sim); t && run.options.trace) sec.add(std::move(*t));
  else
    sec.note("the model's step table is printed for --blocks " + std::to_string(kStepTableMaxBlocks) +
             " or fewer, or with --trace");
  if (is_correct(b) && !beyond)
    sec.check("model-passes", "model: every block passes every barrier, and only after all have arrived",
              sim_passes(r.sim), sim_outcome(r.sim));
  if (is_correct(b) && beyond && b != Barrier::grid_sync)
    sec.check("model-deadlocks", "model: past co-residency the protocol deadlocks", r.sim.deadlock,
              r.sim.deadlock ? "blocks " + block_ranges(r.sim.spinning) + " spin, blocks " +
                                   block_ranges(r.sim.waiting) + " never get a slot"
                             : sim_outcome(r.sim));

  if (!r.gpu) {
    sec.add(report::measured("time-per-barrier", "time per barrier", Format::ns, {}, false));
    return sec;
  }
  const GpuRun& g = *r.gpu;
  if (!g.refused.empty()) {
    sec.fact("gpu-launch", "GPU: launch", std::string("refused"), Format::plain, g.refused);
    sec.check("gpu-refused", "the runtime refuses a cooperative grid past co-residency", beyond,
              std::to_string(s.blocks) + " blocks, at most " + std::to_string(s.cooperative.limit()));
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
